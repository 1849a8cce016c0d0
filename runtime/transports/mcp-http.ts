/**
 * `mnote-tools mcp --http`: the MCP server over Streamable HTTP, stateless (a fresh MCP server and
 * transport per request), at POST /mcp, behind a bearer token.
 *
 * The body is read by the shared HTTP layer (common/http/server.ts), not by the SDK: it is held
 * to a byte limit and decoded as strict UTF-8, so invalid bytes are refused (JSON-RPC parse error,
 * HTTP 400, nothing dispatched) instead of being replaced by U+FFFD and committed. The parsed body
 * is then handed to the SDK's transport. Before JSON.parse, the text is pre-scanned for depth and
 * size (json-rpc-limits.ts): a shape whose parse alone would be the cost is a 413. Host and Origin are checked by the layer with the same
 * rule as the SDK's hostHeaderValidation middleware (port-agnostic hostname, 403); the SDK 1.x
 * transport's own allowedHosts/allowedOrigins options are deprecated in favour of such middleware.
 */
import type { Server } from "node:http";
import { ERR } from "../../generated/registry";
import type { ToolResponse } from "../../generated/types";
import type { Dispatched } from "../dispatch/dispatcher";
import type { GrantStore } from "../state/grant-store";
import {
  createHttpService,
  decodeUtf8,
  HttpError,
  readBody,
  requireBearer,
  watchDelivery,
  type Timeouts,
} from "../../common/http/server";
import type { Logger } from "../../common/http/logger";
import { createMcpServer } from "./mcp-server";
import { jsonRpcTooLarge } from "./json-rpc-limits";
import type { ProviderName } from "../../generated/providers";

export interface McpHttpOptions {
  /** The dispatcher's dispatchTracked (or dispatch: then an answer counts as delivered when returned). */
  dispatch(request: unknown): Promise<Dispatched | ToolResponse>;
  grants: GrantStore;
  /** The session a request acts under unless it names another with X-Mnote-Session. */
  sessionId: string;
  /** The clock grant liveness is judged by (the runtime's own). */
  now?: () => number;
  /** Which provider variant of the tool schemas tools/list shows (default: portable). */
  provider?: ProviderName;
  token: string;
  maxBytes?: number;
  log: Logger;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  timeouts?: Partial<Timeouts>;
}

/** A JSON-RPC error object as the MCP transport answers one (id null: the request was not read). */
export function jsonRpcError(code: number, message: string, data?: unknown): unknown {
  return { jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id: null };
}

/** JSON-RPC codes for the HTTP statuses the layer answers itself. */
function codeFor(status: number): number {
  if (status === 400) return -32700;
  if (status === 401) return -32001;
  if (status >= 500) return -32603;
  return -32000;
}

/** The MCP Streamable HTTP server (not yet listening). */
export function createMcpHttpServer(options: McpHttpOptions): Server {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  return createHttpService({
    log: options.log,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    timeouts: options.timeouts,
    errorBody: (status, message) => jsonRpcError(codeFor(status), status >= 500 ? "internal error" : message),
    routes: [
      {
        method: "POST",
        path: "/mcp",
        handle: async ({ req, res }) => {
          // the delivery rule: a tool's answer is delivered when this response finished, not before
          const onDelivered = watchDelivery(res);
          requireBearer(req, [options.token]);
          const text = decodeUtf8(await readBody(req, maxBytes));
          if (text === undefined)
            throw new HttpError(
              400,
              "the body is not valid UTF-8",
              jsonRpcError(-32700, "Parse error: the body is not valid UTF-8", { code: ERR.invalidInput }),
            );
          // refused before JSON.parse when parsing itself would be the cost (runtime/dispatch/prescan.ts)
          const tooLarge = jsonRpcTooLarge(text);
          if (tooLarge)
            throw new HttpError(
              413,
              tooLarge,
              jsonRpcError(-32600, `Request too large: ${tooLarge}`, { code: ERR.payloadTooLarge }),
            );
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            throw new HttpError(
              400,
              "the body is not JSON",
              jsonRpcError(-32700, "Parse error: the body is not JSON", { code: ERR.invalidInput }),
            );
          }
          const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
          const header = req.headers["x-mnote-session"];
          const server = createMcpServer({
            dispatch: (request) => options.dispatch(request),
            confirmDelivery: onDelivered,
            grants: options.grants,
            sessionId: typeof header === "string" && header ? header : options.sessionId,
            now: options.now,
            provider: options.provider,
          });
          const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: true,
          });
          res.on("close", () => {
            void transport.close();
            void server.close();
          });
          await server.connect(transport);
          await transport.handleRequest(req, res, body);
        },
      },
      // stateless: no SSE stream to open (GET) and no session to end (DELETE)
      ...["GET", "DELETE"].map((method) => ({
        method,
        path: "/mcp",
        handle: ({ req }: { req: import("node:http").IncomingMessage }) => {
          requireBearer(req, [options.token]);
          throw new HttpError(405, "Method not allowed: this server is stateless (POST only)", undefined, {
            allow: "POST",
          });
        },
      })),
    ],
  });
}
