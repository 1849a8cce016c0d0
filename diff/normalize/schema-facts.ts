/**
 * Small facts about one schema node that the normalizer, the comparer and the inclusion prover all
 * ask: which JSON types it allows, whether it accepts everything or nothing, which keywords only
 * annotate. Plain functions over plain data.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { SUPPORTED_FORMATS } from "../../codegen/support/formats";
import { isVendorKeyword } from "../../codegen/vendor-keywords";

export type Schema = Record<string, unknown>;

/** Keywords that document and never validate (besides description, default and x-* facts). */
export const ANNOTATIONS = new Set([
  "title",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/**
 * A keyword that never decides whether a value is valid: the annotations of 2020-12 and the
 * contract's own x-mnote-* keywords (validators ignore them; the diff judges them as facts). Any
 * other x- keyword is unknown: it is not taken for an annotation.
 */
export function isAnnotation(key: string): boolean {
  return key === "description" || key === "default" || ANNOTATIONS.has(key) || isVendorKeyword(key);
}

/** The keywords that constrain only values of one JSON type, by that type. */
export const TYPE_KEYWORDS: Readonly<Record<"string" | "number" | "object" | "array", readonly string[]>> = {
  string: ["minLength", "maxLength", "pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  object: [
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
  ],
  array: [
    "items",
    "prefixItems",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
  ],
};

/** The JSON type a type-specific keyword constrains, or undefined for the others. */
export function keywordType(key: string): keyof typeof TYPE_KEYWORDS | undefined {
  for (const [type, keys] of Object.entries(TYPE_KEYWORDS))
    if (keys.includes(key)) return type as keyof typeof TYPE_KEYWORDS;
  return undefined;
}

/** `type` as a list (null when absent: any type). */
export function typeSet(type: unknown): string[] | null {
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : null;
}

/** Whether a list of types admits values of `type` (integer is inside number). */
export function coversType(types: readonly string[], type: string): boolean {
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/** Whether a schema with these types can hold values the keywords of `kind` constrain. */
export function allowsKind(types: readonly string[] | null, kind: keyof typeof TYPE_KEYWORDS): boolean {
  if (types === null) return true;
  return kind === "number" ? types.includes("number") || types.includes("integer") : types.includes(kind);
}

/** A subschema as an object: true (and absent) is {}, false is {not: {}}. */
export function asSchema(value: unknown): Schema {
  if (isPlainObject(value)) return value;
  return value === false ? { not: {} } : {};
}

/** A schema that accepts everything: true, absent, or {} with only annotations. */
export function isEverything(s: unknown): boolean {
  if (s === true || s === undefined) return true;
  if (!isPlainObject(s)) return false;
  for (const k in s) if (!isAnnotation(k)) return false;
  return true;
}

/** A schema that accepts nothing: false, {not: {}} (with only annotations beside it), or an empty enum. */
export function isNothing(s: unknown): boolean {
  if (s === false) return true;
  if (!isPlainObject(s)) return false;
  if (Array.isArray(s.enum) && s.enum.length === 0) return true;
  if (!isPlainObject(s.not) || !isEverything(s.not)) return false;
  return Object.keys(s).every((k) => k === "not" || isAnnotation(k));
}

/** A $ref the inliner kept (a definition compared on its own, or a recursive use). */
export function isMarker(s: unknown): s is Schema & { $ref: string } {
  return isPlainObject(s) && typeof s.$ref === "string";
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Whether our validators assert this format (on strings): any other is an annotation. */
export function assertsFormat(format: unknown): boolean {
  return (SUPPORTED_FORMATS as readonly unknown[]).includes(format);
}

/** The JSON type of a value, as JSON Schema names it ("integer" for whole numbers). */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

export function matchesType(type: string, v: unknown): boolean {
  if (type === "null") return v === null;
  if (type === "array") return Array.isArray(v);
  if (type === "object") return isPlainObject(v);
  if (type === "integer") return typeof v === "number" && Number.isInteger(v);
  if (type === "number") return typeof v === "number";
  return typeof v === type;
}
