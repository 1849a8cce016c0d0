/**
 * A tool call made through an agent framework (the generated ai-sdk, langchain and openai-agents
 * targets), answered in the runtime: in process (the targets' `{ dispatcher }` connection is
 * `frameworkCaller(runtime)`) or over `serve`'s HTTP (POST /v1/tools/model-call, tool-server.ts).
 * Either way it ends here, so a framework's call is turned into a request in one place, the same
 * way the MCP server does it:
 *
 *   - identity, page and scope come from the session's live grant in the runtime's grant store,
 *     never from the caller (the caller names only the session);
 *   - the framework's own tool call id becomes the idempotency key through toolCallKey, exactly
 *     (hashed, never cleaned up), with keyOrigin "tool_call": a framework retry with the same call
 *     id replays, and a model's retry of an uncertain write (a new call id) gets the first key from
 *     the dispatcher's uncertain-write memory;
 *   - the call itself is checked first by the contract's validator (envelope/framework-call.schema.json,
 *     validateFrameworkToolCall); then the arguments: validate, then raise, then the envelope
 *     (model-call.ts);
 *   - the caller's W3C trace context (traceparent / tracestate) is continued by the call's span.
 *
 * Every answer is an envelope, never an exception for bad input: the frameworks hand it to the model.
 *
 * Delivery (docs/RELIABILITY.md): in process, returning the answer is its delivery
 * (callModelTool); over HTTP the server confirms it only once the response reached the client
 * (callModelToolTracked, then delivery.delivered()), so a write whose client hung up stays
 * uncertain and the framework's retry replays it.
 */
import { randomUUID } from "node:crypto";
import type { ErrorCode, FrameworkToolCall, SessionGrant, ToolResponse } from "../../generated/types";
import { ERR, toolByName, toolByProviderName, type ToolDescriptor } from "../../generated/registry";
import { validateFrameworkToolCall } from "../../generated/validators";
import { refusalResponse, type Dispatched } from "../dispatch/dispatcher";
import type { GrantStore } from "../state/grants";
import { isGrantLive } from "../../common/grant-liveness";
import { problemPointer } from "../../common/validation-problem";
import { continueTrace, type TraceCarrier, type TraceFields } from "../../common/telemetry/propagation";
import { requestFromModelCall } from "./model-call";
import { displayToolCallId, toolCallKey } from "./host-ids";

export interface FrameworkCallerOptions {
  /** The dispatcher's dispatchTracked: the response and its delivery handle. */
  dispatch(request: unknown): Promise<Dispatched>;
  grants: GrantStore;
  /** The clock grant liveness is judged by (the runtime's). */
  now: () => number;
}

/** What answers a framework's tool call (the shape the generated targets' in-process connection takes). */
export interface FrameworkCaller {
  /** The call is checked here (it may come from an HTTP body): a malformed one is refused as invalid_input. */
  callModelTool(call: unknown, trace?: TraceCarrier | TraceFields): Promise<ToolResponse>;
  /** The same for a transport: it calls delivery.delivered() once its caller has the answer. */
  callModelToolTracked(call: unknown, trace?: TraceCarrier | TraceFields): Promise<Dispatched>;
}

/** An answer made before dispatch (a refusal): nothing to deliver. */
function untracked(response: ToolResponse): Dispatched {
  return { response, delivery: { delivered: () => Promise.resolve() } };
}

/** A refusal of the call itself (before any tool ran), pointing at the member of the call that is wrong. */
function refused(code: ErrorCode, pointer: string): ToolResponse {
  const response = refusalResponse(code);
  response.error.pointer = pointer;
  return response;
}

/**
 * The call, or the JSON pointer of the member that is not what a call needs, as the contract's
 * envelope (FrameworkToolCall) says. The generated validator reads own members only, so neither a
 * member inherited from a prototype nor one named __proto__ (an unknown member) passes for a field.
 */
function checkedCall(call: unknown): FrameworkToolCall | string {
  if (validateFrameworkToolCall(call)) return call;
  const issue = validateFrameworkToolCall.errors?.[0];
  return issue ? problemPointer(issue) : "";
}

/** The caller for a runtime's dispatcher and grants: every call checked, raised, keyed and dispatched. */
export function createFrameworkCaller(options: FrameworkCallerOptions): FrameworkCaller {
  const defaultRunId = `fw_${randomUUID().replace(/-/g, "")}`;

  async function liveGrant(tool: ToolDescriptor, sessionId: string): Promise<SessionGrant | ToolResponse> {
    const grant = await options.grants.get(sessionId).catch(() => undefined);
    if (grant && isGrantLive(grant, options.now())) return grant;
    return {
      ...refusalResponse(ERR.notAuthenticated, grant?.locale, grant ? "session_expired" : "session_unknown"),
      toolName: tool.name,
    };
  }

  async function callModelToolTracked(given: unknown, trace?: TraceCarrier | TraceFields): Promise<Dispatched> {
    const call = checkedCall(given);
    if (typeof call === "string") return untracked(refused(ERR.invalidInput, call));
    // the model calls a tool by its provider name; the canonical name is accepted too
    const tool = toolByProviderName(call.toolName) ?? toolByName(call.toolName);
    if (!tool) return untracked(refused(ERR.unknownTool, "/toolName"));
    const grant = await liveGrant(tool, call.sessionId);
    if ("ok" in grant) return untracked(grant);
    const built = requestFromModelCall(tool, call.arguments === undefined ? {} : call.arguments, grant, {
      runId: call.runId ?? defaultRunId,
      toolCallId: displayToolCallId(call.toolCallId),
      idempotencyKey: toolCallKey(call.sessionId, call.toolCallId),
      keyOrigin: "tool_call",
    });
    if (!built.ok) return untracked(built.response);
    const request = call.approval === undefined ? built.request : { ...built.request, approval: call.approval };
    return continueTrace(trace as TraceCarrier | undefined, () => options.dispatch(request));
  }

  return {
    callModelToolTracked,
    async callModelTool(given, trace) {
      // in process: the caller has the answer once it is returned
      const { response, delivery } = await callModelToolTracked(given, trace);
      await delivery.delivered();
      return response;
    },
  };
}

/** The in-process caller of a runtime (what `{ dispatcher }` in the targets' options takes). */
export function frameworkCaller(runtime: {
  dispatcher: { dispatchTracked(request: unknown): Promise<Dispatched> };
  grants: GrantStore;
  now: () => number;
}): FrameworkCaller {
  return createFrameworkCaller({
    dispatch: (request) => runtime.dispatcher.dispatchTracked(request),
    grants: runtime.grants,
    now: runtime.now,
  });
}
