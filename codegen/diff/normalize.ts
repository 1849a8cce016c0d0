/**
 * Rewrites an inlined schema into a canonical spelling before it is compared, so that two schemas
 * that accept the same values compare equal even when they are written differently:
 *
 * - `const: x` is `enum: [x]`, and an anyOf/oneOf whose alternatives are only value lists
 *   (const, enum, `{type: "null"}`) is one enum (a oneOf of distinct consts is an anyOf);
 * - `anyOf: [X, {type: "null"}]` is X with "null" added to its type, when X has one non-null type
 *   and only keywords that apply to that type (every 2020-12 assertion except enum, const and the
 *   applicators is type-specific, so adding "null" to the type changes nothing else);
 * - `exclusiveMinimum`/`exclusiveMaximum` on an integer are the inclusive bound one step inside
 *   (`exclusiveMaximum: 4` is `maximum: 3`); the tighter of two bounds of one side wins;
 * - allOf members without conflicting keywords are merged into their parent (bounds: the tighter;
 *   required: the union; properties: the union when the names are disjoint); a member that cannot
 *   be merged stays in allOf and is compared as a list.
 *
 * Every rewrite keeps the node's origin (inline.ts), so a finding still points at the file a user
 * edits. Nothing here loses a constraint: a rewrite that cannot be proven exact is not made.
 */
import { isPlainObject } from "../support/schema-walk";
import { adoptOrigins, omitKeys, originOf, setKeyOrigin } from "./inline";
import { sameJson } from "./json";
import { ANNOTATIONS } from "./keyword-rules";

type Schema = Record<string, unknown>;

/** Keywords that apply to one JSON type only: adding "null" to the type leaves them exact. */
const TYPE_SPECIFIC = new Set([
  "type",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "items",
  "prefixItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "unevaluatedItems",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "required",
  "dependentRequired",
  "dependentSchemas",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "description",
  "default",
  ...ANNOTATIONS,
]);

const LOWER = ["minLength", "minItems", "minProperties", "minContains", "minimum"];
const UPPER = ["maxLength", "maxItems", "maxProperties", "maxContains", "maximum"];

/** The canonical spelling of one node (not of its subschemas: the comparer normalizes as it descends). */
export function normalize(input: Schema): Schema {
  let s = input;
  s = flattenAllOf(s);
  s = constToEnum(s);
  s = valueListsToEnum(s);
  s = nullableToType(s);
  s = integerBounds(s);
  return s;
}

/** A hidden key (not enumerable, so equality ignores it) naming the keyword a value list came from. */
export const CONST_SOURCE = Symbol("constSource");

function constToEnum(s: Schema): Schema {
  if (!("const" in s)) return s;
  const out = omitKeys(s, ["const"]);
  Object.defineProperty(out, CONST_SOURCE, { value: "const", enumerable: false });
  // const and enum together: only the const can be valid, and only if the enum has it.
  out.enum = Array.isArray(s.enum) ? (s.enum.some((v) => sameJson(v, s.const)) ? [s.const] : []) : [s.const];
  return out;
}

/** The values an alternative stands for, when it is nothing but a list of values. */
function valueList(alt: unknown): unknown[] | null {
  if (!isPlainObject(alt)) return null;
  const keys = Object.keys(alt).filter((k) => k !== "description" && !ANNOTATIONS.has(k) && !k.startsWith("x-"));
  if (keys.length === 1 && keys[0] === "const") return [alt.const];
  if (keys.length === 1 && keys[0] === "enum" && Array.isArray(alt.enum)) return alt.enum;
  if (keys.length === 1 && keys[0] === "type" && alt.type === "null") return [null];
  if (keys.length === 2 && keys.includes("type") && (keys.includes("enum") || keys.includes("const"))) {
    const values = "const" in alt ? [alt.const] : Array.isArray(alt.enum) ? alt.enum : null;
    const types = typeof alt.type === "string" ? [alt.type] : Array.isArray(alt.type) ? alt.type : null;
    if (!values || !types) return null;
    return values.filter((v) => types.some((t) => matchesType(t as string, v)));
  }
  return null;
}

function valueListsToEnum(s: Schema): Schema {
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (!Array.isArray(list) || list.length === 0 || "enum" in s) continue;
    const lists = list.map(valueList);
    if (lists.some((l) => l === null)) continue;
    const values: unknown[] = [];
    let overlap = false;
    for (const l of lists as unknown[][]) {
      for (const v of l) {
        if (values.some((w) => sameJson(v, w))) overlap = true;
        else values.push(v);
      }
    }
    // A oneOf whose alternatives share a value refuses that value: not a plain enum.
    if (key === "oneOf" && overlap) continue;
    const out = omitKeys(s, [key]);
    out.enum = values;
    setKeyOrigin(out, "enum", originOf(s, key));
    return out;
  }
  return s;
}

function nullableToType(s: Schema): Schema {
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (!Array.isArray(list) || list.length !== 2) continue;
    const nullIndex = list.findIndex(
      (alt) =>
        isPlainObject(alt) &&
        alt.type === "null" &&
        Object.keys(alt).every((k) => k === "type" || k === "description" || ANNOTATIONS.has(k)),
    );
    if (nullIndex < 0) continue;
    const other = list[1 - nullIndex];
    if (!isPlainObject(other) || typeof other.type !== "string" || other.type === "null") continue;
    if (!Object.keys(other).every((k) => TYPE_SPECIFIC.has(k) || k.startsWith("x-"))) continue;
    // The parent's own keywords must not clash with the alternative's.
    const parentKeys = Object.keys(s).filter((k) => k !== key);
    if (parentKeys.some((k) => k in other && !sameJson(s[k], other[k]) && k !== "description" && !ANNOTATIONS.has(k)))
      continue;
    if (parentKeys.some((k) => !TYPE_SPECIFIC.has(k) && !k.startsWith("x-"))) continue;
    const out = omitKeys(s, [key]);
    const taken = Object.keys(other).filter((k) => !(k in out));
    for (const k of taken) out[k] = other[k];
    out.type = [other.type, "null"];
    adoptOrigins(out, other, taken);
    return out;
  }
  return s;
}

function integerBounds(s: Schema): Schema {
  const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? s.type : null;
  if (!types || !types.includes("integer") || types.includes("number")) return s;
  if (typeof s.exclusiveMinimum !== "number" && typeof s.exclusiveMaximum !== "number") return s;
  const out = omitKeys(s, ["exclusiveMinimum", "exclusiveMaximum"]);
  if (typeof s.exclusiveMinimum === "number") {
    const min = Math.floor(s.exclusiveMinimum) + 1;
    out.minimum = typeof s.minimum === "number" ? Math.max(s.minimum, min) : min;
  } else if ("exclusiveMinimum" in s) out.exclusiveMinimum = s.exclusiveMinimum;
  if (typeof s.exclusiveMaximum === "number") {
    const max = Math.ceil(s.exclusiveMaximum) - 1;
    out.maximum = typeof s.maximum === "number" ? Math.min(s.maximum, max) : max;
  } else if ("exclusiveMaximum" in s) out.exclusiveMaximum = s.exclusiveMaximum;
  return out;
}

/** Merges the allOf members that can be merged exactly; the rest stay in allOf. */
function flattenAllOf(s: Schema): Schema {
  if (!Array.isArray(s.allOf)) return s;
  let out = omitKeys(s, ["allOf"]);
  const rest: unknown[] = [];
  for (const member of s.allOf) {
    if (member === true || (isPlainObject(member) && Object.keys(member).length === 0)) continue;
    const normal = isPlainObject(member) ? normalize(member) : null;
    const merged = normal ? mergeInto(out, normal) : null;
    if (merged) {
      adoptOrigins(
        merged,
        normal,
        Object.keys(normal!).filter((k) => !(k in out) || !sameJson(out[k], normal![k])),
      );
      out = merged;
    } else rest.push(member);
  }
  if (rest.length > 0) out.allOf = rest;
  return out;
}

/** parent ∧ member as one schema, or null when that cannot be written without allOf. */
function mergeInto(parent: Schema, member: Schema): Schema | null {
  if (typeof member.$ref === "string") return null;
  const out = omitKeys(parent, []);
  for (const [k, v] of Object.entries(member)) {
    if (!(k in out) || sameJson(out[k], v)) {
      out[k] = v;
      continue;
    }
    if (k === "description" || ANNOTATIONS.has(k) || k.startsWith("x-")) continue;
    if (LOWER.includes(k) && typeof v === "number" && typeof out[k] === "number") out[k] = Math.max(out[k], v);
    else if (UPPER.includes(k) && typeof v === "number" && typeof out[k] === "number") out[k] = Math.min(out[k], v);
    else if (k === "required" && Array.isArray(v) && Array.isArray(out[k]))
      out[k] = [...new Set([...(out[k] as string[]), ...(v as string[])])];
    else if (k === "properties" && isPlainObject(v) && isPlainObject(out[k])) {
      const mine = out[k] as Schema;
      if (Object.keys(v).some((n) => n in mine)) return null;
      out[k] = { ...mine, ...v };
    } else if (k === "type") {
      const a = typeof out.type === "string" ? [out.type] : (out.type as string[]);
      const b = typeof v === "string" ? [v] : (v as string[]);
      const both = a.filter((t) => b.includes(t) || (t === "integer" && b.includes("number")));
      for (const t of b) if (t === "integer" && a.includes("number") && !both.includes(t)) both.push(t);
      out.type = both.length === 1 ? both[0] : both;
    } else return null;
  }
  // properties next to additionalProperties of the other side would change meaning: keep allOf.
  if (
    ("additionalProperties" in member && "properties" in parent) ||
    ("additionalProperties" in parent && "properties" in member)
  ) {
    if (!sameJson(Object.keys((parent.properties as Schema) ?? {}), Object.keys((member.properties as Schema) ?? {})))
      return null;
  }
  return out;
}

function matchesType(type: string, v: unknown): boolean {
  if (type === "null") return v === null;
  if (type === "array") return Array.isArray(v);
  if (type === "object") return isPlainObject(v);
  if (type === "integer") return typeof v === "number" && Number.isInteger(v);
  return typeof v === type;
}
