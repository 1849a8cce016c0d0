/**
 * The idempotency store on PostgreSQL, for runtime instances on several machines that must not
 * forget: a committed write's record, a used approval nonce and an uncertain write's key survive a
 * restart of any instance and of Postgres itself (it is durable by default).
 *
 * Each promise is one statement or one short transaction, so instances agree without talking:
 * - claim: one INSERT ... ON CONFLICT RETURNING takes a free key, or one whose lease or lifetime has
 *   run out (DO UPDATE ... WHERE expired; a live record is left alone, as DO NOTHING would): one
 *   statement, one round trip, committed on its own. When nothing is returned the live record is
 *   read and answered from (in_progress, conflict or replay). Two claimers of one key: one inserts,
 *   the other's insert waits for that commit and then takes nothing, never a second "claimed".
 * - complete / release / renew: UPDATE or DELETE ... WHERE token = $token: only the holder's
 *   token changes a record, so a claim taken over after a lost lease cannot be overwritten by the
 *   process that lost it. Claim and completion agree through that token, not through one database
 *   transaction held open across the kernel's write: that would pin a connection for the whole
 *   write and, on a crash, roll the claim back while the kernel's write stood.
 * - consumeApproval, in one transaction: the nonce's row is made if absent (or expired), then used
 *   with UPDATE ... WHERE used_at IS NULL RETURNING: exactly one owner ever gets "fresh".
 * - rememberUncertain, in one transaction: the slot is written and the session trimmed to its cap.
 * - Every time is the database's (now() + an interval in ms), so leases and lifetimes do not depend
 *   on the runtimes' clocks agreeing. Expired rows are ignored by every read and deleted by
 *   purgeExpired (run on open and periodically by pg-state.ts).
 *
 * A connection lost mid-claim: the claim either committed (the key is held until its lease runs
 * out, the retry gets in_progress, then the kernel's own record answers) or did not (the key is
 * free); either way the caller gets StoreUnavailableError and the dispatcher leaves the write to the
 * kernel's idempotency record, which never applies a command twice.
 *
 * One private method per operation: a method added to IdempotencyStore is one more here.
 */
import { PgApprovalRecords } from "./approval-pg";
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { ApprovalUse, Claim, IdempotencyStore, StoredOutcome } from "./idempotency-store";
import { query, transaction } from "./pg-pool";

/** How many expired rows of one table a purge deletes per statement: the purge never holds locks long. */
export const PURGE_BATCH = 1_000;

/** An interval of ms milliseconds, as SQL over a parameter. */
const ms = (param: string) => `(${param}::double precision * interval '1 millisecond')`;

interface RecordRow {
  fingerprint: string;
  state: "pending" | "done";
  outcome: string | null;
}

/** A record (aliased r) that no longer holds its key: a lease or a lifetime run out, on the database's clock. */
const EXPIRED = "(CASE WHEN r.state = 'done' THEN r.expires_at <= now() ELSE r.lease_until <= now() END)";

export class PgIdempotencyStore implements IdempotencyStore {
  /** closePool: whoever owns the pool closes it (pg-state.ts); the store only uses it. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly closePool: () => Promise<void> = async () => undefined,
  ) {}

  approvalRecords(now: () => number): PgApprovalRecords {
    return new PgApprovalRecords(this.pool, now);
  }

  async claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    const token = randomBytes(12).toString("hex");
    // each statement is atomic on its own: the common case (a free key) is one round trip
    // a key that turns over between the two statements is looked at again; three rounds is plenty
    for (let round = 0; round < 3; round++) {
      const answer = await this.claimRound(scope, fingerprint, token, leaseMs);
      if (answer) return answer;
    }
    return { kind: "in_progress" };
  }

  /** One try: take the key if free or expired, else say what holds it; undefined when it moved meanwhile. */
  private async claimRound(
    scope: string,
    fingerprint: string,
    token: string,
    leaseMs: number,
  ): Promise<Claim | undefined> {
    // a concurrent claimer's uncommitted insert makes this wait for its commit, then leave it alone
    const taken = await query(
      this.pool,
      `INSERT INTO mnote_idempotency_records AS r (scope, fingerprint, state, token, lease_until, expires_at, outcome)
         VALUES ($1, $2, 'pending', $3, now() + ${ms("$4")}, now() + ${ms("$4")}, NULL)
         ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending',
           token = excluded.token, lease_until = excluded.lease_until, expires_at = excluded.expires_at, outcome = NULL
           WHERE ${EXPIRED}
         RETURNING token`,
      [scope, fingerprint, token, leaseMs],
    );
    if (taken.rowCount === 1) return { kind: "claimed", token };
    // held by a live record: whose
    const row = (
      await query<RecordRow>(
        this.pool,
        `SELECT fingerprint, state, outcome FROM mnote_idempotency_records AS r WHERE scope = $1 AND NOT (${EXPIRED})`,
        [scope],
      )
    ).rows[0];
    if (!row) return undefined;
    if (row.fingerprint !== fingerprint) return { kind: "conflict" };
    return row.state === "done"
      ? { kind: "replay", outcome: JSON.parse(row.outcome!) as StoredOutcome }
      : { kind: "in_progress" };
  }

  async complete(
    scope: string,
    token: string,
    fingerprint: string,
    outcome: StoredOutcome,
    ttlMs: number,
  ): Promise<void> {
    // one statement: the outcome is recorded only while this token holds the key
    await query(
      this.pool,
      `UPDATE mnote_idempotency_records SET state = 'done', fingerprint = $3, outcome = $4,
         expires_at = now() + ${ms("$5")} WHERE scope = $1 AND token = $2`,
      [scope, token, fingerprint, JSON.stringify(outcome), ttlMs],
    );
  }

  async release(scope: string, token: string): Promise<void> {
    await query(
      this.pool,
      "DELETE FROM mnote_idempotency_records WHERE scope = $1 AND token = $2 AND state = 'pending'",
      [scope, token],
    );
  }

  async renew(scope: string, token: string, leaseMs: number): Promise<void> {
    await query(
      this.pool,
      `UPDATE mnote_idempotency_records SET lease_until = now() + ${ms("$3")}, expires_at = now() + ${ms("$3")}
         WHERE scope = $1 AND token = $2 AND state = 'pending'`,
      [scope, token, leaseMs],
    );
  }

  async uncertainKey(sessionId: string, slot: string): Promise<string | undefined> {
    const result = await query<{ idempotency_key: string }>(
      this.pool,
      "SELECT idempotency_key FROM mnote_uncertain_writes WHERE session_id = $1 AND slot = $2 AND expires_at > now()",
      [sessionId, slot],
    );
    return result.rows[0]?.idempotency_key;
  }

  async rememberUncertain(sessionId: string, slot: string, key: string, ttlMs: number, cap: number): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO mnote_uncertain_writes (session_id, slot, idempotency_key, created_at, expires_at)
           VALUES ($1, $2, $3, clock_timestamp(), now() + ${ms("$4")})
           ON CONFLICT (session_id, slot) DO UPDATE SET idempotency_key = excluded.idempotency_key,
             created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [sessionId, slot, key, ttlMs],
      );
      // the session's expired slots go, then all but its newest `cap` (this one always stays)
      await client.query(
        `DELETE FROM mnote_uncertain_writes WHERE session_id = $1 AND (expires_at <= now() OR slot NOT IN
           (SELECT slot FROM mnote_uncertain_writes WHERE session_id = $1
              ORDER BY slot = $2 DESC, created_at DESC, slot LIMIT $3))`,
        [sessionId, slot, cap],
      );
    });
  }

  async forgetUncertain(sessionId: string, slot: string, key?: string): Promise<void> {
    // with a key: compare-and-delete in one statement, so a late delivery of an earlier write
    // cannot forget the slot a newer write has taken since
    if (key === undefined)
      await query(this.pool, "DELETE FROM mnote_uncertain_writes WHERE session_id = $1 AND slot = $2", [
        sessionId,
        slot,
      ]);
    else
      await query(
        this.pool,
        "DELETE FROM mnote_uncertain_writes WHERE session_id = $1 AND slot = $2 AND idempotency_key = $3",
        [sessionId, slot, key],
      );
  }

  async storeId(): Promise<string> {
    // the first insert wins, whichever instance makes it; the row never expires (it lives and
    // dies with the database, like the nonces the approval key is bound to)
    await query(this.pool, "INSERT INTO mnote_store_identity (singleton, id) VALUES (1, $1) ON CONFLICT DO NOTHING", [
      randomBytes(16).toString("hex"),
    ]);
    const result = await query<{ id: string }>(
      this.pool,
      "SELECT id FROM mnote_store_identity WHERE singleton = 1",
      [],
    );
    return result.rows[0]!.id;
  }

  async consumeApproval(nonce: string, owner: string, ttlMs: number): Promise<ApprovalUse> {
    return transaction(this.pool, async (client) => {
      // an expired row is a nonce whose token is dead: it is cleared and made anew
      await client.query(
        `INSERT INTO mnote_approval_nonces (nonce, expires_at) VALUES ($1, now() + ${ms("$2")})
           ON CONFLICT (nonce) DO UPDATE SET owner = NULL, used_at = NULL, expires_at = excluded.expires_at
           WHERE mnote_approval_nonces.expires_at <= now()`,
        [nonce, ttlMs],
      );
      const used = await client.query(
        `UPDATE mnote_approval_nonces SET used_at = now(), owner = $2,
           expires_at = GREATEST(expires_at, now() + ${ms("$3")})
           WHERE nonce = $1 AND used_at IS NULL RETURNING nonce`,
        [nonce, owner, ttlMs],
      );
      if (used.rowCount === 1) return "fresh";
      const row = await client.query<{ owner: string }>("SELECT owner FROM mnote_approval_nonces WHERE nonce = $1", [
        nonce,
      ]);
      return row.rows[0]?.owner === owner ? "same" : "used";
    });
  }

  /** Deletes expired records, nonces and slots, a batch per statement; returns how many went. */
  async purgeExpired(): Promise<number> {
    let removed = 0;
    for (const table of ["mnote_idempotency_records", "mnote_uncertain_writes", "mnote_approval_nonces"]) {
      const result = await query(
        this.pool,
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE expires_at <= now() LIMIT ${PURGE_BATCH})`,
      );
      removed += result.rowCount ?? 0;
    }
    return removed;
  }

  async close(): Promise<void> {
    await this.closePool();
  }
}
