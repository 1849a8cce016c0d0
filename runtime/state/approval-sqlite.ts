/**
 * Approval records in the runtime's SQLite state file (runtime/approval/record.ts): every process
 * on the same file sees the same records; a settle is one UPDATE guarded by `status = 'pending'`,
 * so of two processes answering at once exactly one moves the record.
 */
import { purgeIfFree, statementCache, type Db } from "../../common/sqlite";
import {
  RECORD_KEPT_MS,
  recordBody,
  recordFrom,
  type ApprovalRecord,
  type ApprovalRecordStore,
  type FinalStatus,
  type Settled,
} from "../approval/record";

const PURGE_BATCH = 64;

interface Row {
  body: string;
  status: string;
  answered_by: string | null;
  answered_at: number | null;
  reason: string | null;
}

export class SqliteApprovalRecords implements ApprovalRecordStore {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS approval_records (
      id TEXT PRIMARY KEY,
      body TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'cancelled')),
      answered_by TEXT,
      answered_at INTEGER,
      reason TEXT,
      expires_at INTEGER NOT NULL,
      keep_until INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS approval_records_keep ON approval_records(keep_until)`);
    this.sql = statementCache(db);
    purgeIfFree(db, () => this.sql("DELETE FROM approval_records WHERE keep_until <= ?").run(this.now()));
  }

  async create(record: ApprovalRecord): Promise<void> {
    this.sql(
      `DELETE FROM approval_records WHERE id IN (SELECT id FROM approval_records WHERE keep_until <= ? LIMIT ${PURGE_BATCH})`,
    ).run(this.now());
    this.sql(
      "INSERT INTO approval_records (id, body, status, expires_at, keep_until) VALUES (?, ?, 'pending', ?, ?)",
    ).run(record.id, recordBody(record), record.expiresAt, record.expiresAt + RECORD_KEPT_MS);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const row = this.sql(
      "SELECT body, status, answered_by, answered_at, reason FROM approval_records WHERE id = ? AND keep_until > ?",
    ).get(id, this.now()) as Row | undefined;
    return row
      ? recordFrom(row.body, row.status, { by: row.answered_by, at: row.answered_at, reason: row.reason })
      : undefined;
  }

  async settle(
    id: string,
    to: FinalStatus,
    answer: { by: string | null; reason: string | null; now: number },
  ): Promise<Settled> {
    const moved = this.sql(
      `UPDATE approval_records SET status = ?, answered_by = ?, answered_at = ?, reason = ?
       WHERE id = ? AND status = 'pending' AND (? = 'expired' OR expires_at > ?)`,
    ).run(to, answer.by, answer.now, answer.reason, id, to, answer.now);
    return { changed: moved.changes === 1, record: await this.get(id) };
  }

  /** Into the body (no new column: state files made before need no migration); the nonce lets one scope only write. */
  async markWritten(id: string, scope: string): Promise<void> {
    this.sql("UPDATE approval_records SET body = json_set(body, '$.writtenUnder', ?) WHERE id = ?").run(scope, id);
  }
}
