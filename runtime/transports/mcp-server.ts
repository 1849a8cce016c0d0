/**
 * The tools over MCP (`mnote-tools mcp`), from the generated MCP definitions. Identity: the server
 * serves one session grant, named at start (--session); over Streamable HTTP a request may name
 * another with the X-Mnote-Session header (the bearer token vouches for the caller). The grant
 * supplies workspace, page, actor and scope; the model supplies only the tool's arguments.
 *
 * An MCP client has no tool-call id to give, so each call gets a fresh one and a fresh
 * idempotency key, unless the client passes its own key in the request's
 * _meta["mnote/idempotencyKey"] (then a retry with it replays instead of writing twice).
 * A W3C trace context in _meta (`traceparent`, `tracestate`) is continued by the call's span.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mcpServerInfo, mcpTools } from "../../generated/mcp/tools";
import { ERR, toolByName } from "../../generated/registry";
import { validateIdempotencyKey } from "../../generated/validators";
import type { ToolResponse } from "../../generated/types";
import { refusalResponse } from "../dispatch/dispatcher";
import type { GrantStore } from "../state/grant-store";
import { buildRequest } from "./request-builder";
import { isGrantLive } from "../../common/grant-liveness";
import { continueTrace, traceCarrierFromMeta } from "../telemetry/propagation";

export interface McpServerOptions {
  dispatch(request: unknown): Promise<ToolResponse>;
  grants: GrantStore;
  sessionId: string;
  /** The clock grant liveness is judged by (default Date.now), the runtime's own. */
  now?: () => number;
}

const byName = new Map(mcpTools.map((t) => [t.name, t]));

export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server({ name: mcpServerInfo.name, version: mcpServerInfo.version }, { capabilities: { tools: {} } });
  const now = options.now ?? Date.now;
  const runId = `mcp_${randomUUID().replace(/-/g, "")}`;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcpTools.map(({ canonicalName: _canonical, ...tool }) => ({ ...tool })) as never,
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const definition = byName.get(request.params.name);
    if (!definition) return asResult(refusalResponse(ERR.unknownTool));
    const tool = toolByName(definition.canonicalName)!;
    const grant = await options.grants.get(options.sessionId);
    if (!grant || !isGrantLive(grant, now()))
      return asResult({ ...refusalResponse(ERR.notAuthenticated, grant?.locale, grant ? "session_expired" : "session_unknown"), toolName: tool.name });
    const given = (request.params._meta as Record<string, unknown> | undefined)?.["mnote/idempotencyKey"];
    const envelope = buildRequest(tool, (request.params.arguments ?? {}) as Record<string, unknown>, grant, {
      runId,
      toolCallId: `mcp_${randomUUID().replace(/-/g, "")}`,
      idempotencyKey: validateIdempotencyKey(given) ? given : `mcp-${randomUUID()}`,
    });
    // _meta.traceparent (and tracestate), when the client sends one, is continued
    return asResult(await continueTrace(traceCarrierFromMeta(request.params._meta), () => options.dispatch(envelope)));
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
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const server = createMcpServer(options);
  const closed = new Promise<void>((resolve) => (server.onclose = () => resolve()));
  await server.connect(new StdioServerTransport());
  process.stdin.once("end", () => void server.close());
  await closed;
}
