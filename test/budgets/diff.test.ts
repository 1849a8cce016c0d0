/**
 * How `mnote-tools diff` judges a budget (diff/compare/compare-budgets.ts): each count as a burst
 * (calls per window) and a rate (calls per second). The change table (test/diff/cases.ts) has the
 * whole-report cases; here the two directions one edit can take at once.
 */
import { budgetShift } from "../../diff/compare/compare-budgets";

const base = { windowSeconds: 60, perSession: 60, perActor: 120, perPage: 240 };

describe("budgetShift", () => {
  it("a shorter window with a smaller count is a smaller burst and a higher rate: both ways", () => {
    const shift = budgetShift(base, { windowSeconds: 10, perSession: 20, perActor: 120, perPage: 240 });
    expect(shift.lower).toEqual(["perSession 60/60s -> 20/10s"]);
    expect(shift.higher).toEqual([
      "perSession 60/60s -> 20/10s",
      "perActor 120/60s -> 120/10s",
      "perPage 240/60s -> 240/10s",
    ]);
  });

  it("the same rate in another window is still a burst change; no change is none", () => {
    expect(budgetShift(base, { ...base, windowSeconds: 120, perSession: 120 })).toEqual({
      lower: ["perActor 120/60s -> 120/120s", "perPage 240/60s -> 240/120s"],
      higher: ["perSession 60/60s -> 120/120s"],
    });
    expect(budgetShift(base, { ...base })).toEqual({ lower: [], higher: [] });
    expect(budgetShift(null, null)).toEqual({ lower: [], higher: [] });
  });
});
