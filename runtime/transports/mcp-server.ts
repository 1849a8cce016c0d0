/**
 * The tools over MCP (`mnote-tools mcp`), from the generated MCP definitions. Identity: the server
 * serves one session grant, named at start (--session); over Streamable HTTP a request may name
 * another with the X-Mnote-Session header (the bearer token vouches for the caller). The grant
 * supplies workspace, page, actor and scope; the model supplies only the tool's arguments.
 *
 * An MCP client has no tool-call id to give, so each call gets a fresh one and a fresh
 * idempotency key, unless the client passes its own key in the request's
 * _meta["mnote/idempotencyKey"] (then a retry with it replays instead of writing twice).
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
import { raiseCall } from "../../generated/raise";
import { DEFAULT_PROVIDER, providerTools, TOOLSET_DESCRIPTION, type ProviderName } from "../../generated/providers";

export interface McpServerOptions {
  dispatch(request: unknown): Promise<ToolResponse>;
  grants: GrantStore;
  sessionId: string;
  /** Which provider variant of the tool schemas tools/list shows (default: portable). */
  provider?: ProviderName;
}

const byName = new Map(mcpTools.map((t) => [t.name, t]));

export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server({ name: mcpServerInfo.name, version: mcpServerInfo.version }, { capabilities: { tools: {} }, instructions: TOOLSET_DESCRIPTION });
  const runId = `mcp_${randomUUID().replace(/-/g, "")}`;

  const schemas = new Map(providerTools[options.provider ?? DEFAULT_PROVIDER].map((t) => [t.canonicalName, t.parameters]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcpTools.map(({ canonicalName, ...tool }) => ({ ...tool, inputSchema: schemas.get(canonicalName) ?? tool.inputSchema })) as never,
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const definition = byName.get(request.params.name);
    if (!definition) return asResult(refusalResponse(ERR.unknownTool));
    const tool = toolByName(definition.canonicalName)!;
    const grant = await options.grants.get(options.sessionId);
    if (!grant || Date.parse(grant.expiresAt) <= Date.now())
      return asResult({ ...refusalResponse(ERR.notAuthenticated, grant?.locale, grant ? "session_expired" : "session_unknown"), toolName: tool.name });
    const given = (request.params._meta as Record<string, unknown> | undefined)?.["mnote/idempotencyKey"];
    // a model's call (nulls, every option filled) as canonical args; the envelope API itself stays strict
    const raised = raiseCall(tool.name, request.params.arguments ?? {});
    const envelope = buildRequest(tool, (raised ?? {}) as Record<string, unknown>, grant, {
      runId,
      toolCallId: `mcp_${randomUUID().replace(/-/g, "")}`,
      idempotencyKey: validateIdempotencyKey(given) ? given : `mcp-${randomUUID()}`,
    });
    return asResult(await options.dispatch(envelope));
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
