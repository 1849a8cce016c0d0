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
import { EXPIRED } from "./pg-claim";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MS = "* interval '1 millisecond'";

/**
 * The steps of a keyed write that used to take a round trip each, as plpgsql functions, so each is
 * one statement from the runtime (the caller's implicit transaction; every statement inside takes a
 * fresh snapshot, READ COMMITTED, as the separate statements did):
 * - mnote_claim: the claim's insert (a free or expired key taken; a live record left alone, a
 *   concurrent claimer's insert waited for), then, when nothing was taken, the live record read and
 *   answered from (conflict, replay with its outcome, in_progress); a key that turned over between
 *   the two is looked at again, three rounds at most. Claim and read in one round trip instead of two.
 * - mnote_claim_uncertain: a keyOrigin "tool_call" write's slot read (locked), the slot written (a
 *   live slot keeps its key, even one a concurrent caller has just written), the session trimmed to
 *   its cap, and, when the slot holds the request's own key, the claim of its scope (computed by the
 *   runtime): one transaction, one round trip, as SQLite's claimUncertain. When the slot holds
 *   another key (an uncertain write being retried), no claim is taken and that key is returned: the
 *   runtime claims its scope next (the scope is a hash the runtime computes).
 */
const CLAIM_FUNCTIONS = `
      CREATE FUNCTION mnote_claim(p_scope text, p_fingerprint text, p_token text, p_lease_ms double precision,
          OUT claim_kind text, OUT claim_outcome text) LANGUAGE plpgsql AS $fn$
      DECLARE
        v_fingerprint text;
        v_state text;
      BEGIN
        FOR attempt IN 1..3 LOOP
          INSERT INTO mnote_idempotency_records AS r (scope, fingerprint, state, token, lease_until, expires_at, outcome)
            VALUES (p_scope, p_fingerprint, 'pending', p_token, now() + p_lease_ms ${MS}, now() + p_lease_ms ${MS}, NULL)
            ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending',
              token = excluded.token, lease_until = excluded.lease_until, expires_at = excluded.expires_at, outcome = NULL
            WHERE ${EXPIRED};
          IF FOUND THEN
            claim_kind := 'claimed';
            RETURN;
          END IF;
          SELECT r.fingerprint, r.state, r.outcome INTO v_fingerprint, v_state, claim_outcome
            FROM mnote_idempotency_records AS r WHERE r.scope = p_scope AND NOT ${EXPIRED};
          IF FOUND THEN
            IF v_fingerprint <> p_fingerprint THEN
              claim_kind := 'conflict';
            ELSIF v_state = 'done' THEN
              claim_kind := 'replay';
              RETURN;
            ELSE
              claim_kind := 'in_progress';
            END IF;
            claim_outcome := NULL;
            RETURN;
          END IF;
        END LOOP;
        claim_kind := 'in_progress';
        claim_outcome := NULL;
      END
      $fn$;
      CREATE FUNCTION mnote_claim_uncertain(p_session text, p_slot text, p_key text, p_ttl_ms double precision,
          p_cap integer, p_scope text, p_fingerprint text, p_token text, p_lease_ms double precision,
          OUT remembered text, OUT held_key text, OUT claim_kind text, OUT claim_outcome text)
          LANGUAGE plpgsql AS $fn$
      BEGIN
        SELECT u.idempotency_key INTO remembered FROM mnote_uncertain_writes AS u
          WHERE u.session_id = p_session AND u.slot = p_slot AND u.expires_at > now() FOR UPDATE;
        INSERT INTO mnote_uncertain_writes AS u (session_id, slot, idempotency_key, created_at, expires_at)
          VALUES (p_session, p_slot, COALESCE(remembered, p_key), clock_timestamp(), now() + p_ttl_ms ${MS})
          ON CONFLICT (session_id, slot) DO UPDATE SET
            idempotency_key = CASE WHEN u.expires_at > now() THEN u.idempotency_key ELSE excluded.idempotency_key END,
            created_at = excluded.created_at, expires_at = excluded.expires_at
          RETURNING u.idempotency_key INTO held_key;
        IF remembered IS NULL AND held_key <> p_key THEN
          remembered := held_key;
        END IF;
        -- the session's expired slots go, then all but its newest p_cap (this one always stays)
        DELETE FROM mnote_uncertain_writes AS d WHERE d.session_id = p_session AND (d.expires_at <= now() OR d.slot NOT IN
          (SELECT k.slot FROM mnote_uncertain_writes AS k WHERE k.session_id = p_session
             ORDER BY k.slot = p_slot DESC, k.created_at DESC, k.slot LIMIT p_cap));
        IF held_key = p_key THEN
          SELECT c.claim_kind, c.claim_outcome INTO claim_kind, claim_outcome
            FROM mnote_claim(p_scope, p_fingerprint, p_token, p_lease_ms) AS c;
        END IF;
      END
      $fn$;`;

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
    name: "one round trip per step: a claim, and a keyed write's slot, claim and read, as server-side functions",
    sql: CLAIM_FUNCTIONS,
  },
  {
    version: 4,
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
  {
    version: 5,
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
  {
    version: 6,
    name: "approval records: the scope an approved write ran under (null in rows made before)",
    sql: `ALTER TABLE mnote_approval_records ADD COLUMN written_under text;`,
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
