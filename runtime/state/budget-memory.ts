/**
 * This process's own budget counters: what a budget falls back to while its shared store
 * (runtime/state/budget-*.ts) cannot be reached (docs/RELIABILITY.md, "Budgets"). The dispatcher
 * notes here every call the shared store let through, so when the store fails the counts of this
 * process's own calls in the current window are already known, and the limit holds for this
 * process at once: one instance keeps the operator's budget exactly, n instances sharing a store
 * that is down let through at most n budgets' worth per window. Synchronous under the hood, so a
 * take is atomic within the process. At most maxKeys counters: past that, ended windows are
 * dropped first, then the least recently counted (down to nine tenths of maxKeys).
 */
import { verdictOf, type BudgetCounter, type BudgetStore, type BudgetTake } from "./budget-store";

interface Window {
  count: number;
  windowEnd: number;
}

export class MemoryBudgetStore implements BudgetStore {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number,
    private readonly maxKeys = 50_000,
  ) {}

  /** Counts one call against every counter, or none if any is at its limit (as the shared stores do). */
  take(counters: readonly BudgetCounter[], windowMs: number): Promise<BudgetTake> {
    const now = this.now();
    const verdict = verdictOf(
      counters,
      counters.map((c) => this.live(c.key, now) ?? { count: 0, windowEnd: 0 }),
      now,
    );
    if (verdict.ok) this.count(counters, windowMs, now);
    return Promise.resolve(verdict);
  }

  /** Counts a call the shared store already let through, without judging it. */
  note(counters: readonly BudgetCounter[], windowMs: number): void {
    this.count(counters, windowMs, this.now());
  }

  /** How many counters are kept (for tests). */
  get size(): number {
    return this.windows.size;
  }

  private live(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    return w && w.windowEnd > now ? w : undefined;
  }

  private count(counters: readonly BudgetCounter[], windowMs: number, now: number): void {
    for (const c of counters) {
      const w = this.live(c.key, now);
      // delete then set: the Map's order is least recently counted first, so the trim forgets cold counters
      this.windows.delete(c.key);
      this.windows.set(
        c.key,
        w ? { count: w.count + 1, windowEnd: w.windowEnd } : { count: 1, windowEnd: now + windowMs },
      );
    }
    if (this.windows.size > this.maxKeys) this.trim(now);
  }

  /** Down to nine tenths of maxKeys, so a process at the bound does not scan every counter on every call. */
  private trim(now: number): void {
    const target = Math.floor(this.maxKeys * 0.9);
    for (const [key, w] of this.windows) if (w.windowEnd <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= target) break;
      this.windows.delete(key);
    }
  }
}
