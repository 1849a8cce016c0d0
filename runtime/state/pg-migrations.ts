/**
 * The Postgres state's schema, as numbered migrations applied in order, each once, on start-up and
 * by `mnote-tools state migrate`.
 *
 * Why a few lines of our own and not node-pg-migrate: our schema is five small tables that ship
 * inside the runtime (no migrations folder to find at run time, no second CLI for operators), and
 * the guarantee we need is exactly two statements: a session-level pg_advisory_lock held while the
 * ledger is read and the missing steps run, so two instances starting at once take turns (the
 * second finds everything applied), and one transaction per step with its ledger row, so a step is
 * either wholly applied and recorded or not at all. A migration library would add a dependency
 * tree for those two statements.
 *
 * Rules for a new step: append to MIGRATIONS (never edit a shipped one), keep it additive so older
 * instances still running keep working while newer ones migrate.
 */
import type pg from "pg";
import { storeError } from "./pg-pool";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Times are timestamptz set from the database's clock (now()), never from a runtime's: every
 * instance measures leases and lifetimes on the same clock (docs/RELIABILITY.md, "Postgres").
 * JSON is kept as text, not jsonb: a replayed result must be byte for byte the first answer (jsonb
 * reorders keys).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "runtime state: grants, idempotency records, uncertain writes, approval nonces, approval secret",
    sql: `
      CREATE TABLE mnote_session_grants (
        session_id text PRIMARY KEY,
        grant_json text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX mnote_session_grants_expiry ON mnote_session_grants (expires_at);
      CREATE TABLE mnote_idempotency_records (
        scope text PRIMARY KEY,
        fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'done')),
        token text NOT NULL,
        lease_until timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        outcome text
      );
      CREATE INDEX mnote_idempotency_records_expiry ON mnote_idempotency_records (expires_at);
      CREATE TABLE mnote_uncertain_writes (
        session_id text NOT NULL,
        slot text NOT NULL,
        idempotency_key text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (session_id, slot)
      );
      CREATE INDEX mnote_uncertain_writes_expiry ON mnote_uncertain_writes (expires_at);
      CREATE TABLE mnote_approval_nonces (
        nonce text PRIMARY KEY,
        owner text,
        used_at timestamptz,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX mnote_approval_nonces_expiry ON mnote_approval_nonces (expires_at);
      CREATE TABLE mnote_approval_secret (
        id integer PRIMARY KEY CHECK (id = 1),
        secret bytea NOT NULL
      );`,
  },
  {
    version: 2,
    name: "store identity: the id the approval key is bound to (docs/RELIABILITY.md)",
    sql: `
      CREATE TABLE mnote_store_identity (
        singleton integer PRIMARY KEY CHECK (singleton = 1),
        id text NOT NULL
      );`,
  },
  {
    version: 3,
    name: "approval records: one row per question put to a person (docs/APPROVAL.md)",
    sql: `
      CREATE TABLE mnote_approval_records (
        id text PRIMARY KEY,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'cancelled')),
        answered_by text,
        answered_at bigint,
        reason text,
        expires_at bigint NOT NULL,
        keep_until bigint NOT NULL
      );
      CREATE INDEX mnote_approval_records_keep ON mnote_approval_records (keep_until);`,
  },
];

/** The advisory lock's key: a constant of ours ("mnote" in ASCII), the same in every instance. */
const LOCK_KEY = 0x6d6e6f7465;

/** Applies the missing migrations under the advisory lock; returns the versions it applied. */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw storeError(e);
  }
  let broken: Error | undefined;
  try {
    // session-level: held across the steps' transactions, released below or when the connection dies
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      await client.query(
        "CREATE TABLE IF NOT EXISTS mnote_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      const done = new Set(
        (await client.query<{ version: number }>("SELECT version FROM mnote_schema_migrations")).rows.map(
          (r) => r.version,
        ),
      );
      const applied: number[] = [];
      for (const step of migrations) {
        if (done.has(step.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(step.sql);
          await client.query("INSERT INTO mnote_schema_migrations (version, name) VALUES ($1, $2)", [
            step.version,
            step.name,
          ]);
          await client.query("COMMIT");
        } catch (e) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw e;
        }
        applied.push(step.version);
      }
      return applied;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch((e: Error) => (broken = e));
    }
  } catch (e) {
    broken ??= e as Error;
    throw storeError(e);
  } finally {
    client.release(broken);
  }
}
