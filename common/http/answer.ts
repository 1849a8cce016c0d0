/**
 * Answers of the HTTP layer (server.ts): HttpError (an answer a check decided), JSON answers, what a
 * handler threw turned into an answer, and the one http_error log line of every answer of 400 or
 * more.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { logEvent, type Logger } from "./logger";

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

/** The http_error line of an answer of 400 or more (warn for 4xx, error for 5xx). */
export function logHttpError(log: Logger, req: IncomingMessage, res: ServerResponse): void {
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
export function answerThrown(
  res: ServerResponse,
  e: unknown,
  errorBody: (status: number, message: string) => unknown,
): void {
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
