/**
 * The embedded idempotency store: a table in the runtime's SQLite state file, shared by every
 * process using it. Expired records are deleted when the store opens and, a bounded batch at a
 * time, on every claim.
 */
import { randomBytes } from "node:crypto";
import { statementCache, type Db } from "../../common/sqlite";
import type { Claim, IdempotencyStore, StoredOutcome } from "./idempotency-store";

/** How many expired records one claim removes at most: the cost of a claim stays bounded. */
const PURGE_BATCH = 64;

interface Row {
  fingerprint: string;
  state: "pending" | "done";
  lease_until: number;
  expires_at: number;
  outcome_json: string | null;
}

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly claimTransaction: import("better-sqlite3").Transaction<
    (scope: string, fingerprint: string, leaseMs: number) => Claim
  >;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS idempotency_records (
      scope TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
      token TEXT NOT NULL,
      lease_until INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      outcome_json TEXT
    );
    CREATE INDEX IF NOT EXISTS idempotency_records_expiry ON idempotency_records(expires_at)`);
    this.sql = statementCache(db);
    this.sql("DELETE FROM idempotency_records WHERE expires_at <= ?").run(this.now());
    this.claimTransaction = db.transaction((scope: string, fingerprint: string, leaseMs: number) =>
      this.claimNow(scope, fingerprint, leaseMs),
    );
  }

  async claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    return this.claimTransaction.immediate(scope, fingerprint, leaseMs);
  }

  private claimNow(scope: string, fingerprint: string, leaseMs: number): Claim {
    const now = this.now();
    // A bounded batch of expired records goes with every claim: `call` runs one claim per process,
    // so a purge that waits for many claims in one process would never run there.
    this.sql(
      `DELETE FROM idempotency_records WHERE scope IN (SELECT scope FROM idempotency_records WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`,
    ).run(now);
    const row = this.sql(
      "SELECT fingerprint, state, lease_until, expires_at, outcome_json FROM idempotency_records WHERE scope = ?",
    ).get(scope) as Row | undefined;
    if (row && row.state === "done" && row.expires_at > now) {
      return row.fingerprint === fingerprint
        ? { kind: "replay", outcome: JSON.parse(row.outcome_json!) as StoredOutcome }
        : { kind: "conflict" };
    }
    if (row && row.state === "pending" && row.lease_until > now) {
      return row.fingerprint === fingerprint ? { kind: "in_progress" } : { kind: "conflict" };
    }
    const token = randomBytes(12).toString("hex");
    this.sql(
      `INSERT INTO idempotency_records (scope, fingerprint, state, token, lease_until, expires_at, outcome_json) VALUES (?, ?, 'pending', ?, ?, ?, NULL)
         ON CONFLICT(scope) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending', token = excluded.token,
           lease_until = excluded.lease_until, expires_at = excluded.expires_at, outcome_json = NULL`,
    ).run(scope, fingerprint, token, now + leaseMs, now + leaseMs);
    return { kind: "claimed", token };
  }

  async complete(
    scope: string,
    token: string,
    fingerprint: string,
    outcome: StoredOutcome,
    ttlMs: number,
  ): Promise<void> {
    this.sql(
      "UPDATE idempotency_records SET state = 'done', fingerprint = ?, outcome_json = ?, expires_at = ? WHERE scope = ? AND token = ?",
    ).run(fingerprint, JSON.stringify(outcome), this.now() + ttlMs, scope, token);
  }

  async release(scope: string, token: string): Promise<void> {
    this.sql("DELETE FROM idempotency_records WHERE scope = ? AND token = ? AND state = 'pending'").run(scope, token);
  }

  async close(): Promise<void> {
    // the database belongs to whoever opened it
  }
}
