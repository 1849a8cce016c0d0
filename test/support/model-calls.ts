/** Calls as models send them: every optional field present as null, at every depth. */
import { toolByName } from "../../generated/registry";
import { sampleArgs } from "./requests";

type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema };

/** The value with every optional property the schema lists present as null (given ones raised inside). */
export function fillNulls(schema: Schema, value: unknown): unknown {
  if (Array.isArray(value)) return schema.items ? value.map((v) => fillNulls(schema.items!, v)) : value;
  if (typeof value !== "object" || value === null || !schema.properties) return value;
  const v = value as Record<string, unknown>;
  const required = new Set(schema.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(schema.properties)) {
    if (name in v) out[name] = fillNulls(sub, v[name]);
    else if (!required.has(name)) out[name] = null;
  }
  return out;
}

/** Required fields with values that work on a fresh page; every optional field null (the write's content blocks too). */
const REQUIRED_ONLY: Record<string, Record<string, unknown>> = {
  "mnote.page.save": { content: [{ type: "paragraph", text: "a paragraph as models send it" }] },
  "mnote.page.update_options": { options: { wideLayout: true } },
};

export function withNullOptionals(toolName: string): Record<string, unknown> {
  const tool = toolByName(toolName)!;
  const base =
    REQUIRED_ONLY[toolName] ??
    Object.fromEntries(
      Object.entries(sampleArgs[toolName]!).filter(([k]) => ((tool.parameters.required as string[]) ?? []).includes(k)),
    );
  return fillNulls(tool.parameters as Schema, base) as Record<string, unknown>;
}

/**
 * Pairs of distinct tool call ids that a cleanup (invalid characters to "_", leading punctuation
 * dropped, cut to 128 characters) would make equal: issue 18's colliding pairs. Each pair is two
 * calls and must get two keys.
 */
export const COLLIDING_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["call 1", "call_1"],
  ["call/x", "call?x"],
  ["-call9", "call9"],
  ["a".repeat(128) + "X", "a".repeat(128) + "Y"],
  ["call#1", "call$1"],
  [":call7", "call7"],
  ["x".repeat(200), "x".repeat(128)],
  ["café", "caf_"],
];
