/**
 * What the MCP SDK's parse would hide from the tools: the SDK parses `tools/call` with zod, which
 * silently DROPS a top-level "__proto__" member of params.arguments (nested ones stay members), so
 * a model's `{"__proto__": {"dryRun": true}, ...}` would reach the handler as a plain write. The
 * model asked for something the handler cannot see; such a call must be refused, not guessed at.
 *
 * This transport wrapper sees every JSON-RPC message as the transport read it (JSON.parse keeps
 * "__proto__" as an ordinary member, and the SDK's JSON-RPC parse keeps params.arguments as it
 * is), before the SDK's request parse. A tools/call of a known tool whose raw arguments the raise
 * step refuses (raiseRefusal: an undeclared __proto__ / constructor / prototype member at any
 * depth, a non-boolean dryRun) is answered here with the tool result the handler would give
 * (invalid_input naming the place), and never reaches the handler. Everything else passes
 * through unchanged. It wraps every transport the server connects (stdio, Streamable HTTP).
 */
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { RaiseRefusal } from "../../generated/raise";
import { raiseRefusal } from "../../generated/raise";
import type { ToolDescriptor } from "../../generated/registry";
import { isPlainObject } from "../../common/values";

/** The tool result for a raw call the raise step refuses (built by the server, which knows the grant). */
export type RefuseRawCall = (tool: ToolDescriptor, refusal: RaiseRefusal) => Promise<CallToolResult>;

/** The tool a raw tools/call names and the raise step's refusal of its raw arguments, if any. */
function refusedCall(
  message: JSONRPCMessage,
  toolOf: (name: string) => ToolDescriptor | undefined,
): { id: string | number; tool: ToolDescriptor; refusal: RaiseRefusal } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== "tools/call" || (typeof m.id !== "string" && typeof m.id !== "number")) return undefined;
  if (!isPlainObject(m.params) || typeof m.params.name !== "string") return undefined;
  const tool = toolOf(m.params.name);
  // an unknown tool or arguments that are not an object: the SDK answers those as it always does
  if (!tool || !isPlainObject(m.params.arguments)) return undefined;
  const refusal = raiseRefusal(tool.name, m.params.arguments);
  return refusal ? { id: m.id, tool, refusal } : undefined;
}

/** The transport, with tools/call messages the raise step refuses answered before the SDK parses them. */
export function guardRawToolCalls(
  inner: Transport,
  toolOf: (name: string) => ToolDescriptor | undefined,
  refuse: RefuseRawCall,
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
    const refused = refusedCall(message, toolOf);
    if (!refused) {
      guarded.onmessage?.(message, extra);
      return;
    }
    void refuse(refused.tool, refused.refusal)
      .then((result) => inner.send({ jsonrpc: "2.0", id: refused.id, result }, { relatedRequestId: refused.id }))
      .catch((error: unknown) => guarded.onerror?.(error instanceof Error ? error : new Error(String(error))));
  };
  return guarded;
}
