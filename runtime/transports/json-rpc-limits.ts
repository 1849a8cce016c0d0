/**
 * The request limits for JSON-RPC text (MCP over stdio and over Streamable HTTP), applied before
 * JSON.parse sees it (runtime/dispatch/prescan.ts). A tool call's arguments sit one level deeper in
 * a JSON-RPC message (params.arguments) than in a request envelope (args), and the message carries a
 * few values of its own, so the pre-scan allows a small margin; the dispatcher then applies the
 * exact limits to the envelope it builds.
 */
import { DEFAULT_LIMITS } from "../dispatch/limits";
import { prescanJson, type PrescanLimits } from "../dispatch/prescan";
import { ToolFailure } from "../dispatch/tool-failure";

export const JSON_RPC_LIMITS: PrescanLimits & { maxBytes: number } = {
  maxBytes: DEFAULT_LIMITS.maxBytes + 64 * 1024,
  maxDepth: DEFAULT_LIMITS.maxDepth + 2,
  maxValues: DEFAULT_LIMITS.maxValues + 64,
};

/** Why JSON-RPC text is refused before parsing (nested too deep, too many values), or undefined. */
export function jsonRpcTooLarge(text: string, limits: PrescanLimits = JSON_RPC_LIMITS): string | undefined {
  try {
    prescanJson(text, limits);
    return undefined;
  } catch (e) {
    if (!(e instanceof ToolFailure)) throw e;
    return `the message is nested deeper than ${limits.maxDepth} or holds more than ${limits.maxValues} values`;
  }
}
