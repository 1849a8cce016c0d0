/**
 * The embedded budget counters: a table in the runtime's SQLite state file, shared by every process
 * on that file. take() is one IMMEDIATE transaction (read the counters, refuse or count), on the
 * runtime's injected clock; counters whose window ended are deleted a bounded batch at a time, on
 * refusals and every PURGE_EVERY takes.
 */
import { statementCache, type Db } from "../../common/sqlite";
import { verdictOf, type BudgetCounter, type BudgetStore, type BudgetTake } from "./budget-store";

const PURGE_BATCH = 64;
const PURGE_EVERY = 256;

interface Row {
  count: number;
  window_end: number;
}

export class SqliteBudgetStore implements BudgetStore {
  private readonly sql: ReturnType<typeof statementCache>;
  private takes = 0;
  private readonly takeTransaction: import("better-sqlite3").Transaction<
    (counters: readonly BudgetCounter[], windowMs: number) => BudgetTake
  >;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS budget_counters (
      key TEXT PRIMARY KEY,
      count INTEGER NOT NULL,
      window_end INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS budget_counters_end ON budget_counters(window_end);`);
    this.sql = statementCache(db);
    this.takeTransaction = db.transaction((counters, windowMs) => this.takeNow(counters, windowMs));
  }

  // async: a SQLite error (busy past its timeout, a full disk) becomes a rejection, as the other stores'
  async take(counters: readonly BudgetCounter[], windowMs: number): Promise<BudgetTake> {
    return this.takeTransaction.immediate(counters, windowMs);
  }

  private takeNow(counters: readonly BudgetCounter[], windowMs: number): BudgetTake {
    const now = this.now();
    const read = this.sql("SELECT count, window_end FROM budget_counters WHERE key = ?");
    const state = counters.map((c) => {
      const row = read.get(c.key) as Row | undefined;
      return row ? { count: row.count, windowEnd: row.window_end } : { count: 0, windowEnd: 0 };
    });
    const verdict = verdictOf(counters, state, now);
    if (!verdict.ok || ++this.takes % PURGE_EVERY === 0) this.purgeNow(now);
    if (!verdict.ok) return verdict;
    const count = this.sql(
      `INSERT INTO budget_counters (key, count, window_end) VALUES (?, 1, ?)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN window_end > ? THEN count + 1 ELSE 1 END,
         window_end = CASE WHEN window_end > ? THEN window_end ELSE excluded.window_end END`,
    );
    for (const c of counters) count.run(c.key, now + windowMs, now, now);
    return verdict;
  }

  purgeExpired(): Promise<number> {
    return Promise.resolve(this.purgeNow(this.now()));
  }

  private purgeNow(now: number): number {
    return this.sql(
      "DELETE FROM budget_counters WHERE key IN (SELECT key FROM budget_counters WHERE window_end <= ? LIMIT ?)",
    ).run(now, PURGE_BATCH).changes;
  }
}
