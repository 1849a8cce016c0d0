/**
 * The budgets part of the host's policy file (`budgets` in contract/envelope/approval-policy.schema.json):
 * per tool, a lower count per session, per principal or per page than the contract's (x-mnote-tool
 * budget). Lower only: a count above the contract's ceiling, or a budget for a tool the contract
 * has none for, is a configuration error naming its place, so the host stops at start (exit 3)
 * instead of running with a budget nobody agreed to. Checked after the generated validator accepted
 * the whole file; the index is a Map, so no tool name can reach an object's prototype.
 */
import type * as T from "../../generated/types";
import type { BudgetFact, ToolDescriptor } from "../../generated/registry";

/** The three counts of a tool's budget, after the host's policy (never above the contract's). */
export type BudgetCounts = Pick<BudgetFact, "perSession" | "perActor" | "perPage">;

export const BUDGET_COUNTS = ["perSession", "perActor", "perPage"] as const;

/**
 * The policy's budgets, checked against the contract and indexed by tool name; `problem` receives
 * the message of the first count that cannot be used (the caller throws its own error type).
 */
export function budgetPolicyFrom(
  budgets: T.BudgetToolLimits | undefined,
  toolByName: (name: string) => ToolDescriptor | undefined,
  problem: (message: string) => Error,
): ReadonlyMap<string, BudgetCounts> {
  const out = new Map<string, BudgetCounts>();
  for (const name of Object.keys(budgets ?? {})) {
    const at = `/budgets/${name}`;
    const tool = toolByName(name);
    if (!tool) throw problem(`at ${at}: the contract has no tool ${name}`);
    const ceiling = tool.budget;
    if (!ceiling) throw problem(`at ${at}: the contract gives ${name} no budget to lower`);
    const lower = budgets![name]!;
    const counts = { perSession: ceiling.perSession, perActor: ceiling.perActor, perPage: ceiling.perPage };
    for (const count of BUDGET_COUNTS) {
      const value = lower[count];
      if (value === undefined) continue;
      if (value > ceiling[count])
        throw problem(
          `at ${at}/${count}: ${value} raises the contract's ceiling of ${ceiling[count]} calls per ${ceiling.windowSeconds} s; a policy may only lower a budget`,
        );
      counts[count] = value;
    }
    out.set(name, counts);
  }
  return out;
}
