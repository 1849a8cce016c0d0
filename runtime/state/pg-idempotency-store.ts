/**
 * The idempotency store on PostgreSQL, for runtime instances on several machines that must not
 * forget: a committed write's record, a used approval nonce and an uncertain write's key survive a
 * restart of any instance and of Postgres itself (it is durable by default).
 *
 * Each promise is one statement (a prepared one, pg-pool.ts) or one short transaction, so instances
 * agree without talking:
 * - claim: one call of mnote_claim (pg-migrations.ts, migration 3), one round trip whatever the
 *   answer: its INSERT ... ON CONFLICT takes a free key, or one whose lease or lifetime has run out
 *   (DO UPDATE ... WHERE expired; a live record is left alone, as DO NOTHING would); when nothing was
 *   taken the live record is read and answered from (in_progress, conflict or replay). Two claimers
 *   of one key: one inserts, the other's insert waits for that commit and then takes nothing, never
 *   a second "claimed". On a schema before migration 3 (an instance opened with migrate off), the
 *   same two statements are sent one by one.
 * - claimUncertain: a keyOrigin "tool_call" write's slot read, slot written and claim taken, in one
 *   call of mnote_claim_uncertain (one transaction, one round trip), as SQLite does; a second round
 *   trip (a claim) only when the slot held another key (the retry of an uncertain write).
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
import { randomBytes, randomUUID } from "node:crypto";
import { PgApprovalRecords } from "./approval-pg";
import type pg from "pg";
import type {
  ApprovalUse,
  Claim,
  IdempotencyStore,
  SlotOfWrite,
  StoredOutcome,
  UncertainClaim,
} from "./idempotency-store";
import { prepared, query, transaction } from "./pg-pool";
import { CLAIM, CLAIM_UNCERTAIN, claimByStatements, claimOf, type ClaimRow } from "./pg-claim";

/** How many expired rows of one table a purge deletes per statement: the purge never holds locks long. */
export const PURGE_BATCH = 1_000;

/** An interval of ms milliseconds, as SQL over a parameter. */
const ms = (param: string) => `(${param}::double precision * interval '1 millisecond')`;

export class PgIdempotencyStore implements IdempotencyStore {
  /** Set when the schema has the server-side steps (migration 3); else the caller takes the steps one by one. */
  readonly claimUncertain?: IdempotencyStore["claimUncertain"];

  /**
   * closePool: whoever owns the pool closes it (pg-state.ts); the store only uses it. serverSteps:
   * the schema has migration 3's functions (pg-state.ts checks the ledger).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly closePool: () => Promise<void> = async () => undefined,
    private readonly serverSteps = true,
  ) {
    if (serverSteps)
      this.claimUncertain = (slot, scopeOf, fp, leaseMs) => this.slotAndClaim(slot, scopeOf, fp, leaseMs);
  }

  approvalRecords(now: () => number): PgApprovalRecords {
    return new PgApprovalRecords(this.pool, now);
  }

  async claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    // a claim's holder id, compared for equality only (randomUUID: Node's batched entropy)
    const token = randomUUID();
    if (this.serverSteps)
      return claimOf((await query<ClaimRow>(this.pool, CLAIM, [scope, fingerprint, token, leaseMs])).rows[0]!, token);
    return claimByStatements(this.pool, scope, fingerprint, token, leaseMs);
  }

  /** The slot, the claim and the read of a tool_call write in one transaction (mnote_claim_uncertain). */
  private async slotAndClaim(
    slot: SlotOfWrite,
    scopeOf: (key: string) => string,
    fingerprint: string,
    leaseMs: number,
  ): Promise<UncertainClaim> {
    const token = randomUUID();
    const scope = scopeOf(slot.key);
    const row = (
      await query<ClaimRow & { remembered: string | null; held_key: string }>(this.pool, CLAIM_UNCERTAIN, [
        slot.sessionId,
        slot.slot,
        slot.key,
        slot.ttlMs,
        slot.cap,
        scope,
        fingerprint,
        token,
        leaseMs,
      ])
    ).rows[0]!;
    const remembered = row.remembered ?? undefined;
    if (row.held_key === slot.key) return { remembered, key: slot.key, scope, claim: claimOf(row, token) };
    // the slot holds an earlier write's key: that key's scope is claimed (the runtime hashes scopes)
    const held = scopeOf(row.held_key);
    return { remembered, key: row.held_key, scope: held, claim: await this.claim(held, fingerprint, leaseMs) };
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
        prepared(
          `INSERT INTO mnote_uncertain_writes (session_id, slot, idempotency_key, created_at, expires_at)
           VALUES ($1, $2, $3, clock_timestamp(), now() + ${ms("$4")})
           ON CONFLICT (session_id, slot) DO UPDATE SET idempotency_key = excluded.idempotency_key,
             created_at = excluded.created_at, expires_at = excluded.expires_at`,
          [sessionId, slot, key, ttlMs],
        ),
      );
      // the session's expired slots go, then all but its newest `cap` (this one always stays)
      await client.query(
        prepared(
          `DELETE FROM mnote_uncertain_writes WHERE session_id = $1 AND (expires_at <= now() OR slot NOT IN
           (SELECT slot FROM mnote_uncertain_writes WHERE session_id = $1
              ORDER BY slot = $2 DESC, created_at DESC, slot LIMIT $3))`,
          [sessionId, slot, cap],
        ),
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
        prepared(
          `INSERT INTO mnote_approval_nonces (nonce, expires_at) VALUES ($1, now() + ${ms("$2")})
           ON CONFLICT (nonce) DO UPDATE SET owner = NULL, used_at = NULL, expires_at = excluded.expires_at
           WHERE mnote_approval_nonces.expires_at <= now()`,
          [nonce, ttlMs],
        ),
      );
      const used = await client.query(
        prepared(
          `UPDATE mnote_approval_nonces SET used_at = now(), owner = $2,
           expires_at = GREATEST(expires_at, now() + ${ms("$3")})
           WHERE nonce = $1 AND used_at IS NULL RETURNING nonce`,
          [nonce, owner, ttlMs],
        ),
      );
      if (used.rowCount === 1) return "fresh";
      const row = await client.query<{ owner: string }>(
        prepared("SELECT owner FROM mnote_approval_nonces WHERE nonce = $1", [nonce]),
      );
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
