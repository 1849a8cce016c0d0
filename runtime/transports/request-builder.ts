/**
 * Builds a request envelope the way an agent surface must: the model's arguments supply only the
 * fields the contract marks model-written (the tool's args, and dryRun); identity, page and scope
 * come from the session grant; correlation ids and the idempotency key from the host.
 */
import type { SessionGrant, ToolRequest } from "../../generated/types";
import { requestFields, type ToolDescriptor } from "../../generated/registry";

export interface HostIds {
  runId: string;
  toolCallId: string;
  idempotencyKey: string;
}

const MODEL_ENVELOPE_FIELDS = Object.entries(requestFields)
  .filter(([name, filledBy]) => filledBy === "model" && name !== "args")
  .map(([name]) => name);

export function buildRequest(
  tool: ToolDescriptor,
  modelArguments: Record<string, unknown>,
  grant: SessionGrant,
  ids: HostIds,
): ToolRequest {
  const args = { ...modelArguments };
  const fromModel: Record<string, unknown> = {};
  for (const field of MODEL_ENVELOPE_FIELDS) {
    if (field in args) {
      fromModel[field] = args[field];
      delete args[field];
    }
  }
  const request: ToolRequest = {
    toolName: tool.name,
    workspaceId: grant.workspaceId,
    documentId: grant.documentId,
    actorId: grant.actorId,
    sessionId: grant.sessionId,
    runId: ids.runId,
    toolCallId: ids.toolCallId,
    traceId: grant.traceId ?? `trace_${ids.runId}`,
    capabilityScope: grant.capabilityScope,
    args,
  };
  if (grant.locale) request.locale = grant.locale;
  if (tool.idempotency === "required") request.idempotencyKey = ids.idempotencyKey;
  if (tool.dryRun === "required") request.dryRun = fromModel.dryRun === true;
  return request;
}
