/**
 * What the MCP SDK's parse would hide from the tools: the SDK parses `tools/call` with zod, which
 * silently DROPS a top-level "__proto__" member of params.arguments (nested ones stay members), so
 * a model's `{"__proto__": {"dryRun": true}, ...}` would reach the handler as a plain write. The
 * model asked for something the handler cannot see; such a call must be refused, not guessed at.
 *
 * The raw message is seen here as the transport read it (JSON.parse keeps "__proto__" as an
 * ordinary member), before the SDK's request parse. A tools/call of a known tool whose raw
 * arguments the raise step refuses (raiseRefusal: an undeclared __proto__ / constructor /
 * prototype member at any depth, a non-boolean dryRun) is noted by its request id; the tools/call
 * handler then answers the tool result the raise step would give (invalid_input naming the place),
 * through the SDK, so the answer has the shape of the request's protocol revision. On stdio the
 * transport is wrapped (guardRawToolCalls); over HTTP the parsed body is checked, each message of a
 * batch (rawRefusalsOf; a refused call sharing its id with another message refuses the body).
 */
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import type { RaiseRefusal } from "../../generated/raise";
import { raiseRefusal } from "../../generated/raise";
import type { ToolDescriptor } from "../../generated/registry";
import { isPlainObject } from "../../common/values";

export interface RawRefusal {
  tool: ToolDescriptor;
  refusal: RaiseRefusal;
}

/** Refused raw calls by JSON-RPC request id, taken (once) by the tools/call handler. */
export type RawRefusals = Map<string | number, RawRefusal>;

/** The request id of a raw tools/call the raise step refuses, with the tool and the refusal. */
export function rawRefusal(
  message: unknown,
  toolOf: (name: string) => ToolDescriptor | undefined,
): ({ id: string | number } & RawRefusal) | undefined {
  if (!isPlainObject(message)) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== "tools/call" || (typeof m.id !== "string" && typeof m.id !== "number")) return undefined;
  if (!isPlainObject(m.params) || typeof m.params.name !== "string") return undefined;
  const tool = toolOf(m.params.name);
  // an unknown tool or arguments that are not an object: the SDK answers those as it always does
  if (!tool || !isPlainObject(m.params.arguments)) return undefined;
  const refusal = raiseRefusal(tool.name, m.params.arguments);
  return refusal ? { id: m.id, tool, refusal } : undefined;
}

/**
 * The raw refusals of an HTTP body, every message of a batch too; undefined when a refused call
 * shares its request id with another message of the body (which call a refusal is for could not be
 * told: the caller refuses the whole body).
 */
export function rawRefusalsOf(
  body: unknown,
  toolOf: (name: string) => ToolDescriptor | undefined,
): RawRefusals | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const refusals: RawRefusals = new Map();
  for (const message of messages) {
    const refused = rawRefusal(message, toolOf);
    if (refused) refusals.set(refused.id, { tool: refused.tool, refusal: refused.refusal });
  }
  const ids = messages.map((m) => (isPlainObject(m) ? m.id : undefined));
  for (const id of refusals.keys()) if (ids.filter((other) => other === id).length > 1) return undefined;
  return refusals;
}

/** The transport, with every raw tools/call the raise step refuses noted in `refusals` before the SDK parses it. */
export function guardRawToolCalls(
  inner: Transport,
  toolOf: (name: string) => ToolDescriptor | undefined,
  refusals: RawRefusals,
): Transport {
  const guarded: Transport = {
    start: () => inner.start(),
    send: (message: JSONRPCMessage, options?: TransportSendOptions) => inner.send(message, options),
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: inner.setProtocolVersion ? (version: string) => inner.setProtocolVersion!(version) : undefined,
  };
  inner.onclose = () => guarded.onclose?.();
  inner.onerror = (error: Error) => guarded.onerror?.(error);
  inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    const refused = rawRefusal(message, toolOf);
    if (refused) refusals.set(refused.id, { tool: refused.tool, refusal: refused.refusal });
    guarded.onmessage?.(message, extra);
  };
  return guarded;
}
