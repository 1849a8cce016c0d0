/**
 * Request bodies for the HTTP layer (server.ts): only application/json (415), up to a byte limit
 * (413, the rest not read), strict UTF-8 (invalid bytes refused, never replaced by U+FFFD).
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "./answer";

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
