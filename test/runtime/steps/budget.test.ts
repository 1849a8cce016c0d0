/**
 * The budget step alone (runtime/dispatch/steps/budget.ts), over a recording store: one take per
 * call with three counters (session, person, page) keyed apart and limited by the contract or the
 * policy; the store's answer becomes rate_limited with the reason of the full counter and the wait
 * in whole seconds, rounded up and kept within the contract's 1 to 86400.
 */
import { ERR, toolByName } from "../../../generated/registry";
import { chargeBudget, countersOf } from "../../../runtime/dispatch/steps/budget";
import type { BudgetCounter, BudgetTake } from "../../../runtime/state/budget-store";
import { MemoryBudgetStore } from "../../../runtime/state/budget-memory";
import { saveCall, stepDeps, thrown } from "./fixture";

const budget = toolByName("mnote.page.save")!.budget!;

function recording(answer: BudgetTake) {
  const takes: Array<{ counters: readonly BudgetCounter[]; windowMs: number }> = [];
  return {
    takes,
    store: {
      take: async (counters: readonly BudgetCounter[], windowMs: number) => (
        takes.push({ counters, windowMs }),
        answer
      ),
    },
  };
}

describe("budget step", () => {
  it("one take per call: session, person and page counters, apart, at the contract's counts and window", async () => {
    const r = recording({ ok: true });
    const t = stepDeps({ budgets: r.store });
    try {
      await chargeBudget(t.deps, saveCall());
      expect(r.takes).toHaveLength(1);
      const [take] = r.takes;
      expect(take!.windowMs).toBe(budget.windowSeconds * 1000);
      expect(take!.counters.map((c) => c.limit)).toEqual([budget.perSession, budget.perActor, budget.perPage]);
      expect(new Set(take!.counters.map((c) => c.key)).size).toBe(3);
      for (const c of take!.counters) expect(c.key).toMatch(/^[0-9a-f]{64}$/);
      // another session of the same person on the same page: a new session counter, the same other two
      const other = countersOf(t.deps, saveCall(undefined, { sessionId: "s_other" }))!;
      expect(other.map((c, i) => c.key === take!.counters[i]!.key)).toEqual([false, true, true]);
    } finally {
      t.close();
    }
  });

  it("a full counter is rate_limited with its reason and the wait rounded up to whole seconds", async () => {
    for (const [over, reason] of [
      [0, "session"],
      [1, "actor"],
      [2, "page"],
    ] as const) {
      const t = stepDeps({ budgets: recording({ ok: false, over, retryAfterMs: 1_001 }).store });
      try {
        const e = await thrown(() => chargeBudget(t.deps, saveCall()));
        expect([e.code, e.detail]).toEqual([ERR.rateLimited, { reason, retryAfterSeconds: 2 }]);
      } finally {
        t.close();
      }
    }
    const t = stepDeps({ budgets: recording({ ok: false, over: 0, retryAfterMs: 10 ** 12 }).store });
    try {
      expect((await thrown(() => chargeBudget(t.deps, saveCall()))).detail).toMatchObject({
        retryAfterSeconds: 86_400,
      });
    } finally {
      t.close();
    }
  });

  it("no store, or a tool without a budget: nothing counted", async () => {
    const t = stepDeps();
    try {
      await expect(chargeBudget(t.deps, saveCall())).resolves.toBeUndefined();
      const noBudget = { ...saveCall(), tool: { ...saveCall().tool, budget: null } };
      expect(countersOf(t.deps, noBudget)).toBeUndefined();
    } finally {
      t.close();
    }
  });

  it("a store that fails: the call is judged by this process's own counters, which hold the calls the store let through", async () => {
    let clock = 1_000_000;
    let down = false;
    const shared = new MemoryBudgetStore(() => clock);
    const store = {
      take: (counters: readonly BudgetCounter[], windowMs: number) =>
        down ? Promise.reject(new Error("connect ECONNREFUSED")) : shared.take(counters, windowMs),
    };
    const t = stepDeps({ budgets: store, now: () => clock });
    const lowered = { perSession: 3, perActor: budget.perActor, perPage: budget.perPage };
    t.deps.approval.policy = { ...t.deps.approval.policy, budgets: new Map([["mnote.page.save", lowered]]) };
    try {
      await chargeBudget(t.deps, saveCall());
      await chargeBudget(t.deps, saveCall());
      down = true;
      // two counted while the store was up: one more, then refused, the store's failure reported each time
      await chargeBudget(t.deps, saveCall());
      const e = await thrown(() => chargeBudget(t.deps, saveCall()));
      expect([e.code, e.detail]).toEqual([
        ERR.rateLimited,
        { reason: "session", retryAfterSeconds: budget.windowSeconds },
      ]);
      expect(t.storeErrors).toHaveLength(2);
      expect(String(t.storeErrors[0])).toContain("this process's own counters");
      // another session is counted apart; a refused call counted nothing
      await chargeBudget(t.deps, saveCall(undefined, { sessionId: "s_other" }));
      // the window ends: the session may call again
      clock += budget.windowSeconds * 1000;
      await chargeBudget(t.deps, saveCall());
    } finally {
      t.close();
    }
  });
});

describe("this process's own budget counters", () => {
  it("take counts all or none, windows end on the clock, and at most maxKeys counters are kept", async () => {
    let clock = 0;
    const own = new MemoryBudgetStore(() => clock, 4);
    const two = [
      { key: "a", limit: 2 },
      { key: "b", limit: 1 },
    ];
    expect(await own.take(two, 1000)).toEqual({ ok: true });
    // b is full: nothing counted, a stays at 1
    expect(await own.take(two, 1000)).toEqual({ ok: false, over: 1, retryAfterMs: 1000 });
    expect(await own.take([{ key: "a", limit: 2 }], 1000)).toEqual({ ok: true });
    expect(await own.take([{ key: "a", limit: 2 }], 1000)).toMatchObject({ ok: false, over: 0 });
    // note counts without judging
    own.note([{ key: "c", limit: 1 }], 1000);
    expect(await own.take([{ key: "c", limit: 1 }], 1000)).toMatchObject({ ok: false });
    clock = 1000;
    expect(await own.take(two, 1000)).toEqual({ ok: true });
    for (const key of ["d", "e", "f", "g"]) own.note([{ key, limit: 1 }], 1000);
    expect(own.size).toBeLessThanOrEqual(4);
  });
});
