/**
 * Ids an agent host derives from its own tool call ids, written once for every agent surface (the
 * MCP server, the framework targets; the Hermes plugin has the same derivation in Python, and a
 * test checks that both give the same keys).
 *
 * The idempotency key comes from the EXACT host ids, never from a cleaned-up form: two distinct
 * tool calls ("call 1" and "call_1", or two 129-character ids that differ at the end) must never
 * share a key, or the second, deliberate write would be answered as a replay of the first. The
 * key is the sha256 of both ids, each as its UTF-16 code units with a length prefix, so no pair of
 * ids can run into another and every string (even one with a lone surrogate) hashes as it is.
 * Only the envelope's display field toolCallId is cleaned up to fit the Identifier pattern, with
 * a short hash of the exact id appended when cleaning changed it, so it stays distinct too.
 */
import { createHash } from "node:crypto";
import { validateIdentifier } from "../../generated/validators";

/** The prefix of a key derived from a tool call (keyOrigin "tool_call"). */
const KEY_PREFIX = "tc-";
/** The most characters an Identifier holds (the contract's ToolCallId). */
const MAX_ID = 128;

function lengthPrefixed(hash: ReturnType<typeof createHash>, text: string): void {
  hash.update(`${text.length}:`, "utf8");
  hash.update(Buffer.from(text, "utf16le"));
}

/** The idempotency key of one host tool call: sha256 over the exact session id and the exact call id. */
export function toolCallKey(sessionId: string, toolCallId: string): string {
  const hash = createHash("sha256");
  lengthPrefixed(hash, sessionId);
  lengthPrefixed(hash, toolCallId);
  return KEY_PREFIX + hash.digest("hex");
}

/**
 * The host's tool call id as the envelope's toolCallId (an Identifier): the id itself when it is
 * one; otherwise every character outside the pattern replaced by "_", leading punctuation
 * dropped (it must start with a letter or digit), and "_" plus 8 hex digits of the exact id's hash appended (within 128 characters).
 */
export function displayToolCallId(toolCallId: string): string {
  const candidate: unknown = toolCallId; // the guard would narrow the string itself to never below
  if (validateIdentifier(candidate)) return toolCallId;
  const hash = createHash("sha256");
  lengthPrefixed(hash, toolCallId);
  const suffix = "_" + hash.digest("hex").slice(0, 8);
  const cleaned = toolCallId.replace(/[^A-Za-z0-9._:-]/g, "_").replace(/^[^A-Za-z0-9]+/, "");
  return (cleaned || "call").slice(0, MAX_ID - suffix.length) + suffix;
}
