/**
 * The tools over MCP (`mnote-tools mcp`), from the generated MCP definitions. Identity: the server
 * serves one session grant, named at start (--session); over Streamable HTTP a request may name
 * another with the X-Mnote-Session header (the bearer token vouches for the caller). The grant
 * supplies workspace, page, actor and scope; the model supplies only the tool's arguments.
 *
 * An MCP client has no tool-call id to give, so each call gets a fresh one and a fresh
 * idempotency key, unless the client passes its own key in the request's
 * _meta["mnote/idempotencyKey"] (then a retry with it replays instead of writing twice). A key
 * that is not a valid idempotency key is refused (invalid_input), never replaced by a random one:
 * a replaced key would make the client's retry write a second time.
 *
 * A model's retry of a write whose answer was uncertain is a new call with a new key: the request
 * says so (keyOrigin "tool_call"), and the runtime's dispatcher, which remembers uncertain writes in
 * its state store, gives the retry the first key, so it replays (contract/README.md, "Reconciling a
 * lost answer"). Nothing is remembered in this process: a restarted server (or another instance)
 * behaves the same. A client's own key is keyOrigin "caller", used exactly.
 *
 * Validate, then raise (model-call.ts): the model's raw arguments are checked by the raise step's
 * refusals and the tool's model-arguments schema, raised, and built into an envelope that the
 * dispatcher validates in full. What the SDK's own parse would hide (a top-level "__proto__"
 * member of the arguments) is refused before it (mcp-guard.ts).
 *
 * What the model reads (the text and structuredContent of a tool result) is the response's model
 * view: toolName is the tool's provider name, the name the model calls it by (modelView; the
 * outputSchema says the same). The dispatcher's logs and the kernel's audit keep the canonical name.
 *
 * An unknown tool name is a protocol error, not a tool result: JSON-RPC -32602 (Invalid params),
 * as the MCP specification's tools page says for 2025-06-18 and 2025-11-25 ("Error Handling":
 * unknown tools are protocol errors; its example answers code -32602).
 *
 * A W3C trace context in _meta (`traceparent`, `tracestate`) is continued by the call's span.
 *
 * Delivery (docs/RELIABILITY.md): a write's answer counts as delivered only once the JSON-RPC
 * response carrying it left through the transport: over stdio when send() resolved (the write's
 * callback came back without error); over HTTP when the HTTP response finished before the client
 * hung up (options.confirmDelivery, from mcp-http.ts). One call site: deliverOnSend below.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { mcpServerInfo, mcpTools } from "../../generated/mcp/tools";
import { ERR, modelView, toolByName, type ToolDescriptor } from "../../generated/registry";
import { validateApprovalGrant, validateIdempotencyKey } from "../../generated/validators";
import type { SessionGrant, ToolResponse } from "../../generated/types";
import type { RaiseRefusal } from "../../generated/raise";
import { failureResponse, refusalResponse, type Delivery, type Dispatched } from "../dispatch/dispatcher";
import type { GrantStore } from "../state/grant-store";
import { raiseRefusalFailure } from "./request-builder";
import { requestFromModelCall } from "./model-call";
import { guardRawToolCalls } from "./mcp-guard";
import { APPROVAL_META_KEY, APPROVAL_META_POINTER, challengeOf, elicitApproval } from "./mcp-approval";
import { ToolFailure } from "../dispatch/tool-failure";
import { isGrantLive } from "../../common/grant-liveness";
import { continueTrace, traceCarrierFromMeta } from "../../common/telemetry/propagation";
import { DEFAULT_PROVIDER, providerTools, TOOLSET_DESCRIPTION, type ProviderName } from "../../generated/providers";

export interface McpServerOptions {
  /**
   * The dispatcher's dispatchTracked (a response and its delivery handle); a plain response is
   * taken as already delivered (the in-process dispatch()).
   */
  dispatch(request: unknown): Promise<Dispatched | ToolResponse>;
  /**
   * When a response that left through the transport's send() reached the client: by default at
   * once (stdio's send resolves on the write's callback); MCP over HTTP passes the HTTP response's
   * clean finish (watchDelivery).
   */
  confirmDelivery?: (delivered: () => void) => void;
  grants: GrantStore;
  sessionId: string;
  /** The clock grant liveness is judged by (default Date.now), the runtime's own. */
  now?: () => number;
  /** Which provider variant of the tool schemas tools/list shows (default: portable). */
  provider?: ProviderName;
}

const byName = new Map(mcpTools.map((t) => [t.name, t]));

/** Where an MCP client puts its own idempotency key, and the JSON pointer (within params) that names it. */
export const IDEMPOTENCY_META_KEY = "mnote/idempotencyKey";
const IDEMPOTENCY_META_POINTER = "/_meta/mnote~1idempotencyKey";

export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: mcpServerInfo.name, version: mcpServerInfo.version },
    { capabilities: { tools: {} }, instructions: TOOLSET_DESCRIPTION },
  );
  const now = options.now ?? Date.now;
  const runId = `mcp_${randomUUID().replace(/-/g, "")}`;

  const schemas = new Map(
    providerTools[options.provider ?? DEFAULT_PROVIDER].map((t) => [t.canonicalName, t.parameters]),
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcpTools.map(({ canonicalName, ...tool }) => ({
      ...tool,
      inputSchema: schemas.get(canonicalName) ?? tool.inputSchema,
    })) as never,
  }));

  /** The session's live grant, or the refusal to answer instead. */
  async function liveGrant(tool: ToolDescriptor): Promise<SessionGrant | ToolResponse> {
    const grant = await options.grants.get(options.sessionId).catch(() => undefined);
    if (grant && isGrantLive(grant, now())) return grant;
    return {
      ...refusalResponse(ERR.notAuthenticated, grant?.locale, grant ? "session_expired" : "session_unknown"),
      toolName: tool.name,
    };
  }

  /** A raw call the raise step refuses (mcp-guard.ts): the invalid_input the handler would answer. Never rejects. */
  async function refuseRawCall(tool: ToolDescriptor, refusal: RaiseRefusal): Promise<CallToolResult> {
    const grant = await liveGrant(tool);
    if ("ok" in grant) return asResult(grant);
    const echo = { toolName: tool.name, workspaceId: grant.workspaceId, documentId: grant.documentId };
    return asResult(failureResponse(raiseRefusalFailure(tool.name, refusal), echo, tool, grant.locale ?? "zh-CN"));
  }

  /** Deliveries waiting for their JSON-RPC response to be sent, by request id. */
  const undelivered = new Map<string | number, Delivery>();
  /** The dispatch, with the delivery parked until the response for `requestId` is sent. */
  async function dispatchFor(
    requestId: string | number,
    signal: AbortSignal,
    envelope: unknown,
  ): Promise<ToolResponse> {
    const answer = await options.dispatch(envelope);
    if (!("delivery" in answer)) return answer;
    // a request the client cancelled gets no response (the SDK sends none): nothing will be delivered
    if (signal.aborted) return answer.response;
    undelivered.set(requestId, answer.delivery);
    signal.addEventListener("abort", () => undelivered.delete(requestId), { once: true });
    return answer.response;
  }

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const definition = byName.get(request.params.name);
    if (!definition)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(request.params.name).slice(0, 200)}`);
    const tool = toolByName(definition.canonicalName)!;
    const grant = await liveGrant(tool);
    if ("ok" in grant) return asResult(grant);
    const given = request.params._meta?.[IDEMPOTENCY_META_KEY];
    if (given !== undefined && given !== null && !validateIdempotencyKey(given)) {
      const refused = { ...refusalResponse(ERR.invalidInput, grant.locale), toolName: tool.name };
      refused.error.pointer = IDEMPOTENCY_META_POINTER;
      return asResult(refused);
    }
    const approval = request.params._meta?.[APPROVAL_META_KEY];
    if (approval !== undefined && approval !== null && !validateApprovalGrant(approval)) {
      const refused = { ...refusalResponse(ERR.invalidInput, grant.locale), toolName: tool.name };
      refused.error.pointer = APPROVAL_META_POINTER;
      return asResult(refused);
    }
    // validate, then raise, then the envelope (model-call.ts); the dispatcher validates it in full
    const built = requestFromModelCall(tool, request.params.arguments ?? {}, grant, {
      runId,
      toolCallId: `mcp_${randomUUID().replace(/-/g, "")}`,
      idempotencyKey: typeof given === "string" ? given : `mcp-${randomUUID()}`,
      keyOrigin: typeof given === "string" ? "caller" : "tool_call",
    });
    if (!built.ok) return asResult(built.response);
    const envelope = approval ? { ...built.request, approval } : built.request;
    // _meta.traceparent (and tracestate), when the client sends one, is continued
    return continueTrace(traceCarrierFromMeta(request.params._meta), async () => {
      const response = await dispatchFor(extra.requestId, extra.signal, envelope);
      const challenge = challengeOf(response);
      if (!challenge) return asResult(response);
      // approval_required: ask the person through the client, where it can (mcp-approval.ts)
      const answer = await elicitApproval(server, tool, challenge);
      if (answer === "unsupported") return asResult(response);
      if (answer === "accept")
        return asResult(
          await dispatchFor(extra.requestId, extra.signal, { ...envelope, approval: { token: challenge.token } }),
        );
      const declined = new ToolFailure(ERR.approvalDenied, {
        reason: "declined",
        decision: { decision: "denied", level: "ask" },
      });
      return asResult(failureResponse(declined, envelope, tool, grant.locale ?? "zh-CN"));
    });
  });

  // Every transport this server connects to is guarded: what the SDK's parse would drop is refused first.
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) =>
    connect(
      deliverOnSend(
        guardRawToolCalls(
          transport,
          (name) => (byName.has(name) ? toolByName(byName.get(name)!.canonicalName) : undefined),
          refuseRawCall,
        ),
        undelivered,
        options.confirmDelivery ?? ((delivered) => delivered()),
      ),
    );

  return server;
}

/** The transport, with each parked delivery confirmed once the response to its request was sent. */
function deliverOnSend(
  transport: Transport,
  undelivered: Map<string | number, Delivery>,
  confirm: (delivered: () => void) => void,
): Transport {
  const send = transport.send.bind(transport);
  transport.send = async (message, sendOptions) => {
    const id = "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
    const delivery = id === undefined || id === null ? undefined : undelivered.get(id);
    if (delivery) undelivered.delete(id!);
    await send(message, sendOptions); // a failed send: never delivered, the write stays uncertain
    if (delivery) confirm(() => void delivery.delivered());
  };
  return transport;
}

/** The model's view of the envelope, as structured content (it validates against the tool's outputSchema) and as text. */
function asResult(response: ToolResponse): CallToolResult {
  const view = modelView(response);
  return {
    content: [{ type: "text", text: JSON.stringify(view) }],
    structuredContent: view,
    isError: !response.ok,
  };
}

/** Serves one session's tools on stdin/stdout until stdin ends (an MCP client started this process). */
export async function serveMcpStdio(options: McpServerOptions): Promise<void> {
  // the SDK's stdio transport with the request limits (byte limit, strict UTF-8, pre-scan)
  const { LimitedStdioServerTransport } = await import("./mcp-stdio");
  const server = createMcpServer(options);
  const closed = new Promise<void>((resolve) => (server.onclose = () => resolve()));
  await server.connect(new LimitedStdioServerTransport());
  process.stdin.once("end", () => void server.close());
  await closed;
}
