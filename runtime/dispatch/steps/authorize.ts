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

/** The design note's check points, answered by the kernel: signed in, member, the capability and what it requires. */
export async function authorize(deps: DispatchDeps, call: ToolCall): Promise<void> {
  const access = (await withTimeout(deps, deps.kernel.accessCheck({ context: call.context }))).result;
  if (!access.authenticated) refuse(ERR.notAuthenticated);
  if (!access.member) refuse(ERR.permissionDenied, "not_member");
  for (const needed of capabilityNeeds(call.tool.capability)) {
    if (!access.granted.includes(needed))
      throw new ToolFailure(ERR.permissionDenied, { reason: capabilities[needed].deniedReason });
  }
}
