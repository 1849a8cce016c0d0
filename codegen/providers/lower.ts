/**
 * Lowering: the contract's model-facing parameter schema of a tool, rewritten into what one model
 * provider accepts. The principle: a variant may be LOOSER than the contract (a rule the provider
 * cannot express is dropped from the schema, recorded, stated in the field's description, and still
 * enforced by the raise step and the validators), never stricter and never a different shape. Where
 * that is impossible (a construct the provider cannot express without changing what a call means)
 * lowering fails with the tool, the JSON pointer and the rule: nothing is dropped silently.
 */
import { joinPointer } from "../../common/json-pointer";
import type { JsonSchema, ToolModel } from "../model";
import { isPlainObject } from "../../common/values";
import { PatternNotLowerable, portablePattern } from "./regex";

export const PROVIDERS = ["canonical", "portable", "openai-strict", "gemini", "anthropic"] as const;
export type ProviderName = (typeof PROVIDERS)[number];
export const DEFAULT_PROVIDER: ProviderName = "portable";

/** A rule of the contract the provider's schema does not carry, and who enforces it instead. */
export interface EnforcedElsewhere {
  pointer: string;
  keyword: string;
  value: unknown;
  /** "raise": the raise step (null means absent, defaults); "validators": the runtime's validation. */
  by: "raise" | "validators";
}

export interface LoweringProblem {
  provider: ProviderName;
  tool: string;
  pointer: string;
  rule: string;
}

export class ProviderLoweringError extends Error {
  constructor(readonly problems: LoweringProblem[]) {
    super(
      "a contract construct cannot be lowered for a provider without changing its meaning:\n" +
        problems.map((p) => `  ${p.provider}: ${p.tool} at ${p.pointer || "(root)"}: ${p.rule}`).join("\n"),
    );
    this.name = "ProviderLoweringError";
  }
}

/** One tool as one provider sees it. `definition` is the provider's own tool object. */
export interface ProviderTool {
  canonicalName: string;
  name: string;
  description: string;
  parameters: JsonSchema;
  definition: JsonSchema;
  enforcedElsewhere: EnforcedElsewhere[];
}

type Action = "keep" | "drop" | "fail";

/** Keywords the contract's parameter schemas may use, and what each provider does with them. Any other keyword fails. */
const KEYWORDS: Record<string, Record<Exclude<ProviderName, "canonical">, Action>> = {
  type: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  description: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  title: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  properties: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  required: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  additionalProperties: { portable: "keep", "openai-strict": "keep", gemini: "drop", anthropic: "keep" },
  items: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  enum: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  const: { portable: "fail", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  pattern: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  format: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  minLength: { portable: "keep", "openai-strict": "drop", gemini: "keep", anthropic: "keep" },
  maxLength: { portable: "keep", "openai-strict": "drop", gemini: "keep", anthropic: "keep" },
  minimum: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  maximum: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  exclusiveMinimum: { portable: "keep", "openai-strict": "keep", gemini: "drop", anthropic: "keep" },
  exclusiveMaximum: { portable: "keep", "openai-strict": "keep", gemini: "drop", anthropic: "keep" },
  multipleOf: { portable: "keep", "openai-strict": "keep", gemini: "drop", anthropic: "keep" },
  minItems: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  maxItems: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  // outside OpenAI's strict subset, Gemini's Schema and llama.cpp's grammars
  uniqueItems: { portable: "drop", "openai-strict": "drop", gemini: "drop", anthropic: "keep" },
  minProperties: { portable: "keep", "openai-strict": "drop", gemini: "keep", anthropic: "keep" },
  maxProperties: { portable: "keep", "openai-strict": "drop", gemini: "keep", anthropic: "keep" },
  default: { portable: "keep", "openai-strict": "drop", gemini: "keep", anthropic: "keep" },
  anyOf: { portable: "keep", "openai-strict": "keep", gemini: "keep", anthropic: "keep" },
  // Conditionals (the block rules: which fields each block type may carry) are outside OpenAI's
  // strict subset, Gemini's Schema and llama.cpp's grammars: every variant drops them, and the
  // validators hold them (a refusal names the field and the rule).
  if: { portable: "drop", "openai-strict": "drop", gemini: "drop", anthropic: "drop" },
  allOf: { portable: "drop", "openai-strict": "drop", gemini: "drop", anthropic: "drop" },
  not: { portable: "drop", "openai-strict": "drop", gemini: "drop", anthropic: "drop" },
  then: { portable: "drop", "openai-strict": "drop", gemini: "drop", anthropic: "drop" },
  else: { portable: "drop", "openai-strict": "drop", gemini: "drop", anthropic: "drop" },
};

/** How a dropped rule is told to the model, in the field's description. */
const SAY: Record<string, (v: unknown) => string> = {
  minLength: (v) => `at least ${v} ${v === 1 ? "character" : "characters"}`,
  maxLength: (v) => `at most ${v} characters`,
  minProperties: (v) => `at least ${v} ${v === 1 ? "property" : "properties"}`,
  maxProperties: (v) => `at most ${v} properties`,
  exclusiveMinimum: (v) => `greater than ${v}`,
  exclusiveMaximum: (v) => `less than ${v}`,
  multipleOf: (v) => `a multiple of ${v}`,
  uniqueItems: (v) => (v === true ? "no duplicate items" : ""),
  default: (v) => `default ${JSON.stringify(v)}; null or leaving it out means the default`,
  if: () => "fields that do not apply to the block's type are refused",
  allOf: () => "further rules apply (a refusal names the field and the rule)",
  not: () => "some combinations are refused (a refusal names the field and the rule)",
};

/** A JSON Schema node (an object): the shared isPlainObject, typed for schemas. */
const isObject = (v: unknown): v is JsonSchema => isPlainObject(v);

interface Walk {
  provider: Exclude<ProviderName, "canonical">;
  tool: string;
  problems: LoweringProblem[];
  enforced: EnforcedElsewhere[];
}

function lowerNode(schema: JsonSchema, pointer: string, w: Walk, optional: boolean): JsonSchema {
  const out: JsonSchema = {};
  const said: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    const at = joinPointer(pointer, keyword);
    const action = KEYWORDS[keyword]?.[w.provider];
    if (action === undefined)
      problem(
        w,
        at,
        `no lowering rule for the keyword ${keyword}: add one in codegen/providers/lower.ts before the contract uses it`,
      );
    else if (action === "fail") problem(w, at, `${w.provider} cannot carry ${keyword}`);
    else if (action === "drop") dropKeyword(keyword, value, at, w, said);
    else keepKeyword(keyword, value, schema, pointer, at, w, out);
  }
  // the rule the schema no longer carries, told to the model in words
  if (said.length > 0) out.description = describeDropped(out.description, said);
  if (w.provider === "openai-strict") strictObject(out, pointer, w);
  if (w.provider === "openai-strict" && optional) return nullable(out, pointer, w);
  return out;
}

function problem(w: Walk, pointer: string, rule: string): void {
  w.problems.push({ provider: w.provider, tool: w.tool, pointer, rule });
}

/** A keyword the provider does not carry: recorded as enforced elsewhere, and said in words where it has some. */
function dropKeyword(keyword: string, value: unknown, at: string, w: Walk, said: string[]): void {
  // a closed object stays closed through the validators; an open one needs no rule
  if (keyword === "additionalProperties" && value !== false && value !== true) {
    problem(w, at, `${w.provider} cannot express additionalProperties with a schema`);
    return;
  }
  w.enforced.push({ pointer: at, keyword, value, by: keyword === "default" ? "raise" : "validators" });
  const text = SAY[keyword]?.(value);
  if (text) said.push(text);
}

/** The field's description with the dropped rules appended as one sentence. */
function describeDropped(description: unknown, said: string[]): string {
  const base = typeof description === "string" ? description.replace(/\.?$/, ".") : "";
  const sentence = said.join("; ");
  return `${base} ${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`.trim();
}

/** A keyword the provider carries, into out: subschemas lowered, the provider's spelling where it differs. */
function keepKeyword(
  keyword: string,
  value: unknown,
  schema: JsonSchema,
  pointer: string,
  at: string,
  w: Walk,
  out: JsonSchema,
): void {
  switch (keyword) {
    case "properties": {
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, sub]) => [
          name,
          lowerNode(sub, joinPointer(at, name), w, !required.has(name)),
        ]),
      );
      break;
    }
    case "items":
      if (!isObject(value)) problem(w, at, "items must be one schema");
      else out.items = lowerNode(value, at, w, false);
      break;
    case "anyOf":
      if (pointer === "") problem(w, at, `${w.provider} needs an object at the root, not anyOf`);
      out.anyOf = (value as JsonSchema[]).map((sub, i) => lowerNode(sub, joinPointer(at, i), w, false));
      break;
    case "pattern":
      lowerPattern(value as string, at, w, out);
      break;
    case "type":
      lowerType(value, at, w, out);
      break;
    case "const":
      if (w.provider === "gemini") {
        if (typeof value === "string") out.enum = [value];
        else problem(w, at, "Gemini's Schema has no const, and its enum holds strings only");
      } else out.const = value;
      break;
    case "enum":
      if (w.provider === "gemini" && (value as unknown[]).some((v) => typeof v !== "string"))
        problem(w, at, "Gemini's enum holds strings only");
      else out.enum = value;
      break;
    default:
      out[keyword] = value;
  }
}

function lowerPattern(pattern: string, at: string, w: Walk, out: JsonSchema): void {
  try {
    out.pattern = portablePattern(pattern);
  } catch (e) {
    if (!(e instanceof PatternNotLowerable)) throw e;
    problem(w, at, `the pattern uses ${e.message}, which llama.cpp grammars and some providers reject`);
  }
}

/** A list of types: Gemini spells [T, "null"] as nullable; portable and Gemini take no other list. */
function lowerType(value: unknown, at: string, w: Walk, out: JsonSchema): void {
  if (Array.isArray(value) && (w.provider === "gemini" || w.provider === "portable")) {
    const others = value.filter((t) => t !== "null");
    if (w.provider === "gemini" && others.length === 1 && value.length === 2) {
      out.type = others[0];
      out.nullable = true;
    } else problem(w, at, `${w.provider} takes one type per schema, not ${JSON.stringify(value)}`);
  } else out.type = value;
}

/** OpenAI strict: every property required, additionalProperties false; optional ones become nullable (in lowerNode). */
function strictObject(node: JsonSchema, pointer: string, w: Walk): void {
  if (node.type !== "object") return;
  if (
    node.additionalProperties === false &&
    (node.properties === undefined || (isObject(node.properties) && Object.keys(node.properties).length === 0))
  ) {
    // a tool without parameters: strict mode takes an empty, closed object as it is
    node.properties = {};
    node.required = [];
    return;
  }
  if (!isObject(node.properties) || Object.keys(node.properties).length === 0) {
    w.problems.push({
      provider: w.provider,
      tool: w.tool,
      pointer,
      rule: "OpenAI strict mode needs the properties of every object listed",
    });
    return;
  }
  if (node.additionalProperties !== false) {
    w.problems.push({
      provider: w.provider,
      tool: w.tool,
      pointer,
      rule: "OpenAI strict mode needs additionalProperties false, and this object is open",
    });
    return;
  }
  const before = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const all = Object.keys(node.properties);
  for (const name of all)
    if (!before.has(name))
      w.enforced.push({
        pointer: joinPointer(pointer, "properties", name),
        keyword: "optional",
        value: true,
        by: "raise",
      });
  node.required = all;
}

/** Optional in strict mode: the property is required but may be null, and null means absent (the raise step). */
function nullable(node: JsonSchema, pointer: string, w: Walk): JsonSchema {
  if (typeof node.type === "string") {
    const out: JsonSchema = { ...node, type: [node.type, "null"] };
    if (Array.isArray(node.enum)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...(node.anyOf as JsonSchema[]), { type: "null" }] };
  w.problems.push({
    provider: w.provider,
    tool: w.tool,
    pointer,
    rule: "an optional property needs a type or anyOf to become nullable for OpenAI strict mode",
  });
  return node;
}

/** The provider's own tool object around a name, description and parameter schema. */
function definitionFor(provider: ProviderName, name: string, description: string, parameters: JsonSchema): JsonSchema {
  switch (provider) {
    case "openai-strict":
      return { type: "function", function: { name, description, parameters, strict: true } };
    case "anthropic":
      return { name, description, input_schema: parameters };
    default:
      return { name, description, parameters };
  }
}

/** Every tool for one provider; throws ProviderLoweringError naming each construct it cannot lower. */
export function lowerTools(provider: ProviderName, tools: readonly ToolModel[]): ProviderTool[] {
  const problems: LoweringProblem[] = [];
  const out = tools.map((t) => {
    let parameters = t.parameters;
    const enforced: EnforcedElsewhere[] = [];
    if (provider !== "canonical") {
      const walk: Walk = { provider, tool: t.name, problems, enforced };
      parameters = lowerNode(t.parameters, "", walk, false);
      if (parameters.type !== "object")
        problems.push({
          provider,
          tool: t.name,
          pointer: "/type",
          rule: "the parameters must be an object at the root",
        });
    }
    return {
      canonicalName: t.name,
      name: t.providerName,
      description: t.modelDescription,
      parameters,
      definition: definitionFor(provider, t.providerName, t.modelDescription, parameters),
      enforcedElsewhere: enforced,
    };
  });
  if (problems.length > 0) throw new ProviderLoweringError(problems);
  return out;
}

/**
 * A canonical call as the provider's model would send it: for OpenAI strict, every optional
 * property the call leaves out is present as null (strict mode makes the model send them all).
 */
export function lowerCall(provider: ProviderName, canonicalParameters: JsonSchema, value: unknown): unknown {
  if (provider !== "openai-strict") return value;
  const fill = (schema: JsonSchema, v: unknown): unknown => {
    if (Array.isArray(v) && isObject(schema.items)) return v.map((x) => fill(schema.items as JsonSchema, x));
    if (!isObject(v) || !isObject(schema.properties)) return v;
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(schema.properties as Record<string, JsonSchema>))
      out[name] = name in v ? fill(sub, v[name]) : null;
    for (const [name, x] of Object.entries(v)) if (!(name in out)) out[name] = x;
    return out;
  };
  return fill(canonicalParameters, value);
}
