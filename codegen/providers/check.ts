/**
 * The providers' published rules for tool definitions, as code: each rule has an id, the text and
 * source it comes from (docs/PROVIDERS.md lists the same ids), the variants it applies to, and a
 * check over one tool definition. Tests run every rule on every generated variant, and on
 * hand-made bad definitions to show each rule can fail.
 */
import { joinPointer } from "../../common/json-pointer";
import type { JsonSchema } from "../model";
import type { ProviderName } from "./lower";
import { isPlainObject } from "../../common/values";
import { llamaCppPatternProblem } from "./regex";

export interface Violation {
  rule: string;
  tool: string;
  pointer: string;
  message: string;
}

export interface ProviderRule {
  id: string;
  /** The variants the rule binds. */
  appliesTo: readonly ProviderName[];
  /** What the provider says, short. */
  text: string;
  source: string;
  /** Problems in one tool definition: [pointer, message] pairs. */
  check(definition: JsonSchema): Array<[string, string]>;
}

const ALL: readonly ProviderName[] = ["canonical", "portable", "openai-strict", "gemini", "anthropic"];
/** A JSON Schema node (an object): the shared isPlainObject, typed for schemas. */
const isObject = (v: unknown): v is JsonSchema => isPlainObject(v);

/** The parameter schema inside a provider's tool object. */
export function parametersOf(definition: JsonSchema): JsonSchema {
  const fn = isObject(definition.function) ? definition.function : definition;
  const p = fn.parameters ?? fn.input_schema;
  return isObject(p) ? p : {};
}

function nameOf(definition: JsonSchema): unknown {
  return (isObject(definition.function) ? definition.function : definition).name;
}

/** Every subschema with its pointer (relative to the parameters) and its depth in objects. */
function* nodes(schema: JsonSchema, pointer = "", depth = 1): Generator<[JsonSchema, string, number]> {
  yield [schema, pointer, depth];
  if (isObject(schema.properties))
    for (const [k, v] of Object.entries(schema.properties))
      if (isObject(v)) yield* nodes(v, joinPointer(pointer, "properties", k), depth + 1);
  if (isObject(schema.items)) yield* nodes(schema.items, joinPointer(pointer, "items"), depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(schema[key]))
      for (const [i, v] of (schema[key] as unknown[]).entries())
        if (isObject(v)) yield* nodes(v, joinPointer(pointer, key, i), depth);
}

/** Problems at every node where `bad` answers a message. */
const everyNode =
  (bad: (node: JsonSchema) => string | undefined) =>
  (definition: JsonSchema): Array<[string, string]> => {
    const out: Array<[string, string]> = [];
    for (const [node, pointer] of nodes(parametersOf(definition))) {
      const message = bad(node);
      if (message) out.push([pointer, message]);
    }
    return out;
  };

const OPENAI_STRICT_KEYWORDS = new Set([
  "type",
  "description",
  "title",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);
/** Keywords Hermes' Gemini adapter (agent/gemini_schema.py) strips that would change what a call means, unlike additionalProperties. */
const HERMES_GEMINI_MEANINGFUL = [
  "const",
  "oneOf",
  "allOf",
  "not",
  "$ref",
  "$defs",
  "if",
  "then",
  "else",
  "patternProperties",
  "dependentRequired",
  "prefixItems",
];

export const PROVIDER_RULES: readonly ProviderRule[] = [
  {
    id: "common/name",
    appliesTo: ALL,
    text: "Tool names match ^[a-zA-Z0-9_-]{1,64}$ (OpenAI, Anthropic, Bedrock; Gemini also allows dots but not these providers).",
    source: "OpenAI function calling; Anthropic tool use; reference/hermes-plugins.md (Tool names)",
    check: (d) =>
      typeof nameOf(d) === "string" && /^[a-zA-Z0-9_-]{1,64}$/.test(nameOf(d) as string)
        ? []
        : [["", `name ${JSON.stringify(nameOf(d))}`]],
  },
  {
    id: "common/root-object",
    appliesTo: ALL,
    text: "The parameter schema is an object schema at the root (MCP inputSchema, OpenAI, Anthropic input_schema, Gemini).",
    source: "MCP spec 2025-06-18 tools/list; OpenAI Structured Outputs (root must be an object); Anthropic tool use",
    check: (d) =>
      parametersOf(d).type === "object" && isObject(parametersOf(d).properties)
        ? []
        : [["/type", "not an object schema with properties"]],
  },
  {
    id: "common/description",
    appliesTo: ALL,
    text: "Every tool has a description (what the model reads to choose it).",
    source: "OpenAI function calling; Anthropic tool use (description strongly recommended)",
    check: (d) => {
      const fn = isObject(d.function) ? d.function : d;
      return typeof fn.description === "string" && fn.description.length >= 20
        ? []
        : [["", "description missing or too short"]];
    },
  },
  {
    id: "anthropic/no-root-combinator",
    appliesTo: ["portable", "anthropic", "openai-strict", "gemini"],
    text: "No oneOf / anyOf / allOf at the top level of input_schema.",
    source: "Anthropic tool use: input_schema; OpenAI Structured Outputs (root must not be anyOf)",
    check: (d) =>
      ["oneOf", "anyOf", "allOf"].filter((k) => k in parametersOf(d)).map((k) => [`/${k}`, `${k} at the root`]),
  },
  {
    id: "anthropic/shape",
    appliesTo: ["anthropic"],
    text: "A tool is {name, description, input_schema}.",
    source: "Anthropic tool use: Specifying client tools",
    check: (d) =>
      Object.keys(d).sort().join() === "description,input_schema,name"
        ? []
        : [["", `keys ${Object.keys(d).join(",")}`]],
  },
  {
    id: "llamacpp/pattern",
    appliesTo: ["portable", "openai-strict", "gemini", "anthropic"],
    text: "Patterns use only what llama.cpp's JSON-schema-to-grammar converter turns into GBNF: no shorthand classes such as \\S or \\d, no (?...) groups, escapes limited to \\t \\r \\n \\xHH \\uHHHH and escaped metacharacters.",
    source:
      "llama.cpp examples/json_schema_to_grammar.py (_visit_pattern); Hermes tools/schema_sanitizer.py strips pattern after a grammar error",
    check: everyNode((n) => (typeof n.pattern === "string" ? llamaCppPatternProblem(n.pattern) : undefined)),
  },
  {
    id: "portable/single-type",
    appliesTo: ["portable", "gemini"],
    text: "type is one string, never an array (Gemini's Schema; Hermes passes portable through its Gemini keyword filter, which keeps type arrays as they are).",
    source: "Gemini API reference: Schema.type; Hermes agent/gemini_schema.py",
    check: everyNode((n) => (Array.isArray(n.type) ? `type ${JSON.stringify(n.type)}` : undefined)),
  },
  {
    id: "portable/hermes-gemini-safe",
    appliesTo: ["portable"],
    text: "No keyword whose removal by Hermes' Gemini adapter would change what a call means (const, oneOf, allOf, not, $ref, conditionals...): it only strips keywords, so portable uses none it would strip except ones the validators enforce (additionalProperties).",
    source: "Hermes agent/gemini_schema.py (v0.18.0)",
    check: everyNode((n) => HERMES_GEMINI_MEANINGFUL.find((k) => k in n)),
  },
  {
    id: "openai-strict/shape",
    appliesTo: ["openai-strict"],
    text: "A tool is {type: function, function: {name, description, parameters, strict: true}}.",
    source: "OpenAI Function calling: strict mode",
    check: (d) =>
      d.type === "function" && isObject(d.function) && d.function.strict === true
        ? []
        : [["", "not a strict function tool"]],
  },
  {
    id: "openai-strict/all-required",
    appliesTo: ["openai-strict"],
    text: "Every property of every object is listed in required; an optional field is a union with null.",
    source: "OpenAI Structured Outputs: supported schemas (All fields must be required)",
    check: everyNode((n) => {
      if (!isObject(n.properties)) return undefined;
      const required = new Set(Array.isArray(n.required) ? n.required : []);
      const missing = Object.keys(n.properties).filter((k) => !required.has(k));
      return missing.length ? `not required: ${missing.join(", ")}` : undefined;
    }),
  },
  {
    id: "openai-strict/closed-objects",
    appliesTo: ["openai-strict"],
    text: "additionalProperties: false on every object.",
    source: "OpenAI Structured Outputs: supported schemas (additionalProperties: false must always be set)",
    check: everyNode((n) =>
      n.type === "object" || (Array.isArray(n.type) && n.type.includes("object"))
        ? n.additionalProperties === false
          ? undefined
          : "open object"
        : undefined,
    ),
  },
  {
    id: "openai-strict/keywords",
    appliesTo: ["openai-strict"],
    text: "Only the documented subset: type, properties, required, additionalProperties, items, enum, const, anyOf, $ref/$defs, description, title, pattern, format, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minItems, maxItems. Not minLength, maxLength, minProperties, maxProperties, default, allOf, not, if/then/else, patternProperties.",
    source: "OpenAI Structured Outputs: supported schemas; reference/provider-schemas.md",
    check: everyNode((n) => Object.keys(n).find((k) => !OPENAI_STRICT_KEYWORDS.has(k))),
  },
  {
    id: "openai-strict/limits",
    appliesTo: ["openai-strict"],
    text: "At most 5000 object properties in total and 10 levels of nesting.",
    source: "OpenAI Structured Outputs: supported schemas (Limitations)",
    check: (d) => {
      let properties = 0;
      let deepest = 0;
      for (const [n, , depth] of nodes(parametersOf(d))) {
        if (isObject(n.properties)) properties += Object.keys(n.properties).length;
        deepest = Math.max(deepest, depth);
      }
      const out: Array<[string, string]> = [];
      if (properties > 5000) out.push(["", `${properties} properties`]);
      if (deepest > 10) out.push(["", `${deepest} levels`]);
      return out;
    },
  },
  {
    id: "gemini/keys",
    appliesTo: ["gemini"],
    text: "Only the keys of Gemini's Schema (OpenAPI 3.0 subset): type, format, title, description, nullable, enum, maxItems, minItems, properties, required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering, default, items, minimum, maximum. additionalProperties, const, $ref/$defs, $schema are rejected with 400.",
    source: "Gemini API reference: Schema (v1beta); reference/provider-schemas.md",
    check: everyNode((n) => Object.keys(n).find((k) => !GEMINI_KEYS.has(k))),
  },
  {
    id: "gemini/enum-strings",
    appliesTo: ["gemini"],
    text: "enum values are strings.",
    source: "Gemini API reference: Schema.enum; Hermes agent/gemini_schema.py",
    check: everyNode((n) =>
      Array.isArray(n.enum) && n.enum.some((v) => typeof v !== "string") ? "non-string enum value" : undefined,
    ),
  },
  {
    id: "gemini/shape",
    appliesTo: ["gemini"],
    text: "A function declaration is {name, description, parameters}.",
    source: "Gemini API reference: FunctionDeclaration",
    check: (d) =>
      Object.keys(d).sort().join() === "description,name,parameters" ? [] : [["", `keys ${Object.keys(d).join(",")}`]],
  },
];

/** Every violation of the rules that bind this variant, over its tool definitions. */
export function checkVariant(
  provider: ProviderName,
  definitions: ReadonlyArray<{ canonicalName: string; definition: JsonSchema }>,
): Violation[] {
  const out: Violation[] = [];
  for (const rule of PROVIDER_RULES) {
    if (!rule.appliesTo.includes(provider)) continue;
    for (const { canonicalName, definition } of definitions) {
      for (const [pointer, message] of rule.check(definition))
        out.push({ rule: rule.id, tool: canonicalName, pointer, message });
    }
  }
  return out;
}
