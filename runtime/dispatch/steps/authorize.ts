/**
 * The authorize step: the request's scope (already within the grant's) must hold the tool's
 * capability and everything it requires, and the kernel answers the design note's check points
 * (signed in, member, granted the capability and what it requires).
 */
import type * as T from "../../../generated/types";
import { capabilities, ERR, type MessageLocale, type ToolDescriptor } from "../../../generated/registry";
import { capabilityNeeds } from "../capability-needs";
import { refuse, ToolFailure } from "../tool-failure";
import type { DispatchDeps, ToolCall } from "./context";
import { withTimeout } from "./kernel";

/**
 * The call as the later steps see it, once its scope holds what the tool needs: a session granted
 * a write capability without the read it requires may not replace a page, nor learn its revision
 * and block count from a dry run.
 */
export function scopedCall(tool: ToolDescriptor, request: T.ToolRequest, locale: MessageLocale): ToolCall {
  for (const needed of capabilityNeeds(tool.capability)) {
    if (!request.capabilityScope.includes(needed)) refuse(ERR.permissionDenied, "scope");
  }
  const context: T.KernelContext = {
    workspaceId: request.workspaceId,
    documentId: request.documentId,
    actorId: request.actorId,
    traceId: request.traceId,
    sessionId: request.sessionId,
    runId: request.runId,
    toolCallId: request.toolCallId,
  };
  return { tool, request, context, command: tool.kernelCommand, locale };
}

/**
 * The design note's check points, answered by the kernel: signed in, member, the capability and what it requires.
 *
 * The kernel's own commands check the same points again (the reference kernel in the transaction
 * of each command), and this check still runs first, for every call (issue 46 measured it: 4 µs of
 * an in-process page.get's 18.5, docs/BENCHMARKS.md, round 4): a caller who lost access must get
 * the refusal, not a replay from the runtime's own idempotency store (contract/README.md,
 * "Idempotency"); a read is counted against its page's budget before the kernel reads
 * (steps/budget.ts), so without it a session whose grant outlived its actor's access to a page
 * could use up the page's budget for its members; and the contract does not require a remote
 * kernel to check inside each command.
 */
export async function authorize(deps: DispatchDeps, call: ToolCall): Promise<void> {
  const access = (await withTimeout(deps, deps.kernel.accessCheck({ context: call.context }))).result;
  if (!access.authenticated) refuse(ERR.notAuthenticated);
  if (!access.member) refuse(ERR.permissionDenied, "not_member");
  for (const needed of capabilityNeeds(call.tool.capability)) {
    if (!access.granted.includes(needed))
      throw new ToolFailure(ERR.permissionDenied, { reason: capabilities[needed].deniedReason });
  }
}
