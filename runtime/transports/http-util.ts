/** Small pieces every HTTP endpoint here shares: reading a body under a limit, answering JSON, bearer tokens. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";

export class BodyTooLarge extends Error {}

/** The whole body, or BodyTooLarge as soon as it passes maxBytes (the rest is not read). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > maxBytes) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new BodyTooLarge());
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Constant-time comparison of the request's bearer token with any of the accepted ones. */
export function hasBearer(req: IncomingMessage, ...accepted: Array<string | undefined>): boolean {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  return accepted.some((token) => {
    if (!token) return false;
    const expected = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/** Stops accepting, lets requests in flight finish (up to graceMs), then resolves. */
export function closeGracefully(server: import("node:http").Server, graceMs: number): Promise<void> {
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
