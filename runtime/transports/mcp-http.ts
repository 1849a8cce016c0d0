/**
 * `mnote-tools mcp --http`: the MCP server over Streamable HTTP, stateless, at POST /mcp, behind a
 * bearer token. The v2 SDK's createMcpHandler serves the 2026-07-28 revision per request (it checks
 * the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers against the body: -32020 on a
 * mismatch); a 2025-era request (isLegacyRequest, the SDK's own classification) is served the
 * established stateless way, a fresh server and transport per request with JSON responses, as
 * the SDK's migration guide shows for routing legacy traffic beside a strict modern handler (no
 * request reaches such a client, so its approvals go to the approval page: mcp-approval-page.ts).
 * Both build the server with one factory (mcp-server.ts); there is no session map.
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
import { approvalPageOrigin } from "../../common/http/page-url";
import { approvalPageRoutes, type ApprovalPageOptions } from "./approval-page";
import type { Server } from "node:http";
import type { ToolResponse } from "../../generated/types";
import type { GrantStore } from "../state/grant-store";
import { HttpError } from "../../common/http/answer";
import { hasBearer, requireBearer } from "../../common/http/auth";
import { watchDelivery } from "../../common/http/delivery";
import { createHttpService, type Timeouts } from "../../common/http/server";
import type { Logger } from "../../common/http/logger";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import type { Dispatched } from "../dispatch/dispatcher";
import { isPlainObject } from "../../common/values";
import { confirmDeliveries, createMcpServer, mcpToolOf, type McpCaller } from "./mcp-server";
import { mcpApprovalPage } from "./mcp-approval-page";
import { codeFor, jsonRpcError, readJsonRpc, webRequest } from "./mcp-http-body";
import { rawRefusalsOf } from "./mcp-guard";
import type { McpRequestStates } from "./mcp-request-state";
import type { McpOAuth, OAuthCaller } from "./mcp-oauth";
import type { ProviderName } from "../../generated/providers";
import { NOTHING_TO_DELIVER } from "../dispatch/steps/uncertain";

export interface McpHttpOptions {
  /** The approval page and its JSON API (approval-page.ts), served beside /mcp. */
  approvalPage?: ApprovalPageOptions;
  /**
   * The origin a browser reaches the approval page at, for the URLs clients that cannot show a
   * form are sent to (mcp-approval-page.ts); default: the address this server listens on.
   */
  approvalPageUrl?: string;
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

/** The caller of one request, handed to the factory through the SDK's pass-through authInfo. */
const CALLER = "mnote/caller";

/** Hands the SDK's answer to the caller: the one place a response leaves this transport. */
async function sendResponse(res: ServerResponse, response: Response, caller?: McpCaller): Promise<void> {
  // the delivery rule: a write's answer is delivered when no hang-up of the client had been read
  // when it was written and it finished with the connection open (watchDelivery), never merely
  // because the kernel committed it (docs/RELIABILITY.md)
  const answer = watchDelivery(res);
  // asked once the body is read: a streamed body may finish the call while it is read
  const onDelivered = () => (caller && awaitsDelivery(caller) ? () => confirmDeliveries(caller) : undefined);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body || !/^text\/event-stream\b/i.test(headers["content-type"] ?? "")) {
    // a JSON answer (or none) goes out in one write, headers and body together
    const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (body) headers["content-length"] = String(body.length);
    return answer(() => {
      res.writeHead(response.status, headers);
      res.end(body);
    }, onDelivered());
  }
  // a stream is written as it comes; the rule is judged when it ends
  res.writeHead(response.status, headers);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  await answer(() => res.end(), onDelivered());
}

/** Whether a caller's answers release anything once delivered (a write's uncertain slot). */
const awaitsDelivery = (caller: McpCaller) =>
  [...(caller.undelivered?.values() ?? [])].some((d) => d !== NOTHING_TO_DELIVER);

/** The MCP Streamable HTTP server (not yet listening). */
export function createMcpHttpServer(options: McpHttpOptions): Server {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const served: { server?: Server } = {};
  // where a client that cannot show a form sends its person: this server's own page
  const checked = options.approvalPageUrl === undefined ? undefined : approvalPageOrigin(options.approvalPageUrl, true);
  if (checked && "problem" in checked)
    throw new Error(`approvalPageUrl ${options.approvalPageUrl}: ${checked.problem}`);
  const page =
    options.approvalPage &&
    mcpApprovalPage({
      ...options.approvalPage,
      base: () => options.approvalPageUrl ?? (served.server && listeningOrigin(served.server)),
    });
  const build = (caller: McpCaller) =>
    createMcpServer(
      {
        dispatch: (request) => options.dispatch(request),
        grants: options.grants,
        sessionId: options.sessionId,
        states: options.states,
        now: options.now,
        provider: options.provider,
        page,
      },
      caller,
    );
  const modern = createMcpHandler(({ authInfo }) => build(authInfo?.extra?.[CALLER] as McpCaller), {
    legacy: "reject",
    maxRequestBodySize: maxBytes,
    onerror: (e) => options.log.debug({ err: e.message }, "mcp request refused"),
  });
  const serving: Serving = { options, maxBytes, build, modern };
  const server = createHttpService({
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
      ...(options.approvalPage
        ? approvalPageRoutes({ secureCookie: options.approvalPageUrl?.startsWith("https:"), ...options.approvalPage })
        : []),
      // stateless: no SSE stream to open (GET) and no session to end (DELETE)
      ...["GET", "DELETE"].map((method) => ({
        method,
        path: "/mcp",
        handle: async ({ req, res }: { req: IncomingMessage; res: ServerResponse }) => {
          const who = await authenticate(serving, req);
          if (who instanceof Response) return sendResponse(res, who);
          throw new HttpError(405, "Method not allowed: this server is stateless (POST only)", undefined, {
            allow: "POST",
          });
        },
      })),
    ],
  });
  served.server = server;
  return server;
}

/** http://<address>:<port> of a listening server (a wildcard address as localhost), or undefined before it listens. */
function listeningOrigin(server: Server): string | undefined {
  const address = server.address();
  if (address === null || typeof address === "string") return undefined;
  const host = address.address === "0.0.0.0" || address.address === "::" ? "localhost" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
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

/**
 * Who is calling, from the headers alone (no body is read before this): the static token (local
 * use), else a verified OAuth bearer token when OAuth is configured, else the 401 to answer.
 */
async function authenticate(s: Serving, req: IncomingMessage): Promise<{ oauth?: OAuthCaller } | Response> {
  if (hasBearer(req, s.options.token)) return {};
  if (!s.options.oauth) requireBearer(req, [s.options.token]);
  const header = req.headers.authorization;
  const auth = await s.options.oauth!.authenticate(typeof header === "string" ? header : undefined);
  return auth instanceof Response ? auth : { oauth: auth };
}

/** Whether any tools/call of `body` carries a 2026-07-28 requestState or inputResponses. */
function carriesRequestState(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some(
    (m) => isPlainObject(m) && isPlainObject(m.params) && ("requestState" in m.params || "inputResponses" in m.params),
  );
}

/** POST /mcp: the caller authenticated, then the body read and gated, then handed to the SDK of its revision. */
async function postMcp(s: Serving, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options } = s;
  const who = await authenticate(s, req);
  if (who instanceof Response) return sendResponse(res, who);
  const { text, body } = await readJsonRpc(req, s.maxBytes);
  // the scope gate: every message of the body (a batch's elements too), before anything runs
  const refused = who.oauth && options.oauth!.scopeRefusal(body, who.oauth);
  if (refused) return sendResponse(res, refused);
  // what the SDK's parse would hide is noted first (mcp-guard.ts), in every message of a batch too
  const refusals = rawRefusalsOf(body, mcpToolOf);
  if (!refusals)
    throw new HttpError(400, "a refused call shares its id", jsonRpcError(-32600, "Invalid Request: duplicate id"));
  const header = req.headers["x-mnote-session"];
  const caller: McpCaller = {
    // X-Mnote-Session names the session; an OAuth caller may use only a grant issued to its principal (mcp-server.ts)
    sessionId: typeof header === "string" && header ? header : options.sessionId,
    refusals,
    undelivered: new Map(),
    ...(who.oauth ? { principal: who.oauth.principal } : {}),
  };
  // the token is checked above and never handed on (nor logged): authInfo carries the caller only
  const authInfo: AuthInfo = {
    token: "",
    clientId: "mnote-static-token",
    scopes: [],
    extra: { [CALLER]: caller },
  };
  const request = webRequest(req, text);
  if (await isLegacyRequest(request, body)) {
    // the 2025-era path has no approval rounds: a requestState there is refused, never honoured
    if (carriesRequestState(body))
      throw new HttpError(
        400,
        "requestState on a 2025-era request",
        jsonRpcError(-32602, "Invalid params: requestState and inputResponses belong to the 2026-07-28 revision"),
      );
    return legacy(s, request, body, authInfo, res);
  }
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
  // no request can reach this client: its approvals go to the page (mcp-approval-page.ts)
  const caller = authInfo.extra![CALLER] as McpCaller;
  caller.stateless = true;
  const server = s.build(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    await sendResponse(res, await transport.handleRequest(request, { parsedBody: body, authInfo }), caller);
  } finally {
    await server.close();
  }
}
