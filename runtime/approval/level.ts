/**
 * The effective approval level of one call: the contract's fact for the tool (x-mnote-tool
 * approval, in the generated registry), overridden by the host policy's workspace rule, overridden
 * by its session rule; and deny from any of the three wins over everything (docs/APPROVAL.md).
 * The decision itself is generated once (generated/frameworks/decision.ts) and made the same way by
 * every framework target, so what a framework asks a person about and what the runtime holds agree.
 */
import type * as T from "../../generated/types";
import type { ToolDescriptor } from "../../generated/registry";
import { decideApproval, ruleLevel, type AnyApprovalRule } from "../../generated/frameworks/decision";
import type { ApprovalPolicyIndex } from "./policy";

export { ruleLevel, type AnyApprovalRule };

/** The level of a call by this session with these args. */
export function effectiveLevel(
  tool: ToolDescriptor,
  sessionId: string,
  args: Readonly<Record<string, unknown>>,
  policy: ApprovalPolicyIndex,
): T.ApprovalLevel {
  return decideApproval(
    tool,
    { workspace: policy.tools.get(tool.name), session: policy.sessions.get(sessionId)?.get(tool.name) },
    args,
  );
}
