/**
 * A model's tool call turned into a request envelope, the one way every agent surface does it (the
 * MCP server; the framework targets): validate, then raise, then build.
 *
 *   1. The raise step's own refusals (raiseRefusal): arguments that are not an object, a member
 *      named __proto__ / constructor / prototype that the contract does not declare there (at any
 *      depth), an envelope field the model writes (dryRun) holding anything but its type or null.
 *   2. The model's raw arguments against the tool's model-arguments schema (validateModelArguments:
 *      what any provider variant accepts, by shape, with null wherever a field is optional).
 *   3. The raise step (null means absent, an unwired option sent as "unchanged" is dropped), on a
 *      value that passed both; its objects are built with defineProperty.
 *   4. The envelope (request-builder.ts), which the dispatcher then validates in full like any
 *      program's request.
 *
 * A refusal in 1 or 2 is invalid_input naming the place as the envelope does (/args/..., or
 * /dryRun), with the failed rule; nothing is dispatched, so nothing is written.
 */
import type * as T from "../../generated/types";
import type { MessageLocale, ToolDescriptor } from "../../generated/registry";
import { envelopePointer, raiseCall, raiseRefusal } from "../../generated/raise";
import { buildRequest, raiseRefusalFailure, type HostIds } from "./request-builder";
import { invalidInput } from "../dispatch/problems";
import { ToolFailure } from "../dispatch/tool-failure";
import { failureResponse } from "../dispatch/dispatcher";

export type ModelCall = { ok: true; request: T.ToolRequest } | { ok: false; response: T.ToolFailure };

/** The request for a model's call, or the invalid_input failure to answer instead (never throws for bad input). */
export function requestFromModelCall(
  tool: ToolDescriptor,
  modelArguments: unknown,
  grant: T.SessionGrant,
  ids: HostIds,
): ModelCall {
  try {
    const refusal = raiseRefusal(tool.name, modelArguments);
    if (refusal) throw raiseRefusalFailure(tool.name, refusal);
    if (!tool.validateModelArguments(modelArguments)) {
      // the validator's places are inside the model's arguments: name them as the envelope does
      throw invalidInput(
        tool.validateModelArguments.errors?.map((issue) => ({
          ...issue,
          instancePath: envelopePointer(tool.name, issue.instancePath),
        })),
      );
    }
    const raised = raiseCall(tool.name, modelArguments) as Record<string, unknown>;
    return { ok: true, request: buildRequest(tool, raised, grant, ids) };
  } catch (e) {
    if (!(e instanceof ToolFailure)) throw e;
    const locale: MessageLocale = grant.locale ?? "zh-CN";
    const echo = {
      toolName: tool.name,
      toolCallId: ids.toolCallId,
      traceId: grant.traceId ?? `trace_${ids.runId}`,
      workspaceId: grant.workspaceId,
      documentId: grant.documentId,
      sessionId: grant.sessionId,
    };
    return { ok: false, response: failureResponse(e, echo, tool, locale) };
  }
}
