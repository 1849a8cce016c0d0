/**
 * Approval records on PostgreSQL (runtime/approval/record.ts; table mnote_approval_records,
 * migrations 5 and 6 in pg-migrations.ts). A settle is one UPDATE guarded by `status = 'pending'`, so of
 * two instances answering at once exactly one moves the record. Times are the token's own
 * (milliseconds since the epoch, bigint): the instance that checks a token judges its expiry.
 */
import type pg from "pg";
import { query } from "./pg-pool";
import {
  RECORD_KEPT_MS,
  recordBody,
  recordFrom,
  type ApprovalRecord,
  type ApprovalRecordStore,
  type FinalStatus,
  type Settled,
} from "../approval/record";

interface Row {
  body: string;
  status: string;
  answered_by: string | null;
  answered_at: string | null;
  reason: string | null;
  written_under: string | null;
}

export class PgApprovalRecords implements ApprovalRecordStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
  ) {}

  async create(record: ApprovalRecord): Promise<void> {
    await query(this.pool, "DELETE FROM mnote_approval_records WHERE keep_until <= $1", [this.now()]);
    await query(
      this.pool,
      "INSERT INTO mnote_approval_records (id, body, status, expires_at, keep_until) VALUES ($1, $2, 'pending', $3, $4)",
      [record.id, recordBody(record), record.expiresAt, record.expiresAt + RECORD_KEPT_MS],
    );
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const result = await query<Row>(
      this.pool,
      "SELECT body, status, answered_by, answered_at, reason, written_under FROM mnote_approval_records WHERE id = $1 AND keep_until > $2",
      [id, this.now()],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const record = recordFrom(row.body, row.status, {
      by: row.answered_by,
      at: row.answered_at === null ? null : Number(row.answered_at),
      reason: row.reason,
    });
    return row.written_under === null ? record : { ...record, writtenUnder: row.written_under };
  }

  async settle(
    id: string,
    to: FinalStatus,
    answer: { by: string | null; reason: string | null; now: number },
  ): Promise<Settled> {
    const moved = await query(
      this.pool,
      `UPDATE mnote_approval_records SET status = $2, answered_by = $3, answered_at = $4, reason = $5
       WHERE id = $1 AND status = 'pending' AND ($2 = 'expired' OR expires_at > $4)`,
      [id, to, answer.by, answer.now, answer.reason],
    );
    return { changed: moved.rowCount === 1, record: await this.get(id) };
  }

  async markWritten(id: string, scope: string): Promise<void> {
    await query(this.pool, "UPDATE mnote_approval_records SET written_under = $2 WHERE id = $1", [id, scope]);
  }
}
