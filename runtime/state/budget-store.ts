/**
 * The budget counters (docs/RELIABILITY.md, "Budgets"): one counter per budget (a tool's calls per
 * session, per principal, per page), each counting within a fixed window that starts at its first
 * call. take() counts one call against every counter of a call in ONE atomic step of the store (one
 * round trip: a SQLite transaction, a Redis script, a Postgres function), or, when any counter is
 * at its limit, counts nothing and says which and how long until its window ends. A refused call
 * therefore never uses up a budget, and instances sharing a store share every budget.
 */

/** One budget a call counts against: its key (opaque, bounded) and how many calls its window holds. */
export interface BudgetCounter {
  key: string;
  limit: number;
}

export type BudgetTake =
  | { ok: true }
  /** `over`: the index of the first counter at its limit; `retryAfterMs`: until its window ends (> 0). */
  | { ok: false; over: number; retryAfterMs: number };

export interface BudgetStore {
  /** Counts one call against every counter, or none of them if any is at its limit. */
  take(counters: readonly BudgetCounter[], windowMs: number): Promise<BudgetTake>;
  /** Deletes counters whose window ended (a bounded batch); how many. */
  purgeExpired?(): Promise<number>;
  close?(): Promise<void>;
}

/** The answer for counters read as (count, window end) pairs, in their order: the first full one, or ok. */
export function verdictOf(
  counters: readonly BudgetCounter[],
  state: ReadonlyArray<{ count: number; windowEnd: number }>,
  now: number,
): BudgetTake {
  for (let i = 0; i < counters.length; i++) {
    const s = state[i]!;
    if (s.windowEnd > now && s.count >= counters[i]!.limit)
      return { ok: false, over: i, retryAfterMs: Math.max(1, s.windowEnd - now) };
  }
  return { ok: true };
}
