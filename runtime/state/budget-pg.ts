/**
 * Budget counters on PostgreSQL (`--state postgres://...`), shared by every instance on that
 * database: one call of mnote_budget_take (pg-migrations.ts, version 4) per call, one round trip.
 * The function locks the call's counters in key order (two calls never deadlock), refuses when one
 * is at its limit (counting nothing), else counts each; windows run on the database's clock, like
 * every other time of the Postgres state.
 */
import type pg from "pg";
import { query } from "./pg-pool";
import type { BudgetCounter, BudgetStore, BudgetTake } from "./budget-store";

const PURGE_BATCH = 64;
/** Every this many takes, one bounded purge runs beside them (counters of sessions long gone). */
const PURGE_EVERY = 256;

export class PgBudgetStore implements BudgetStore {
  /** The pool is the Postgres state's (pg-state.ts), which closes it. */
  private takes = 0;

  constructor(private readonly pool: pg.Pool) {}

  async take(counters: readonly BudgetCounter[], windowMs: number): Promise<BudgetTake> {
    if (++this.takes % PURGE_EVERY === 0) void this.purgeExpired().catch(() => undefined);
    const result = await query<{ over_index: number | null; retry_after_ms: string | null }>(
      this.pool,
      "SELECT over_index, retry_after_ms FROM mnote_budget_take($1::text[], $2::integer[], $3::bigint)",
      [counters.map((c) => c.key), counters.map((c) => c.limit), windowMs],
    );
    const row = result.rows[0];
    if (!row || row.over_index === null) return { ok: true };
    return { ok: false, over: row.over_index, retryAfterMs: Math.max(1, Number(row.retry_after_ms)) };
  }

  async purgeExpired(): Promise<number> {
    const result = await query(
      this.pool,
      "DELETE FROM mnote_budget_counters WHERE key IN (SELECT key FROM mnote_budget_counters WHERE window_end <= now() LIMIT $1)",
      [PURGE_BATCH],
    );
    return result.rowCount ?? 0;
  }
}
