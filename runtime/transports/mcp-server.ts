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
 * A model's retry reuses the key. When a write without a client key ends without a definite
 * answer (outcome_unknown, kernel_unavailable, in_progress, unavailable: retryable, and the write
 * may have happened), the server remembers (session, tool, canonical args) -> key; the next call
 * with the same tool and arguments in that session carries the same key and replays instead of
 * writing again. A definite answer forgets it, so the same call made on purpose after a success
 * is a new write (a second AI note is a second note).
 *
 * An unknown tool name is a protocol error, not a tool result: JSON-RPC -32602 (Invalid params),
 * as the MCP specification's tools page says for 2025-06-18 and 2025-11-25 ("Error Handling":
 * unknown tools are protocol errors; its example answers code -32602).
 *
 * A W3C trace context in _meta (`traceparent`, `tracestate`) is continued by the call's span.
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
import { mcpServerInfo, mcpTools } from "../../generated/mcp/tools";
import { ERR, toolByName } from "../../generated/registry";
import { validateIdempotencyKey } from "../../generated/validators";
import type { ToolResponse } from "../../generated/types";
import { refusalResponse } from "../dispatch/dispatcher";
import type { GrantStore } from "../state/grant-store";
import { buildRequest } from "./request-builder";
import { isGrantLive } from "../../common/grant-liveness";
import { continueTrace, traceCarrierFromMeta } from "../telemetry/propagation";
import { canonicalJson } from "../../common/ids";
import { raiseCall } from "../../generated/raise";
import { DEFAULT_PROVIDER, providerTools, TOOLSET_DESCRIPTION, type ProviderName } from "../../generated/providers";

export interface McpServerOptions {
  dispatch(request: unknown): Promise<ToolResponse>;
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

/** Answers after which a write may or may not have happened, so a retry must carry the same key. */
const UNCERTAIN_CODES: ReadonlySet<string> = new Set([
  ERR.outcomeUnknown,
  ERR.kernelUnavailable,
  ERR.inProgress,
  ERR.unavailable,
]);
const UNCERTAIN_TTL_MS = 6 * 60 * 60 * 1000; // well inside the runtime's idempotency window (24 h)
const MAX_UNCERTAIN = 1024;

/**
 * Keys of writes whose outcome is uncertain, by (session, tool, canonical args), shared by every
 * server in the process (over HTTP a server may live for one request only).
 */
const uncertainKeys = new Map<string, { key: string; at: number }>();

function uncertainSlot(sessionId: string, toolName: string, args: unknown): string {
  return canonicalJson([sessionId, toolName, args]);
}

function rememberedKey(slot: string): string | undefined {
  const entry = uncertainKeys.get(slot);
  if (entry && entry.at > Date.now() - UNCERTAIN_TTL_MS) return entry.key;
  uncertainKeys.delete(slot);
  return undefined;
}

function settleKey(slot: string, key: string, response: ToolResponse): void {
  if (!response.ok && UNCERTAIN_CODES.has(response.error.code)) {
    uncertainKeys.delete(slot); // re-insert: the Map's order is then oldest first
    uncertainKeys.set(slot, { key, at: Date.now() });
    while (uncertainKeys.size > MAX_UNCERTAIN) uncertainKeys.delete(uncertainKeys.keys().next().value!);
  } else uncertainKeys.delete(slot);
}

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

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const definition = byName.get(request.params.name);
    if (!definition)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(request.params.name).slice(0, 200)}`);
    const tool = toolByName(definition.canonicalName)!;
    const grant = await options.grants.get(options.sessionId);
    if (!grant || !isGrantLive(grant, now()))
      return asResult({
        ...refusalResponse(ERR.notAuthenticated, grant?.locale, grant ? "session_expired" : "session_unknown"),
        toolName: tool.name,
      });
    const given = request.params._meta?.[IDEMPOTENCY_META_KEY];
    if (given !== undefined && given !== null && !validateIdempotencyKey(given)) {
      const refused = { ...refusalResponse(ERR.invalidInput, grant.locale), toolName: tool.name };
      refused.error.pointer = IDEMPOTENCY_META_POINTER;
      return asResult(refused);
    }
    // a model's call (nulls, every option filled) as canonical args; the envelope API itself stays strict
    const modelArguments = (raiseCall(tool.name, request.params.arguments ?? {}) ?? {}) as Record<string, unknown>;
    const tracked = typeof given !== "string" && tool.idempotency === "required" && modelArguments.dryRun !== true;
    const slot = uncertainSlot(grant.sessionId, tool.name, modelArguments);
    const key =
      typeof given === "string" ? given : ((tracked ? rememberedKey(slot) : undefined) ?? `mcp-${randomUUID()}`);
    const envelope = buildRequest(tool, modelArguments, grant, {
      runId,
      toolCallId: `mcp_${randomUUID().replace(/-/g, "")}`,
      idempotencyKey: key,
    });
    // _meta.traceparent (and tracestate), when the client sends one, is continued
    const response = await continueTrace(traceCarrierFromMeta(request.params._meta), () => options.dispatch(envelope));
    if (tracked) settleKey(slot, key, response);
    return asResult(response);
  });

  return server;
}

/** The envelope as structured content (it validates against the tool's outputSchema) and as text. */
function asResult(response: ToolResponse): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(response) }],
    structuredContent: response as unknown as Record<string, unknown>,
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
