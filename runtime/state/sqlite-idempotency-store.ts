/** The embedded idempotency store: a table in the runtime's SQLite state file, shared by every process using it. */
import { randomBytes } from "node:crypto";
import { statementCache, type Db } from "../../common/sqlite";
import type { Claim, IdempotencyStore, StoredOutcome } from "./idempotency-store";

interface Row {
  fingerprint: string;
  state: "pending" | "done";
  lease_until: number;
  expires_at: number;
  outcome_json: string | null;
}

export class SqliteIdempotencyStore implements IdempotencyStore {
  private claims = 0;
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly claimTransaction: import("better-sqlite3").Transaction<(scope: string, fingerprint: string, leaseMs: number) => Claim>;

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
    )`);
    this.sql = statementCache(db);
    this.claimTransaction = db.transaction((scope: string, fingerprint: string, leaseMs: number) => this.claimNow(scope, fingerprint, leaseMs));
  }

  async claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    if (++this.claims % 1000 === 0) this.sql("DELETE FROM idempotency_records WHERE expires_at <= ?").run(this.now());
    return this.claimTransaction.immediate(scope, fingerprint, leaseMs);
  }

  private claimNow(scope: string, fingerprint: string, leaseMs: number): Claim {
    const now = this.now();
    const row = this.sql("SELECT fingerprint, state, lease_until, expires_at, outcome_json FROM idempotency_records WHERE scope = ?").get(scope) as Row | undefined;
    if (row && row.state === "done" && row.expires_at > now) {
      return row.fingerprint === fingerprint ? { kind: "replay", outcome: JSON.parse(row.outcome_json!) as StoredOutcome } : { kind: "conflict" };
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

  async complete(scope: string, token: string, fingerprint: string, outcome: StoredOutcome, ttlMs: number): Promise<void> {
    this.sql("UPDATE idempotency_records SET state = 'done', fingerprint = ?, outcome_json = ?, expires_at = ? WHERE scope = ? AND token = ?").run(
      fingerprint,
      JSON.stringify(outcome),
      this.now() + ttlMs,
      scope,
      token,
    );
  }

  async release(scope: string, token: string): Promise<void> {
    this.sql("DELETE FROM idempotency_records WHERE scope = ? AND token = ? AND state = 'pending'").run(scope, token);
  }

  async close(): Promise<void> {
    // the database belongs to whoever opened it
  }
}
