/**
 * The schema a model's raw arguments are checked against before the raise step reads them (the
 * rule "validate, then raise": contract/README.md, "What models send: the raise step").
 *
 * It accepts what any provider variant accepts, by shape: every value's type, enum and const, the
 * properties an object may and must have (`additionalProperties`, `patternProperties`,
 * `required`), array items and `anyOf` branches; and `null` wherever a field is optional (what
 * OpenAI strict mode makes models send, and what the raise step turns into "absent"). Nothing else:
 * rules on values (lengths, ranges, patterns, the block rules) are left to the envelope validators,
 * which check the raised request exactly as they check a program's. So this schema is never
 * stricter than the contract except where it must be (an undeclared member, a wrong type), and it
 * is all the raise step needs: the raise walks only declared members of values of the right type.
 *
 * Keywords it does not keep only make it looser (the envelope validators still check them), so the
 * rule is total: no contract construct can make it refuse a call the contract accepts.
 */
import { isPlainObject } from "../../common/values";
import type { JsonSchema } from "../model";

/** Keywords that say what shape a value has: kept (lowered inside). */
const SHAPE = new Set([
  "type",
  "enum",
  "const",
  "properties",
  "patternProperties",
  "additionalProperties",
  "required",
  "items",
  "anyOf",
]);

const isObject = (v: unknown): v is JsonSchema => isPlainObject(v);

function lower(schema: unknown, optional: boolean): unknown {
  if (!isObject(schema)) return schema; // true / false stay what they are
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!SHAPE.has(keyword)) continue;
    if ((keyword === "properties" || keyword === "patternProperties") && isObject(value)) {
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      out[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, lower(sub, keyword === "properties" && !required.has(name))]),
      );
    } else if (keyword === "items" || keyword === "additionalProperties") out[keyword] = lower(value, false);
    else if (keyword === "anyOf" && Array.isArray(value)) out.anyOf = value.map((sub) => lower(sub, false));
    else out[keyword] = value;
  }
  return optional ? nullable(out) : out;
}

/** The same schema, also accepting null: an optional field the model sent as null (the raise step drops it). */
function nullable(node: JsonSchema): JsonSchema {
  if (!["type", "enum", "const", "anyOf"].some((k) => k in node)) return node; // already accepts null
  if ("const" in node || "anyOf" in node) return { anyOf: [node, { type: "null" }] };
  // a plain type (and enum): one type list, so a refusal names the types the field takes
  const out: JsonSchema = { ...node };
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...(out.type as string[]), "null"];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

/**
 * A tool's model-arguments schema, from its model-facing parameters (canonical, self-contained).
 * The root is the parameters object itself (never null).
 */
export function modelArgumentsSchema(parameters: JsonSchema, toolName: string): JsonSchema {
  return {
    description: `The arguments a model may send for ${toolName}, by shape (null where a field is optional); checked before the raise step, and the raised request is then checked in full.`,
    ...(lower(parameters, false) as JsonSchema),
  };
}
