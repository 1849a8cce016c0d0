/**
 * The embedded idempotency store: a table in the runtime's SQLite state file, shared by every
 * process using it. Expired records are deleted when the store opens and, a bounded batch at a
 * time, on every claim. A second table holds the keys of uncertain writes (uncertain_writes: one
 * row per session and slot, a few hundred bytes), purged the same way, a third the approval
 * nonces used up (approval_nonces: kept until their token expires), and a fourth the store's
 * identity (store_identity: one row, the approval key is bound to it).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { purgeIfFree, statementCache, type Db } from "../../common/sqlite";
import type {
  ApprovalUse,
  Claim,
  IdempotencyStore,
  SlotOfWrite,
  StoredOutcome,
  UncertainClaim,
} from "./idempotency-store";

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
  private readonly consumeTransaction: import("better-sqlite3").Transaction<
    (nonce: string, owner: string, expiresAt: number) => ApprovalUse
  >;
  private readonly rememberTransaction: import("better-sqlite3").Transaction<
    (sessionId: string, slot: string, key: string, ttlMs: number, cap: number) => void
  >;
  private readonly claimUncertainTransaction: import("better-sqlite3").Transaction<
    (slot: SlotOfWrite, scopeOf: (key: string) => string, fingerprint: string, leaseMs: number) => UncertainClaim
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
    CREATE INDEX IF NOT EXISTS idempotency_records_expiry ON idempotency_records(expires_at);
    CREATE TABLE IF NOT EXISTS uncertain_writes (
      session_id TEXT NOT NULL,
      slot TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, slot)
    );
    CREATE INDEX IF NOT EXISTS uncertain_writes_expiry ON uncertain_writes(expires_at);
    CREATE TABLE IF NOT EXISTS approval_nonces (
      nonce TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS approval_nonces_expiry ON approval_nonces(expires_at);
    CREATE TABLE IF NOT EXISTS store_identity (
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      id TEXT NOT NULL
    )`);
    this.sql = statementCache(db);
    purgeIfFree(db, () => {
      this.sql("DELETE FROM idempotency_records WHERE expires_at <= ?").run(this.now());
      this.sql("DELETE FROM uncertain_writes WHERE expires_at <= ?").run(this.now());
      this.sql("DELETE FROM approval_nonces WHERE expires_at <= ?").run(this.now());
    });
    this.rememberTransaction = db.transaction(
      (sessionId: string, slot: string, key: string, ttlMs: number, cap: number) =>
        this.rememberNow(sessionId, slot, key, ttlMs, cap),
    );
    this.consumeTransaction = db.transaction((nonce: string, owner: string, expiresAt: number) =>
      this.consumeNow(nonce, owner, expiresAt),
    );
    this.claimTransaction = db.transaction((scope: string, fingerprint: string, leaseMs: number) =>
      this.claimNow(scope, fingerprint, leaseMs),
    );
    this.claimUncertainTransaction = db.transaction(
      (slot: SlotOfWrite, scopeOf: (key: string) => string, fingerprint: string, leaseMs: number) => {
        const remembered = this.uncertainKeyNow(slot.sessionId, slot.slot);
        const key = remembered ?? slot.key;
        this.rememberNow(slot.sessionId, slot.slot, key, slot.ttlMs, slot.cap);
        const scope = scopeOf(key);
        return { remembered, key, scope, claim: this.claimNow(scope, fingerprint, leaseMs) };
      },
    );
  }

  /** The three steps of a tool_call write before its kernel command, in one IMMEDIATE transaction. */
  async claimUncertain(
    slot: SlotOfWrite,
    scopeOf: (key: string) => string,
    fingerprint: string,
    leaseMs: number,
  ): Promise<UncertainClaim> {
    return this.claimUncertainTransaction.immediate(slot, scopeOf, fingerprint, leaseMs);
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
    // a claim's holder id, compared for equality only: randomUUID (122 random bits, from Node's
    // batched entropy) costs a tenth of randomBytes(12) per claim
    const token = randomUUID();
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

  async renew(scope: string, token: string, leaseMs: number): Promise<void> {
    const until = this.now() + leaseMs;
    this.sql(
      "UPDATE idempotency_records SET lease_until = ?, expires_at = ? WHERE scope = ? AND token = ? AND state = 'pending'",
    ).run(until, until, scope, token);
  }

  async uncertainKey(sessionId: string, slot: string): Promise<string | undefined> {
    return this.uncertainKeyNow(sessionId, slot);
  }

  private uncertainKeyNow(sessionId: string, slot: string): string | undefined {
    const row = this.sql(
      "SELECT idempotency_key FROM uncertain_writes WHERE session_id = ? AND slot = ? AND expires_at > ?",
    ).get(sessionId, slot, this.now()) as { idempotency_key: string } | undefined;
    return row?.idempotency_key;
  }

  async rememberUncertain(sessionId: string, slot: string, key: string, ttlMs: number, cap: number): Promise<void> {
    this.rememberTransaction.immediate(sessionId, slot, key, ttlMs, cap);
  }

  private rememberNow(sessionId: string, slot: string, key: string, ttlMs: number, cap: number): void {
    const now = this.now();
    this.sql(
      `DELETE FROM uncertain_writes WHERE rowid IN (SELECT rowid FROM uncertain_writes WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`,
    ).run(now);
    this.sql(
      `INSERT INTO uncertain_writes (session_id, slot, idempotency_key, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(session_id, slot) DO UPDATE SET idempotency_key = excluded.idempotency_key,
           created_at = excluded.created_at, expires_at = excluded.expires_at`,
    ).run(sessionId, slot, key, now, now + ttlMs);
    // the session's newest `cap` slots stay (a session's memory is bounded whatever the model does)
    this.sql(
      `DELETE FROM uncertain_writes WHERE session_id = ? AND slot NOT IN
         (SELECT slot FROM uncertain_writes WHERE session_id = ? ORDER BY slot = ? DESC, created_at DESC, slot LIMIT ?)`,
    ).run(sessionId, sessionId, slot, cap);
  }

  async forgetUncertain(sessionId: string, slot: string, key?: string): Promise<void> {
    if (key === undefined)
      this.sql("DELETE FROM uncertain_writes WHERE session_id = ? AND slot = ?").run(sessionId, slot);
    else
      this.sql("DELETE FROM uncertain_writes WHERE session_id = ? AND slot = ? AND idempotency_key = ?").run(
        sessionId,
        slot,
        key,
      );
  }

  async consumeApproval(nonce: string, owner: string, ttlMs: number): Promise<ApprovalUse> {
    return this.consumeTransaction.immediate(nonce, owner, this.now() + ttlMs);
  }

  private consumeNow(nonce: string, owner: string, expiresAt: number): ApprovalUse {
    this.sql(
      `DELETE FROM approval_nonces WHERE nonce IN (SELECT nonce FROM approval_nonces WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`,
    ).run(this.now());
    // a nonce is unique: the first insert wins, in this process or any other on the same file
    const inserted = this.sql("INSERT OR IGNORE INTO approval_nonces (nonce, owner, expires_at) VALUES (?, ?, ?)").run(
      nonce,
      owner,
      expiresAt,
    );
    if (inserted.changes === 1) return "fresh";
    const row = this.sql("SELECT owner FROM approval_nonces WHERE nonce = ?").get(nonce) as { owner: string };
    return row.owner === owner ? "same" : "used";
  }

  async storeId(): Promise<string> {
    // the first insert wins, in this process or any other on the same file
    this.sql("INSERT OR IGNORE INTO store_identity (singleton, id) VALUES (1, ?)").run(randomBytes(16).toString("hex"));
    return (this.sql("SELECT id FROM store_identity WHERE singleton = 1").get() as { id: string }).id;
  }

  async close(): Promise<void> {
    // the database belongs to whoever opened it
  }
}
