/**
 * `mnote-tools mcp --http`: the MCP server over Streamable HTTP, stateless, at POST /mcp, behind a
 * bearer token. The v2 SDK's createMcpHandler serves the 2026-07-28 revision per request (it checks
 * the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers against the body: -32020 on a
 * mismatch); a 2025-era request (isLegacyRequest, the SDK's own classification) is served the
 * established stateless way, a fresh server and transport per request with JSON responses, as
 * the SDK's migration guide shows for routing legacy traffic beside a strict modern handler. Both
 * build the server with one factory (mcp-server.ts); there is no session map.
 *
 * The body is read by the shared HTTP layer (common/http/server.ts), not by the SDK: it is held
 * to a byte limit and decoded as strict UTF-8, so invalid bytes are refused (JSON-RPC parse error,
 * HTTP 400, nothing dispatched) instead of being replaced by U+FFFD and committed. The parsed body
 * is then handed to the SDK's transport. Before JSON.parse, the text is pre-scanned for depth and
 * size (json-rpc-limits.ts): a shape whose parse alone would be the cost is a 413. Host and Origin are checked by the layer with the same
 * rule as the SDK's hostHeaderValidation middleware (port-agnostic hostname, 403), in front of the
 * handler, as the SDK asks (the handler itself validates neither, nor any token).
 *
 * The one place an answer is handed to the caller is sendResponse (below): delivery tracking hooks
 * there.
 */
import { approvalPageRoutes, type ApprovalPageOptions } from "./approval-page";
import type { Server } from "node:http";
import { ERR } from "../../generated/registry";
import type { ToolResponse } from "../../generated/types";
import type { GrantStore } from "../state/grant-store";
import {
  createHttpService,
  decodeUtf8,
  hasBearer,
  HttpError,
  readBody,
  requireBearer,
  watchDelivery,
  type Timeouts,
} from "../../common/http/server";
import type { Logger } from "../../common/http/logger";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import type { Dispatched } from "../dispatch/dispatcher";
import { confirmDeliveries, createMcpServer, mcpToolOf, type McpCaller } from "./mcp-server";
import { jsonRpcTooLarge } from "./json-rpc-limits";
import { rawRefusal } from "./mcp-guard";
import type { McpRequestStates } from "./mcp-request-state";
import type { McpOAuth } from "./mcp-oauth";
import type { ProviderName } from "../../generated/providers";

export interface McpHttpOptions {
  /** The approval page and its JSON API (approval-page.ts), served beside /mcp. */
  approvalPage?: ApprovalPageOptions;
  /** The dispatcher's dispatchTracked (or dispatch: then an answer counts as delivered when returned). */
  dispatch(request: unknown): Promise<Dispatched | ToolResponse>;
  grants: GrantStore;
  /** The session a request acts under unless it names another with X-Mnote-Session. */
  sessionId: string;
  /** The clock grant liveness is judged by (the runtime's own). */
  now?: () => number;
  /** Which provider variant of the tool schemas tools/list shows (default: portable). */
  provider?: ProviderName;
  /** OAuth (mcp-oauth.ts): bearer JWTs from an issuer, beside the static token. */
  oauth?: McpOAuth;
  /** The signed requestState of approval rounds (mcp-request-state.ts; default: a per-process key). */
  states?: McpRequestStates;
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

/** The caller of one request, handed to the factory through the SDK's pass-through authInfo. */
const CALLER = "mnote/caller";

/** The parsed body of a POST, held to the limits (strict UTF-8, pre-scan, JSON). */
async function readJsonRpc(req: IncomingMessage, maxBytes: number): Promise<{ text: string; body: unknown }> {
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
  try {
    return { text, body: JSON.parse(text) };
  } catch {
    throw new HttpError(
      400,
      "the body is not JSON",
      jsonRpcError(-32700, "Parse error: the body is not JSON", { code: ERR.invalidInput }),
    );
  }
}

/** The node request as a web Request for the SDK's handler (the body already read and checked). */
function webRequest(req: IncomingMessage, text: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/mcp"}`, {
    method: "POST",
    headers,
    body: text,
  });
}

/** Hands the SDK's answer to the caller: the one place a response leaves this transport. */
async function sendResponse(res: ServerResponse, response: Response, caller?: McpCaller): Promise<void> {
  // the delivery rule: a write's answer is delivered when this response finished before the client
  // hung up (watchDelivery), never merely because the kernel committed it (docs/RELIABILITY.md)
  const watched = watchDelivery(res);
  if (caller) watched(() => confirmDeliveries(caller));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/** The MCP Streamable HTTP server (not yet listening). */
export function createMcpHttpServer(options: McpHttpOptions): Server {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const build = (caller: McpCaller) =>
    createMcpServer(
      {
        dispatch: (request) => options.dispatch(request),
        grants: options.grants,
        sessionId: options.sessionId,
        states: options.states,
        now: options.now,
        provider: options.provider,
      },
      caller,
    );
  const modern = createMcpHandler(({ authInfo }) => build(authInfo?.extra?.[CALLER] as McpCaller), {
    legacy: "reject",
    maxRequestBodySize: maxBytes,
    onerror: (e) => options.log.debug({ err: e.message }, "mcp request refused"),
  });
  const serving: Serving = { options, maxBytes, build, modern };
  return createHttpService({
    log: options.log,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    timeouts: options.timeouts,
    errorBody: (status, message) => jsonRpcError(codeFor(status), status >= 500 ? "internal error" : message),
    routes: [
      { method: "POST", path: "/mcp", handle: ({ req, res }) => postMcp(serving, req, res) },
      // RFC 9728: where clients find the authorization server (named in every 401 challenge)
      ...(options.oauth
        ? [
            {
              method: "GET",
              path: options.oauth.metadataPath,
              handle: ({ res }: { res: ServerResponse }) => {
                res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
                res.end(JSON.stringify(options.oauth!.metadata));
              },
            },
          ]
        : []),
      ...(options.approvalPage ? approvalPageRoutes(options.approvalPage) : []),
      // stateless: no SSE stream to open (GET) and no session to end (DELETE)
      ...["GET", "DELETE"].map((method) => ({
        method,
        path: "/mcp",
        handle: ({ req }: { req: IncomingMessage }) => {
          requireBearer(req, [options.token]);
          throw new HttpError(405, "Method not allowed: this server is stateless (POST only)", undefined, {
            allow: "POST",
          });
        },
      })),
    ],
  });
}

/** What the routes of one MCP HTTP server share. */
interface Serving {
  options: McpHttpOptions;
  maxBytes: number;
  /** A server for one caller. */
  build: (caller: McpCaller) => ReturnType<typeof createMcpServer>;
  /** The 2026-07-28 handler. */
  modern: ReturnType<typeof createMcpHandler>;
}

/** POST /mcp: the caller authenticated and named, then the request handed to the SDK of its revision. */
async function postMcp(s: Serving, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options } = s;
  // the static token (local use), else an OAuth bearer token when OAuth is configured
  const local = hasBearer(req, options.token);
  if (!local && !options.oauth) requireBearer(req, [options.token]);
  const { text, body } = await readJsonRpc(req, s.maxBytes);
  let subject: string | undefined;
  if (!local && options.oauth) {
    const auth = await options.oauth.gate(webRequest(req, text));
    if (auth instanceof Response) return sendResponse(res, auth);
    const refused = options.oauth.scopeRefusal(body, auth);
    if (refused) return sendResponse(res, refused);
    subject = typeof auth.extra?.subject === "string" ? auth.extra.subject : auth.clientId;
  }
  const header = req.headers["x-mnote-session"];
  const caller: McpCaller = {
    // X-Mnote-Session is the static token's (its holder vouches); an OAuth caller acts under --session
    sessionId: local && typeof header === "string" && header ? header : options.sessionId,
    refusals: new Map(),
    undelivered: new Map(),
    ...(subject !== undefined ? { subject } : {}),
  };
  // what the SDK's parse would hide is noted first (mcp-guard.ts)
  const refused = rawRefusal(body, mcpToolOf);
  if (refused) caller.refusals.set(refused.id, refused);
  // the token is checked above and never handed on (nor logged): authInfo carries the caller only
  const authInfo: AuthInfo = {
    token: "",
    clientId: "mnote-static-token",
    scopes: [],
    extra: { [CALLER]: caller },
  };
  const request = webRequest(req, text);
  if (await isLegacyRequest(request, body)) return legacy(s, request, body, authInfo, res);
  await sendResponse(res, await s.modern.fetch(request, { authInfo, parsedBody: body }), caller);
}

/** A 2025-era request: a fresh server and transport, JSON answers, nothing kept (stateless). */
async function legacy(
  s: Serving,
  request: Request,
  body: unknown,
  authInfo: AuthInfo,
  res: ServerResponse,
): Promise<void> {
  const server = s.build(authInfo.extra![CALLER] as McpCaller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    await sendResponse(
      res,
      await transport.handleRequest(request, { parsedBody: body, authInfo }),
      authInfo.extra![CALLER] as McpCaller,
    );
  } finally {
    await server.close();
  }
}
