/**
 * A tool's budget (x-mnote-tool budget: calls per window, per session, principal and page),
 * compared like approval levels: each count is judged as a rate (calls per second) and as a burst
 * (calls in one window). Fewer of either, or a budget where there was none, is
 * `tool-budget-lowered`: breaking for callers, who are refused (mnote_tool_rate_limited) where they
 * were served. More of either, or no budget where there was one, is `tool-budget-raised`: a
 * loosening, for the policy's audience (a host's policy file that lowered a budget stays valid;
 * one that matched the old ceiling now lowers it). A change that shortens the window and the
 * counts alike can be both.
 */
import type { BudgetModel, ToolModel } from "../../codegen/model";
import { joinPointer } from "../../common/json-pointer";
import type { RuleId } from "../rules";
import type { Change } from "../types";
import { change, type Place } from "./change";

const COUNTS = ["perSession", "perActor", "perPage"] as const;

/** Which ways the budget moved: lower (fewer calls somewhere), higher (more calls somewhere). */
export function budgetShift(
  before: BudgetModel | null,
  after: BudgetModel | null,
): { lower: string[]; higher: string[] } {
  if (before === null && after === null) return { lower: [], higher: [] };
  if (before === null) return { lower: ["a budget where there was none"], higher: [] };
  if (after === null) return { lower: [], higher: ["no budget where there was one"] };
  const lower: string[] = [];
  const higher: string[] = [];
  for (const count of COUNTS) {
    const [b, a] = [before[count], after[count]];
    // rate: a / after.window vs b / before.window, compared without division
    const rate = a * before.windowSeconds - b * after.windowSeconds;
    const what = `${count} ${b}/${before.windowSeconds}s -> ${a}/${after.windowSeconds}s`;
    if (a < b || rate < 0) lower.push(what);
    if (a > b || rate > 0) higher.push(what);
  }
  return { lower, higher };
}

/** The budget's changes of one tool: at most one lowered and one raised. */
export function compareBudget(b: ToolModel, a: ToolModel, place: (pointer: string) => Place): Change[] {
  const shift = budgetShift(b.budget, a.budget);
  const pointer = joinPointer("/x-mnote-tool", "budget");
  const out: Change[] = [];
  const push = (rule: RuleId, parts: string[]) =>
    out.push(change(rule, a.name, pointer, place(pointer), `budget ${parts.join("; ")}`, b.budget, a.budget));
  if (shift.lower.length > 0) push("tool-budget-lowered", shift.lower);
  if (shift.higher.length > 0) push("tool-budget-raised", shift.higher);
  return out;
}
