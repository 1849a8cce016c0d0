/**
 * The one HTTP layer of the three servers (`serve`, `mcp --http`, `kernel serve`). Each server
 * brings only its routes; this module does the rest the same way for all three:
 *
 * - Host check (DNS rebinding): the Host header's hostname, port-agnostic, must be on an allow-list
 *   (default: the loopback names), else 403. Same rule as the MCP SDK's hostHeaderValidation.
 *   Read from the raw header lines: a request with more than one Host header, or one that is not
 *   `host[:port]`, is a 400 (RFC 9112 section 3.2 says so), whatever the allow-list; Node's
 *   req.headers would keep only the first and let a second one past. Allowed names and the Host
 *   are compared in one normal form: lower case, an IPv6 literal bracketed and canonical, so
 *   `--allowed-hosts ::1` matches `Host: [::1]:8787`.
 * - Origin check: a request that carries Origin (a browser) must come from an allowed origin
 *   (default: an http(s) origin whose hostname is an allowed host), else 403.
 * - Routing on the raw path; a pattern's groups are percent-decoded, and malformed encoding is a
 *   400, never a 500. A known path with another method is a 405 with Allow.
 * - Bodies: only `application/json` (415 otherwise, so a cross-origin `text/plain` form post
 *   cannot reach a handler), read up to a byte limit (413, the rest is not read), decoded as
 *   strict UTF-8 (invalid bytes are refused, never replaced by U+FFFD).
 * - Bearer tokens compared in constant time; every 401 carries `WWW-Authenticate: Bearer`.
 * - Timeouts: a request (headers and body) must arrive within requestTimeoutMs (default 30 s, not
 *   Node's 300 s), so a client that trickles its body cannot hold a connection.
 * - Every answer of 400 or more is one `http_error` log line; an unexpected throw is a 500 with the
 *   server's own error body and nothing of the exception on the wire.
 * - Listening, printing the address, and a graceful stop on SIGTERM/SIGINT.
 *
 * The parts live beside this file, one concern each: host.ts (Host and Origin checks, the
 * allow-lists), loopback.ts (the one loopback rule), answer.ts (HttpError, answering and the
 * http_error line), auth.ts (bearer tokens), body.ts (reading a body), delivery.ts (whether an
 * answer counts as delivered), listen.ts (listening, the announcement, the graceful stop). This file
 * puts them together around a server's routes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "./logger";
import { answerThrown, HttpError, logHttpError } from "./answer";
import { checkOrigin, hostAnswers, hostHeaders, normalizeHostName } from "./host";
import { LOOPBACK_HOSTS } from "./loopback";

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** The raw path (not decoded) and the query. */
  path: string;
  query: URLSearchParams;
  /** The route pattern's groups, percent-decoded. */
  params: string[];
}

export interface Route {
  method: string;
  /** An exact path, or a pattern matched against the raw path (groups become params). */
  path: string | RegExp;
  handle(ctx: RequestContext): Promise<void> | void;
}

export interface Timeouts {
  /** Longest time to receive a whole request, headers and body (default 30 s). */
  requestTimeoutMs: number;
  /** Longest time to receive the headers (default: 10 s, at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /**
   * How long an idle keep-alive connection stays open (default 65 s). Node's 5 s closes it under a
   * client that paused longer but still holds it in its pool (undici keeps one 4 s by default, up
   * to 10 min when the server says so; agents pause for a person's approval): its next call then
   * fails with a socket error (UND_ERR_SOCKET). Beyond the clients' pools, the server is never the
   * side that closes first.
   */
  keepAliveTimeoutMs: number;
}

export interface HttpServiceOptions {
  routes: readonly Route[];
  log: Logger;
  /** Hostnames (no port; an IPv6 literal with or without brackets) the Host header may name; ["*"] accepts any. */
  allowedHosts?: readonly string[];
  /** Exact origins (scheme://host[:port]) a browser request may come from; ["*"] accepts any. */
  allowedOrigins?: readonly string[];
  /** The body of an answer the layer makes itself, in the server's own shape (default {error}). */
  errorBody?: (status: number, message: string) => unknown;
  timeouts?: Partial<Timeouts>;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 65_000,
};

/** A Node HTTP server with the layer's checks around the given routes. */
export function createHttpService(options: HttpServiceOptions): Server {
  const errorBody = options.errorBody ?? ((_status: number, message: string) => ({ error: message }));
  // normalised once here, as every Host header is (hostnameOf): both sides compare in one form
  const allowedHosts = (options.allowedHosts ?? LOOPBACK_HOSTS).map(normalizeHostName);
  const requestTimeout = options.timeouts?.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestTimeoutMs;
  const headersTimeout = Math.min(
    options.timeouts?.headersTimeoutMs ?? DEFAULT_TIMEOUTS.headersTimeoutMs,
    requestTimeout,
  );
  const hostAnswer = hostAnswers(allowedHosts);
  const findRoute = routeTable(options.routes);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hosts = hostHeaders(req);
    if (hosts.length > 1)
      throw new HttpError(400, `a request carries one Host header, this one carries ${hosts.length}`);
    const answer = hostAnswer(hosts[0]);
    if (answer.problem) throw new HttpError(answer.status, answer.problem);
    const originProblem = checkOrigin(req.headers.origin, options.allowedOrigins, allowedHosts);
    if (originProblem) throw new HttpError(403, originProblem);
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    const path = q < 0 ? raw : raw.slice(0, q);
    const { route, params } = findRoute(req.method, path);
    let query: URLSearchParams | undefined;
    await route.handle({
      req,
      res,
      path,
      // parsed when a handler asks for it
      get query() {
        return (query ??= new URLSearchParams(q < 0 ? "" : raw.slice(q + 1)));
      },
      params,
    });
  }

  const server = createServer(
    {
      requestTimeout,
      headersTimeout,
      keepAliveTimeout: options.timeouts?.keepAliveTimeoutMs ?? DEFAULT_TIMEOUTS.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestTimeout / 4))),
    },
    (req, res) => {
      res.once("finish", () => logHttpError(options.log, req, res));
      handle(req, res).catch((e: unknown) => answerThrown(res, e, errorBody));
    },
  );
  // A client that half-closes after its request (FIN, then it reads) still gets its answer, then
  // the connection closes: Node's own policy for a half-open HTTP connection, instead of its
  // default, which ends the socket at once and loses the answer. (The answer of a write then does
  // not count as delivered: the FIN came first; watchDelivery.)
  Object.assign(server, { httpAllowHalfOpen: true });
  return server;
}

/**
 * The route of a method and path, with its decoded parameters; 404 when no route has the path,
 * 405 (with Allow) when none of those has the method. Exact paths are looked up directly, pattern
 * routes tried in order: the same answer as trying all, in the order the routes were given.
 */
function routeTable(routes: readonly Route[]): (method: string | undefined, path: string) => RouteHit {
  const exact = new Map<string, Route[]>();
  for (const route of routes)
    if (typeof route.path === "string") exact.set(route.path, [...(exact.get(route.path) ?? []), route]);
  const patterned = routes.filter((route) => typeof route.path !== "string");
  const order = new Map(routes.map((route, i) => [route, i]));
  return (method, path) => {
    const matching: Array<{ route: Route; match: string[] }> = [];
    for (const route of exact.get(path) ?? []) matching.push({ route, match: [] });
    for (const route of patterned) {
      const match = matchPath(route.path, path);
      if (match !== null) matching.push({ route, match });
    }
    if (matching.length === 0) throw new HttpError(404, `no route ${method} ${path}`);
    // the first route of the method wins
    if (matching.length > 1) matching.sort((a, b) => order.get(a.route)! - order.get(b.route)!);
    const hit = matching.find((m) => m.route.method === method);
    if (!hit)
      throw new HttpError(405, `${method} is not allowed on ${path}`, undefined, {
        allow: [...new Set(matching.map((m) => m.route.method))].join(", "),
      });
    return { route: hit.route, params: hit.match.length === 0 ? [] : hit.match.map(decodedParam) };
  };
}

interface RouteHit {
  route: Route;
  params: string[];
}

function decodedParam(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    throw new HttpError(400, "the path holds malformed percent-encoding");
  }
}

function matchPath(pattern: string | RegExp, path: string): string[] | null {
  if (typeof pattern === "string") return pattern === path ? [] : null;
  const m = pattern.exec(path);
  return m && m[0] === path ? m.slice(1).map((g) => g ?? "") : null;
}
