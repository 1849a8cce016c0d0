/**
 * The tools over MCP (`mnote-tools mcp`), from the generated MCP definitions, on the v2 SDK: the
 * 2026-07-28 revision first (stateless: every request carries its version and capabilities), and
 * 2025-11-25 clients through the SDK's legacy path. One factory builds the server for one HTTP
 * request (createMcpHandler, mcp-http.ts) or one stdio connection (serveStdio, below).
 *
 * Identity: the server serves one session grant, named at start (--session); over Streamable HTTP
 * a request may name another with the X-Mnote-Session header. The static token's holder vouches for
 * the caller and may use any grant; an OAuth caller (its principal: issuer + sub) may use only a
 * grant issued to that principal, any other is answered exactly as an unknown session. The grant
 * supplies workspace, page, actor and scope; the model supplies only the tool's arguments.
 *
 * An MCP client has no tool-call id to give, so each call gets a fresh one (on the 2025-era
 * stateless HTTP path the same call gets the same one: mcp-approval-page.ts) and a fresh
 * idempotency key, unless the client passes its own key in the request's
 * _meta["mnote/idempotencyKey"] (then a retry with it replays instead of writing twice). A key
 * that is not a valid idempotency key is refused (invalid_input), never replaced by a random one.
 * A model's retry of a write whose answer was uncertain is keyOrigin "tool_call": the dispatcher,
 * which remembers uncertain writes in its state store, gives the retry the first key, so it
 * replays (contract/README.md, "Reconciling a lost answer"). Dropped 2026 streams are not
 * resumable; this is what makes a repeated write safe.
 *
 * Validate, then raise (model-call.ts): the model's raw arguments are checked by the raise step's
 * refusals and the tool's model-arguments schema, raised, and built into an envelope that the
 * dispatcher validates in full. What the SDK's own parse would hide (a top-level "__proto__"
 * member of the arguments) is noted before it (mcp-guard.ts) and refused here. What the model
 * reads is the response's model view (modelView: toolName is the provider name). An unknown tool
 * name is a protocol error: JSON-RPC -32602 (Invalid params). Approval is an input_required round
 * (mcp-approval.ts): a form, or for a client that cannot show one the approval page
 * (mcp-approval-page.ts). A W3C trace context in _meta (`traceparent`, `tracestate`) is continued
 * by the call's span.
 */
import { randomBytes, randomUUID } from "node:crypto";
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
  type Transport,
} from "@modelcontextprotocol/server";
import { mcpCacheHint, mcpServerInfo, mcpTools } from "../../generated/mcp/tools";
import { ERR, toolByName } from "../../generated/registry";
import { validateIdempotencyKey } from "../../generated/validators";
import type { SessionGrant, ToolResponse } from "../../generated/types";
import { refusalResponse, vouchGrant, type Delivery, type Dispatched } from "../dispatch/dispatcher";
import type { GrantStore, Principal } from "../state/grants";
import { requestFromModelCall } from "./model-call";
import type { RawRefusals } from "./mcp-guard";
import { challengeOf } from "./mcp-approval";
import { asResult, fail, liveGrant, refuseRawCall } from "./mcp-result";
import {
  askPerson,
  clientCapabilities,
  roundAnswer,
  statelessCallId,
  toPage,
  type Asker,
  type McpApprovalPage,
} from "./mcp-approval-page";
import { principalKey, vouchPrincipal } from "../approval/record";
import { mcpRequestStates, type ApprovalState, type McpRequestStates } from "./mcp-request-state";
import { ToolFailure } from "../dispatch/tool-failure";
import { continueTrace, traceCarrierFromMeta } from "../../common/telemetry/propagation";
import { DEFAULT_PROVIDER, providerTools, TOOLSET_DESCRIPTION, type ProviderName } from "../../generated/providers";

export interface McpServerOptions {
  /**
   * The dispatcher's dispatchTracked (a response and its delivery handle), or a plain response,
   * which is taken as delivered when returned (the in-process dispatch()).
   */
  dispatch(request: unknown): Promise<Dispatched | ToolResponse>;
  grants: GrantStore;
  sessionId: string;
  /**
   * The signed requestState of approval rounds (mcp-request-state.ts). Default: keyed by a random
   * per-process secret (every round of a flow must then reach this process).
   */
  states?: McpRequestStates;
  /** The clock grant liveness is judged by (default Date.now), the runtime's own. */
  now?: () => number;
  /** Which provider variant of the tool schemas tools/list shows (default: portable). */
  provider?: ProviderName;
  /** The approval page, for clients that cannot show a form (mcp-approval-page.ts); without it they are refused. */
  page?: McpApprovalPage;
}

/** Per serving unit: who is calling (the OAuth principal, if any) and the raw calls the guard refused. */
export interface McpCaller {
  sessionId: string;
  /** The OAuth caller's principal; absent for the static token and stdio (the operator vouches). */
  principal?: Principal;
  refusals: RawRefusals;
  /**
   * The delivery rule (docs/RELIABILITY.md): a write's answer counts as delivered only once the
   * response carrying it left through the transport. Its delivery waits here, by JSON-RPC request
   * id, until the transport confirms (confirmDeliveries: mcp-http.ts after the HTTP response
   * finished, deliverOnSend below after stdout took the line). Without the map (a test's in-memory
   * pair) an answer counts as delivered when the handler returns it.
   */
  undelivered?: Map<string | number, Delivery>;
  /** The 2025-era stateless HTTP path: no request reaches the client, approvals go to the page. */
  stateless?: boolean;
}

/** Confirms every delivery waiting in `caller` (its transport sent the responses). */
export function confirmDeliveries(caller: McpCaller): void {
  for (const delivery of caller.undelivered?.values() ?? []) void delivery.delivered();
  caller.undelivered?.clear();
}

const byName = new Map(mcpTools.map((t) => [t.name, t]));

/** The contract tool an MCP tool name lists, if any. */
export const mcpToolOf = (name: string) => (byName.has(name) ? toolByName(byName.get(name)!.canonicalName) : undefined);

/** Where an MCP client puts its own idempotency key, and the JSON pointer (within params) that names it. */
export const IDEMPOTENCY_META_KEY = "mnote/idempotencyKey";
const IDEMPOTENCY_META_POINTER = "/_meta/mnote~1idempotencyKey";

const runId = `mcp_${randomUUID().replace(/-/g, "")}`;
const listed = new Map<ProviderName, unknown[]>();

/** tools/list in the generated (sorted) order, with the provider variant's input schemas. */
function toolsFor(provider: ProviderName): unknown[] {
  let tools = listed.get(provider);
  if (!tools) {
    const schemas = new Map(providerTools[provider].map((t) => [t.canonicalName, t.parameters]));
    tools = mcpTools.map(({ canonicalName, ...tool }) => ({
      ...tool,
      inputSchema: schemas.get(canonicalName) ?? tool.inputSchema,
    }));
    listed.set(provider, tools);
  }
  return tools;
}

let processStates: McpRequestStates | undefined;

/**
 * The server for one serving unit (one HTTP request, one stdio connection, or a test's in-memory
 * pair). Raw calls the guard refused are looked up in `caller.refusals` (mcp-guard.ts); a server
 * connected without the guard simply has none.
 */
export function createMcpServer(
  options: McpServerOptions,
  caller: McpCaller = { sessionId: options.sessionId, refusals: new Map() },
): Server {
  const states = options.states ?? (processStates ??= mcpRequestStates(randomBytes(32)));
  const server = new Server(
    { name: mcpServerInfo.name, version: mcpServerInfo.version },
    {
      capabilities: { tools: {} },
      instructions: TOOLSET_DESCRIPTION,
      cacheHints: { "tools/list": mcpCacheHint, "server/discover": mcpCacheHint },
      requestState: { verify: (value, ctx) => states.codec.verify(value, ctx) },
    },
  );
  const provider = options.provider ?? DEFAULT_PROVIDER;
  const unit: Unit = {
    options,
    caller,
    states,
    now: options.now ?? Date.now,
    // the session, and over OAuth the issuer and subject: unambiguous (JSON), never client_id
    principal: principalKey(caller.sessionId, caller.principal),
    page: options.page,
    vouched: caller.principal === undefined,
    // the request's declared capabilities (2026-07-28), else the connection's (2025-11-25 initialize)
    capabilities: (ctx) => clientCapabilities(ctx, server.getClientCapabilities()),
  };

  server.setRequestHandler("tools/list", async () => ({ tools: toolsFor(provider) as never }));
  server.setRequestHandler("tools/call", (request, ctx) => callTool(unit, request as never, ctx));
  return server;
}

/** What the handlers of one serving unit share (Asker.principal: the session and, over OAuth, the issuer and subject). */
interface Unit extends Asker {
  options: McpServerOptions;
  caller: McpCaller;
  capabilities: (ctx: ServerContext) => ReturnType<typeof clientCapabilities>;
}

/** The dispatch, its delivery parked until the response to request `id` is sent. */
async function dispatchFor(u: Unit, id: string | number, envelope: object, grant: SessionGrant): Promise<ToolResponse> {
  vouchGrant(envelope, grant, u.options.grants); // read for this call already: not read twice
  vouchPrincipal(envelope, u.principal); // the approval record is this principal's (runtime/approval/record.ts)
  const answer = await u.options.dispatch(envelope);
  if (!("delivery" in answer)) return answer;
  if (u.caller.undelivered) u.caller.undelivered.set(id, answer.delivery);
  else void answer.delivery.delivered();
  return answer.response;
}

async function callTool(
  u: Unit,
  request: { params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } },
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const tool = mcpToolOf(request.params.name);
  if (!tool)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${JSON.stringify(request.params.name).slice(0, 200)}`,
    );
  const grant = await liveGrant(u.options.grants, u.caller, u.now(), tool);
  if ("ok" in grant) return asResult(grant);
  const raw = u.caller.refusals.get(ctx.mcpReq.id);
  if (raw) {
    u.caller.refusals.delete(ctx.mcpReq.id);
    return refuseRawCall(tool, grant, raw.refusal);
  }
  const meta = request.params._meta;
  const given = meta?.[IDEMPOTENCY_META_KEY];
  if (given !== undefined && given !== null && !validateIdempotencyKey(given)) {
    const refused = { ...refusalResponse(ERR.invalidInput, grant.locale), toolName: tool.name };
    refused.error.pointer = IDEMPOTENCY_META_POINTER;
    return asResult(refused);
  }
  const args = request.params.arguments ?? {};
  // validate, then raise, then the envelope (model-call.ts); the dispatcher validates it in full
  const built = requestFromModelCall(tool, args, grant, {
    runId,
    // stateless 2025-era: the same call is the same tool call, so its retry finds its approval record
    toolCallId:
      u.caller.stateless && u.page ? statelessCallId(u.principal, tool, args) : `mcp_${randomUUID().replace(/-/g, "")}`,
    idempotencyKey: typeof given === "string" ? given : `mcp-${randomUUID()}`,
    keyOrigin: typeof given === "string" ? "caller" : "tool_call",
  });
  if (!built.ok) return asResult(built.response);
  const envelope = built.request;
  const state = ctx.mcpReq.requestState<ApprovalState>();
  // _meta.traceparent (and tracestate), when the client sends one, is continued
  return continueTrace(traceCarrierFromMeta(meta), async () => {
    const send = (extra: object = {}) => dispatchFor(u, ctx.mcpReq.id, { ...envelope, ...extra }, grant);
    if (state !== undefined && typeof state === "object") {
      const answer = await roundAnswer(u, tool, state, ctx, { args, now: u.now() });
      if (answer instanceof ToolFailure) return fail(answer, grant, tool, envelope);
      if ("round" in answer) return answer.round;
      // a yes writes, once; anything else reaches the runtime as declined (logged, token used up, nothing written)
      if ("token" in answer) return asResult(await send({ approval: answer }));
    }
    const response = await send();
    const challenge = challengeOf(response);
    if (!challenge) return asResult(response);
    const paged = u.caller.stateless ? await toPage(u, response, challenge) : undefined;
    if (paged && "result" in paged) return paged.result;
    // approved on the page: written once, under the key the record names (the client's own, if given)
    if (paged)
      return asResult(await send({ ...paged.write, ...(typeof given === "string" ? { idempotencyKey: given } : {}) }));
    return askPerson(u, tool, challenge, { args, capabilities: u.capabilities(ctx) });
  });
}

/** Serves one session's tools on stdin/stdout until stdin ends (an MCP client started this process). */
export async function serveMcpStdio(options: McpServerOptions): Promise<void> {
  // the stdio transport with the request limits (byte limit, strict UTF-8, pre-scan), guarded
  const { LimitedStdioServerTransport } = await import("./mcp-stdio");
  const { guardRawToolCalls } = await import("./mcp-guard");
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const caller: McpCaller = { sessionId: options.sessionId, refusals: new Map(), undelivered: new Map() };
  const transport = new LimitedStdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclosed = resolve;
  });
  const handle = serveStdio(() => createMcpServer(options, caller), {
    transport: deliverOnSend(guardRawToolCalls(transport, mcpToolOf, caller.refusals), caller.undelivered!),
  });
  process.stdin.once("end", () => void handle.close());
  await closed;
}

/**
 * The stdio transport, with each parked delivery confirmed once the response to its request was
 * written (send resolves on stdout's write callback; a failed write rejects and the write stays
 * uncertain, so the client's retry replays it).
 */
function deliverOnSend(transport: Transport, undelivered: Map<string | number, Delivery>): Transport {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const id = "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
    const delivery = id === undefined || id === null ? undefined : undelivered.get(id);
    if (delivery) undelivered.delete(id!);
    await send(message, options);
    if (delivery) void delivery.delivered();
  };
  return transport;
}
