/**
 * The budget step alone (runtime/dispatch/steps/budget.ts), over a recording store: one take per
 * call with three counters (session, person, page) keyed apart and limited by the contract or the
 * policy; the store's answer becomes rate_limited with the reason of the full counter and the wait
 * in whole seconds, rounded up and kept within the contract's 1 to 86400.
 */
import { ERR, toolByName } from "../../../generated/registry";
import { chargeBudget, countersOf } from "../../../runtime/dispatch/steps/budget";
import type { BudgetCounter, BudgetTake } from "../../../runtime/state/budget-store";
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
});
