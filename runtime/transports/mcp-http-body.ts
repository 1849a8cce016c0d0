/**
 * The body of a POST /mcp as mcp --http reads it (mcp-http.ts): held to a byte limit, strict UTF-8,
 * pre-scanned for depth and size (json-rpc-limits.ts), parsed; and the JSON-RPC errors the layer
 * answers itself.
 */
import type { IncomingMessage } from "node:http";
import { ERR } from "../../generated/registry";
import { HttpError } from "../../common/http/answer";
import { decodeUtf8, readBody } from "../../common/http/body";
import { jsonRpcTooLarge } from "./json-rpc-limits";

/** A JSON-RPC error object as the MCP transport answers one (id null: the request was not read). */
export function jsonRpcError(code: number, message: string, data?: unknown): unknown {
  return { jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id: null };
}

/** JSON-RPC codes for the HTTP statuses the layer answers itself. */
export function codeFor(status: number): number {
  if (status === 400) return -32700;
  if (status === 401) return -32001;
  if (status >= 500) return -32603;
  return -32000;
}

/** The parsed body of a POST, held to the limits (strict UTF-8, pre-scan, JSON). */
export async function readJsonRpc(req: IncomingMessage, maxBytes: number): Promise<{ text: string; body: unknown }> {
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
export function webRequest(req: IncomingMessage, text: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/mcp"}`, {
    method: "POST",
    headers,
    body: text,
  });
}
