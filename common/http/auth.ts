/** Bearer tokens for the HTTP layer (server.ts): compared in constant time, a 401 carries WWW-Authenticate. */
import type { IncomingMessage } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { HttpError } from "./answer";

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
