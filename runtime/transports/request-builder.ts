/**
 * Builds a request envelope the way an agent surface must: the model's arguments supply only the
 * fields the contract marks model-written (the tool's args, and dryRun); identity, page and scope
 * come from the session grant; correlation ids, the idempotency key and where it came from
 * (keyOrigin) from the host.
 *
 * dryRun is never coerced: absent or null is false (the envelope requires the field, and "no plan
 * asked for" is the call the model made), true and false are themselves, and any other value ("true",
 * 1, {}) is refused as invalid_input at /dryRun, so a "dry run" the model meant can never become a
 * write. The check is the generated raise step's own (raiseRefusal), which also refuses non-object
 * arguments and undeclared __proto__ / constructor / prototype members: callers raise the model's
 * call first (model-call.ts), which refuses all of this earlier; here it holds for any caller.
 */
import type { SessionGrant, ToolRequest } from "../../generated/types";

/** Where a request's idempotency key came from (the envelope's keyOrigin). */
export type KeyOrigin = NonNullable<ToolRequest["keyOrigin"]>;
import { ERR, requestFields, type ToolDescriptor } from "../../generated/registry";
import { envelopePointer, raiseRefusal, type RaiseRefusal } from "../../generated/raise";
import { ToolFailure } from "../dispatch/tool-failure";

export interface HostIds {
  runId: string;
  toolCallId: string;
  idempotencyKey: string;
  /** Where idempotencyKey came from (default "caller": the host's or client's own key, used exactly). */
  keyOrigin?: KeyOrigin;
}

const MODEL_ENVELOPE_FIELDS = Object.entries(requestFields)
  .filter(([name, filledBy]) => filledBy === "model" && name !== "args")
  .map(([name]) => name);

/** The invalid_input failure for what the raise step refuses, its pointer as the envelope names the place. */
export function raiseRefusalFailure(toolName: string, refusal: RaiseRefusal): ToolFailure {
  const pointer = envelopePointer(toolName, refusal.pointer);
  return new ToolFailure(ERR.invalidInput, {
    pointer,
    rule: { keyword: refusal.keyword, ...(refusal.limit !== undefined ? { limit: refusal.limit } : {}), pointer },
  });
}

/** Throws ToolFailure (invalid_input) for what raiseRefusal refuses, e.g. a dryRun that is not a boolean, null or absent. */
export function buildRequest(
  tool: ToolDescriptor,
  modelArguments: Record<string, unknown>,
  grant: SessionGrant,
  ids: HostIds,
): ToolRequest {
  const refusal = raiseRefusal(tool.name, modelArguments);
  if (refusal) throw raiseRefusalFailure(tool.name, refusal);
  // the envelope fields this tool's model-facing parameters hold (dryRun for a write); anything else is args
  const properties = (tool.parameters.properties ?? {}) as Record<string, unknown>;
  const envelopeFields = MODEL_ENVELOPE_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(properties, f));
  const args: Record<string, unknown> = {};
  const fromModel: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(modelArguments)) {
    // defined, not assigned: a member named __proto__ stays a member, for the validators to refuse
    Object.defineProperty(envelopeFields.includes(name) ? fromModel : args, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
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
  if (tool.idempotency === "required") {
    request.idempotencyKey = ids.idempotencyKey;
    if (ids.keyOrigin) request.keyOrigin = ids.keyOrigin;
  }
  // raiseRefusal let through only a boolean, null or nothing
  if (tool.dryRun === "required") request.dryRun = fromModel.dryRun === true;
  return request;
}
