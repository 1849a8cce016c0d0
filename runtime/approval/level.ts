/**
 * The effective approval level of one call: the contract's fact for the tool (x-mnote-tool
 * approval, in the generated registry), overridden by the host policy's workspace rule, overridden
 * by its session rule; and deny from any of the three wins over everything (docs/APPROVAL.md).
 */
import type * as T from "../../generated/types";
import type { ApprovalFact, ToolDescriptor } from "../../generated/registry";
import type { ApprovalPolicyIndex } from "./policy";

/** A rule, either as the contract writes it or as the policy does. */
export type AnyApprovalRule = T.ApprovalRule | ApprovalFact;

/**
 * The level a rule gives for these args: the first condition whose fields all equal the args'
 * (a field the call leaves out counts as its schema default; a condition value null matches a
 * field with no value, left out or null), else the rule's default.
 */
export function ruleLevel(
  rule: AnyApprovalRule,
  args: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
): T.ApprovalLevel {
  if (typeof rule === "string") return rule;
  for (const condition of rule.when ?? []) {
    const matches = Object.keys(condition.args).every((field) => {
      const value = Object.prototype.hasOwnProperty.call(args, field) ? args[field] : defaults[field];
      // null: the call carries no value (left out without a default, or null, read as absent)
      if (condition.args[field] === null) return value === undefined || value === null;
      return value === condition.args[field];
    });
    if (matches) return condition.approval;
  }
  return rule.default;
}

/** The level of a call by this session with these args. */
export function effectiveLevel(
  tool: ToolDescriptor,
  sessionId: string,
  args: Readonly<Record<string, unknown>>,
  policy: ApprovalPolicyIndex,
): T.ApprovalLevel {
  const layers: T.ApprovalLevel[] = [ruleLevel(tool.approval, args, tool.argDefaults)];
  const workspace = policy.tools.get(tool.name);
  if (workspace !== undefined) layers.push(ruleLevel(workspace, args, tool.argDefaults));
  const session = policy.sessions.get(sessionId)?.get(tool.name);
  if (session !== undefined) layers.push(ruleLevel(session, args, tool.argDefaults));
  // deny anywhere is deny; otherwise the most specific layer that speaks
  return layers.includes("deny") ? "deny" : layers[layers.length - 1]!;
}
