/**
 * The budget counters on every store (runtime/state/budget-*.ts): SQLite, Redis and PostgreSQL
 * (real servers, as test/state/stores.test.ts; skipped with the reason when one cannot be had).
 * One take is atomic over all the call's counters: many takes at once let exactly the limit
 * through, a refused take counts nothing on any counter, the answer names the full counter and a
 * wait within the window, and a window that ended frees the counter. Windows: what must still hold
 * is checked inside a 60 s window, what must have ended after waiting well past a 200 ms one.
 */
import { randomBytes } from "node:crypto";
import type { BudgetStore } from "../../runtime/state/budget-store";
import { SqliteBudgetStore } from "../../runtime/state/budget-sqlite";
import { RedisBudgetStore } from "../../runtime/state/budget-redis";
import { PgBudgetStore } from "../../runtime/state/budget-pg";
import { openPgState, type PgState } from "../../runtime/state/pg-state";
import { openDatabase } from "../../common/sqlite";
import { describeRedis, REDIS_DB, redisUrl } from "../support/redis";
import { describePostgres, testPostgres, type TestPostgres } from "../support/postgres";
import { tempDir } from "../support/tmp";
import { join } from "node:path";

const WIDE = 60_000;
const key = (name: string) => `${name}_${randomBytes(6).toString("hex")}`;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cases(open: () => BudgetStore) {
  it("many takes at once: exactly the limit go through; the rest name the full counter and its wait", async () => {
    const store = open();
    const session = { key: key("session"), limit: 7 };
    const page = { key: key("page"), limit: 100 };
    const takes = await Promise.all(Array.from({ length: 30 }, () => store.take([session, page], WIDE)));
    expect(takes.filter((t) => t.ok)).toHaveLength(7);
    for (const t of takes.filter((t) => !t.ok)) {
      expect(t).toMatchObject({ ok: false, over: 0 });
      const wait = (t as { retryAfterMs: number }).retryAfterMs;
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(WIDE);
    }
    // the 23 refused takes counted nothing on the page's counter: 93 more fit, the 94th does not
    const other = { key: key("session"), limit: 1000 };
    let passed = 0;
    for (let i = 0; i < 94; i++) if ((await store.take([other, page], WIDE)).ok) passed++;
    expect(passed).toBe(93);
    expect(await store.take([other, page], WIDE)).toMatchObject({ ok: false, over: 1 });
  });

  it("a window that ended frees its counter", async () => {
    const store = open();
    const c = { key: key("short"), limit: 2 };
    expect((await store.take([c], 200)).ok).toBe(true);
    expect((await store.take([c], 200)).ok).toBe(true);
    expect((await store.take([c], 200)).ok).toBe(false);
    await wait(1_200);
    expect((await store.take([c], 200)).ok).toBe(true);
  });
}

describe("budget counters: SQLite", () => {
  const dir = tempDir("mnote-budget-");
  const db = openDatabase(join(dir, "state.db"));
  afterAll(() => db.close());
  cases(() => new SqliteBudgetStore(db));

  it("purges counters whose window ended (on the store's clock)", async () => {
    let t = 1_000_000;
    const store = new SqliteBudgetStore(db, () => t);
    const c = { key: key("old"), limit: 1 };
    await store.take([c], WIDE);
    expect(await store.take([c], WIDE)).toMatchObject({ ok: false, over: 0, retryAfterMs: WIDE });
    t += WIDE;
    expect(await store.purgeExpired()).toBeGreaterThanOrEqual(1);
    expect((await store.take([c], WIDE)).ok).toBe(true);
  });

  it("two stores on one file share the counters (two processes on one state file)", async () => {
    const other = openDatabase(join(dir, "state.db"));
    try {
      const a = new SqliteBudgetStore(db);
      const b = new SqliteBudgetStore(other);
      const c = { key: key("shared"), limit: 3 };
      const takes = [
        await a.take([c], WIDE),
        await b.take([c], WIDE),
        await a.take([c], WIDE),
        await b.take([c], WIDE),
      ];
      expect(takes.map((t) => t.ok)).toEqual([true, true, true, false]);
    } finally {
      other.close();
    }
  });
});

describeRedis("budget counters: Redis", () => {
  const stores: RedisBudgetStore[] = [];
  afterAll(async () => Promise.all(stores.map((s) => s.close())));
  cases(() => {
    const s = new RedisBudgetStore({ url: redisUrl(REDIS_DB.budgets) });
    stores.push(s);
    return s;
  });
});

describePostgres("budget counters: PostgreSQL", () => {
  let postgres: TestPostgres;
  let state: PgState;
  beforeAll(async () => {
    postgres = await testPostgres();
    state = await openPgState({ url: postgres.url, purgeEveryMs: 0 });
  }, 120_000);
  afterAll(async () => {
    await state?.close();
    await postgres?.close();
  });
  cases(() => new PgBudgetStore(state.pool));

  it("purges counters whose window ended", async () => {
    const store = new PgBudgetStore(state.pool);
    await store.take([{ key: key("gone"), limit: 5 }], 100);
    await wait(1_000);
    expect(await store.purgeExpired()).toBeGreaterThanOrEqual(1);
  });
});
