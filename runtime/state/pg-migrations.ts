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
    name: "budget counters: calls per window, per session, principal and page (docs/RELIABILITY.md, budgets)",
    sql: `
      CREATE TABLE mnote_budget_counters (
        key text PRIMARY KEY,
        count integer NOT NULL,
        window_end timestamptz NOT NULL
      );
      CREATE INDEX mnote_budget_counters_end ON mnote_budget_counters (window_end);
      CREATE FUNCTION mnote_budget_take(keys text[], limits integer[], window_ms bigint)
        RETURNS TABLE (over_index integer, retry_after_ms bigint) LANGUAGE plpgsql AS $fn$
      DECLARE
        t timestamptz := now();
        c record;
      BEGIN
        INSERT INTO mnote_budget_counters (key, count, window_end)
          SELECT k, 0, t FROM unnest(keys) AS k ORDER BY k ON CONFLICT (key) DO NOTHING;
        PERFORM 1 FROM mnote_budget_counters b WHERE b.key = ANY(keys) ORDER BY b.key FOR UPDATE;
        FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
          SELECT b.count, b.window_end INTO c FROM mnote_budget_counters b WHERE b.key = keys[i];
          IF c.window_end > t AND c.count >= limits[i] THEN
            over_index := i - 1;
            retry_after_ms := greatest(1, ceil(extract(epoch FROM (c.window_end - t)) * 1000)::bigint);
            RETURN NEXT;
            RETURN;
          END IF;
        END LOOP;
        UPDATE mnote_budget_counters b SET
          count = CASE WHEN b.window_end > t THEN b.count + 1 ELSE 1 END,
          window_end = CASE WHEN b.window_end > t THEN b.window_end ELSE t + window_ms * interval '1 millisecond' END
        WHERE b.key = ANY(keys);
        RETURN;
      END
      $fn$;`,
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
