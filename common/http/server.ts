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
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { logEvent, type Logger } from "./logger";

/** The Host names a server on this machine answers to by default. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** An answer decided by a check: thrown from a handler or a helper, sent by the layer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The body to send; default: the server's errorBody for this status and message. */
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

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

type HostAnswer = { status: 400 | 403; problem: string | undefined };

/**
 * The Host header's answer, by its text: a shape problem is a 400, a host outside the allow-list a
 * 403. Cached: a client sends the same one on every request, and parsing it as a URL was a visible
 * share of a request's own cost (bench/, http).
 */
function hostAnswers(allowedHosts: readonly string[]): (host: string | undefined) => HostAnswer {
  const answers = new Map<string | undefined, HostAnswer>();
  return (host) => {
    let answer = answers.get(host);
    if (answer === undefined) {
      // an empty Host is what HTTP/1.1 sends for a target without authority: the allow-list decides
      const malformed = host && hostnameOf(host) === undefined;
      answer = malformed
        ? { status: 400, problem: `the Host header "${host}" is not host[:port]` }
        : { status: 403, problem: checkHost(host, allowedHosts) };
      if (answers.size >= 256) answers.clear();
      answers.set(host, answer);
    }
    return answer;
  };
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

/** The http_error line of an answer of 400 or more (warn for 4xx, error for 5xx). */
function logHttpError(log: Logger, req: IncomingMessage, res: ServerResponse): void {
  if (res.statusCode < 400 || loggedByHandler.has(res)) return;
  logEvent(log, res.statusCode >= 500 ? "error" : "warn", "http_error", {
    method: req.method ?? "",
    path: (req.url ?? "/").split("?")[0]!,
    status: res.statusCode,
    // an answer a library wrote (the MCP SDK's transport) noted no problem: its status's own words
    message: messages.get(res) ?? STATUS_CODES[res.statusCode] ?? `HTTP ${res.statusCode}`,
  });
}

/** What a handler threw, answered: an HttpError as itself, anything else a 500 that says nothing of it. */
function answerThrown(res: ServerResponse, e: unknown, errorBody: (status: number, message: string) => unknown): void {
  if (e instanceof HttpError) {
    noteProblem(res, e.message);
    if (res.headersSent) return void res.destroy();
    // a refused body is not read: close the connection rather than drain it
    const headers = e.status === 413 ? { connection: "close", ...e.headers } : e.headers;
    return sendJson(
      res,
      e.status,
      e.body ?? errorBody(e.status, e.message),
      e.status === 401 ? { "www-authenticate": "Bearer", ...headers } : headers,
    );
  }
  noteProblem(res, `internal error: ${(e as Error)?.message ?? String(e)}`);
  if (res.headersSent) return void res.destroy();
  sendJson(res, 500, errorBody(500, "internal error"));
}

const messages = new WeakMap<ServerResponse, string>();
const loggedByHandler = new WeakSet<ServerResponse>();

/** Tells the layer that the handler's own line already logs this answer (a budget's 429): no http_error line. */
export function noteLogged(res: ServerResponse): void {
  loggedByHandler.add(res);
}

/** Tells the layer why a handler answered >= 400 itself (for the http_error line). */
export function noteProblem(res: ServerResponse, message: string): void {
  messages.set(res, message);
}

function matchPath(pattern: string | RegExp, path: string): string[] | null {
  if (typeof pattern === "string") return pattern === path ? [] : null;
  const m = pattern.exec(path);
  return m && m[0] === path ? m.slice(1).map((g) => g ?? "") : null;
}

/** Every Host header of a request as it arrived, in order (req.headers keeps only the first). */
export function hostHeaders(req: IncomingMessage): string[] {
  const hosts: string[] = [];
  const raw = req.rawHeaders;
  // the length first: most names are not four letters, and lower-casing each made a string per header
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") hosts.push(raw[i + 1]!);
  return hosts;
}

/** A host name or IPv6 literal (bracketed), then an optional port: the only shapes a Host header or an allowed host takes. */
const HOST_SHAPE = /^(\[[0-9a-f:.]+\]|[^\s:/?#@[\]\\]+)(:\d*)?$/i;

/**
 * The hostname of a Host header value in its normal form (lower case, an IPv6 literal bracketed
 * and canonical: "[0:0::1]:80" -> "[::1]"), or undefined when the value is not host[:port] (a
 * user part, a path, two ports are refused rather than read leniently).
 */
export function hostnameOf(host: string): string | undefined {
  if (!HOST_SHAPE.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * An allowed host in the form Host headers are compared in: "::1", "[::1]" and "[0:0::1]" all give
 * "[::1]"; names are lower-cased; "*" stays. A port, a path or anything that is not a host is an
 * error: the check is port-agnostic, and an entry that can never match should not pass silently.
 */
export function normalizeHostName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "*") return "*";
  // an IPv6 literal has two colons or more; host:port has one
  const bracketed = (trimmed.match(/:/g)?.length ?? 0) >= 2 && !trimmed.startsWith("[") ? `[${trimmed}]` : trimmed;
  const hostname = bracketed.includes(":") && !bracketed.startsWith("[") ? undefined : hostnameOf(bracketed);
  if (hostname === undefined || (bracketed.startsWith("[") && !bracketed.endsWith("]")))
    throw new Error(
      `allowed host "${name}" is not a host name or address (no port, path or scheme; see --allowed-hosts)`,
    );
  return hostname;
}

/** Why a Host header is refused, or undefined when its hostname is allowed (both in normal form). */
export function checkHost(host: string | undefined, allowed: readonly string[]): string | undefined {
  if (allowed.includes("*")) return undefined;
  if (!host) return "a Host header is required";
  const hostname = hostnameOf(host);
  if (hostname === undefined) return `the Host header "${host}" is not a host`;
  return allowed.includes(hostname)
    ? undefined
    : `Host "${hostname}" is not allowed (DNS rebinding protection; see --allowed-hosts)`;
}

/** Why an Origin header is refused, or undefined (no Origin: not a browser, nothing to check). */
export function checkOrigin(
  origin: string | undefined,
  allowedOrigins: readonly string[] | undefined,
  allowedHosts: readonly string[],
): string | undefined {
  if (origin === undefined) return undefined;
  if (allowedOrigins) {
    return allowedOrigins.includes("*") || allowedOrigins.includes(origin)
      ? undefined
      : `Origin "${origin}" is not allowed (see --allowed-origins)`;
  }
  try {
    const url = new URL(origin);
    if (
      (url.protocol === "http:" || url.protocol === "https:") &&
      (allowedHosts.includes("*") || allowedHosts.includes(url.hostname))
    )
      return undefined;
  } catch {
    // "null" (a sandboxed page, a file) and anything else that is not a URL: refused below
  }
  return `Origin "${origin}" is not allowed (see --allowed-origins)`;
}

/** Constant-time comparison of the request's bearer token with any of the accepted ones. */
export function hasBearer(req: IncomingMessage, ...accepted: Array<string | undefined>): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  return accepted.some((token) => {
    if (!token) return false;
    const expected = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/** Throws a 401 (with WWW-Authenticate) unless the request carries one of the accepted tokens. */
export function requireBearer(
  req: IncomingMessage,
  accepted: Array<string | undefined>,
  message = "a bearer token is required",
  body?: unknown,
): void {
  if (!hasBearer(req, ...accepted)) throw new HttpError(401, message, body);
}

/** The body, up to maxBytes: 415 unless it is declared application/json, 413 past the limit (the rest is not read). */
export function readBody(req: IncomingMessage, maxBytes: number, tooLarge?: unknown): Promise<Buffer> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") return Promise.reject(new HttpError(415, "the body must be application/json"));
  const refuse = () => new HttpError(413, `the body is larger than ${maxBytes} bytes`, tooLarge);
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > maxBytes) return reject(refuse());
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        req.pause();
        return reject(refuse());
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      done = true;
      resolve(Buffer.concat(chunks));
    });
    req.on("error", reject);
    // a connection that dies mid-body (a timeout, a client gone) ends the wait
    req.on("close", () => {
      if (!done) reject(new HttpError(400, "the request body did not arrive"));
    });
  });
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes as text, or undefined when they are not well-formed UTF-8 (never a U+FFFD in their place). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The body parsed as JSON: 400 when it is not UTF-8 or not JSON (see readBody for 413 and 415). */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const text = decodeUtf8(await readBody(req, maxBytes));
  if (text === undefined) throw new HttpError(400, "the body is not valid UTF-8");
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "the body is not JSON");
  }
}

/** Answers JSON with the given status. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Sends an answer, and says whether it counts as delivered: see watchDelivery. `write` sends the
 * whole answer; `onDelivered`, when given, runs once the answer counts as delivered (never when it
 * does not).
 */
export type DeliveringWrite = (write: () => void, onDelivered?: () => void) => Promise<void>;

/**
 * Watches one response from the start of its request, for the delivery rule (docs/RELIABILITY.md,
 * "What the server can know"). An answer counts as delivered only when
 *
 * 1. no hang-up of the client had been read when the answer was written: before it writes an
 *    answer that has something to deliver, the server lets the event loop poll its sockets once
 *    (ioTurn), so a FIN or a reset that arrived while the call ran (the client closed at once;
 *    the embedded kernel answers in a millisecond, all of it without touching the event loop) is
 *    read first; then the connection must be open in both directions: not destroyed, no error,
 *    and no end of the request's stream (a FIN: the client closed, or at least said it sends
 *    nothing more);
 * 2. the whole answer was handed to the operating system's socket buffer ('finish') while the
 *    connection was still open: no 'close' of the response before 'finish', no error.
 *
 * What happens after that is not seen: TCP tells a server neither that the client's host received
 * the bytes nor that its program read them, so a client that resets after the answer reached its
 * buffer (read 12 bytes of it, or none) is counted as delivered. Call it at the start of the
 * handler: a hang-up during a long write happens before the answer exists.
 */
export function watchDelivery(res: ServerResponse): DeliveringWrite {
  // captured now: the response lets go of its socket once it finished
  const socket = res.socket;
  let lost = false;
  res.once("close", () => {
    if (!res.writableFinished) lost = true;
  });
  res.once("error", () => (lost = true));
  const hungUp = () =>
    lost || res.destroyed || !socket || socket.destroyed || socket.errored !== null || socket.readableEnded;
  return async (write, onDelivered) => {
    if (!onDelivered) return write();
    await ioTurn();
    if (!hungUp())
      res.once("finish", () => {
        if (!lost && !res.destroyed && !socket!.errored) onDelivered();
      });
    write();
  };
}

/**
 * Resolves after the event loop polled for I/O at least once: whatever had already arrived on a
 * socket (data, a FIN, a reset) has been read by then. setImmediate runs after the poll of its
 * own turn, which may have passed already; the second one runs after the next turn's poll.
 */
function ioTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Stops accepting, lets requests in flight finish (up to graceMs), then resolves. */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The URL of a listening server, with an IPv6 host in brackets. */
export function urlOf(server: Server, host: string, path = ""): string {
  const { port } = server.address() as { port: number };
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
}

/**
 * Listens, runs beforeAnnounce (a start-up check: if it throws, the server closes and the error
 * goes on), prints {"listening": url, "pid"} on stdout (what scripts and tests wait for; a cluster
 * worker announces to its primary instead), serves until SIGTERM or SIGINT, stops gracefully, then
 * runs onStop. The port is taken before the check, so a port in use is the first thing reported.
 */
export async function serveUntilSignal(
  server: Server,
  options: {
    host: string;
    port: number;
    path?: string;
    log: Logger;
    beforeAnnounce?: () => Promise<void>;
    onStop?: () => Promise<void> | void;
    /** Instead of printing the listening line (a cluster worker tells its primary). */
    announce?: (url: string) => void;
  },
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  if (options.beforeAnnounce) {
    try {
      await options.beforeAnnounce();
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw e;
    }
  }
  const url = urlOf(server, options.host, options.path);
  // the signal handlers are in place before the announcement: a supervisor that sends SIGTERM as
  // soon as it reads the listening line must get the graceful stop, not Node's default (death)
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      // SIGINT from a terminal reaches a cluster worker as well as its primary's SIGTERM: stop once
      if (stopping) return;
      stopping = true;
      options.log.info({ event: "shutdown", signal }, "shutdown");
      await closeGracefully(server, 10_000);
      await options.onStop?.();
      resolve();
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
  });
  // logged first: whoever waits for the announcement finds the log line already written
  options.log.info({ event: "listening", url }, "listening");
  options.log.flush(); // the log buffers a turn's lines (logger.ts): written before the announcement
  if (options.announce) options.announce(url);
  else process.stdout.write(JSON.stringify({ listening: url, pid: process.pid }) + "\n");
  await stopped;
}

/** The default Host allow-list of a server bound to `bind`: the loopback names and its own address. */
export function defaultAllowedHosts(bind: string): string[] {
  const own = bind.includes(":") && !bind.startsWith("[") ? `[${bind.toLowerCase()}]` : bind.toLowerCase();
  const wildcard = own === "0.0.0.0" || own === "[::]";
  return [...new Set([...LOOPBACK_HOSTS, ...(wildcard ? [] : [own])])];
}

/** Loopback addresses: the only ones a server without auth may bind. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** A comma-separated host or origin list from a flag, lower-cased, empty entries dropped. */
export function parseList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.startsWith("http") ? s.replace(/\/$/, "") : s.toLowerCase()));
}
