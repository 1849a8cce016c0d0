/**
 * Does a schema accept one value? Used to prove inclusions that involve a finite list of values
 * (an enum against a type with bounds). Three answers: true, false, or undefined when a keyword
 * is beyond this evaluator; callers treat undefined as "could not prove" and take the safe side.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { canonical, sameJson } from "./json";
import { fullFormats } from "ajv-formats/dist/formats";
import { matchesSomePattern, matchingPatterns } from "./object-keys";
import { assertsFormat, isAnnotation } from "./schema-facts";

type Schema = Record<string, unknown>;

/** expand: turns a {$ref} marker into its schema (the comparer's side); undefined: unknown. */
export function accepts(
  schema: unknown,
  value: unknown,
  expand: (marker: Schema) => Schema | undefined,
  depth = 0,
): boolean | undefined {
  if (schema === true || schema === undefined) return true;
  if (schema === false) return false;
  if (!isPlainObject(schema)) return undefined;
  if (depth > 32) return undefined;
  if (typeof schema.$ref === "string") {
    const body = expand(schema);
    if (body === undefined) return undefined;
    const rest = { ...schema };
    delete rest.$ref;
    return and(accepts(body, value, expand, depth + 1), accepts(rest, value, expand, depth + 1));
  }
  let result: boolean | undefined = true;
  for (const [key, arg] of Object.entries(schema)) {
    if (isAnnotation(key)) continue;
    result = and(result, keyword(key, arg, schema, value, expand, depth));
    if (result === false) return false;
  }
  return result;
}

function and(a: boolean | undefined, b: boolean | undefined): boolean | undefined {
  if (a === false || b === false) return false;
  return a === undefined || b === undefined ? undefined : true;
}

function keyword(
  key: string,
  arg: unknown,
  s: Schema,
  v: unknown,
  expand: (m: Schema) => Schema | undefined,
  depth: number,
): boolean | undefined {
  const handler = KEYWORDS.get(key);
  if (handler === undefined) return undefined;
  return handler(arg, v, s, (schema, value) => accepts(schema, value, expand, depth + 1));
}

/** Whether a subschema accepts a value (one level deeper). */
type Sub = (schema: unknown, value: unknown) => boolean | undefined;
/** One keyword's verdict on v: arg is the keyword's value, s the whole schema (for the siblings a keyword reads). */
type Handler = (arg: unknown, v: unknown, s: Schema, sub: Sub) => boolean | undefined;

const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** Every keyword this evaluator knows; any other gives undefined (beyond it). A Map: a key is never looked up on a prototype. */
const KEYWORDS = new Map<string, Handler>(
  Object.entries({
    type: (arg, v) => {
      const types = typeof arg === "string" ? [arg] : Array.isArray(arg) ? arg : [];
      return types.some((t) => jsonTypeIs(t as string, v));
    },
    enum: (arg, v) => Array.isArray(arg) && arg.some((x) => sameJson(x, v)),
    const: (arg, v) => sameJson(arg, v),
    minLength: (arg, v) => typeof v !== "string" || [...v].length >= (arg as number),
    maxLength: (arg, v) => typeof v !== "string" || [...v].length <= (arg as number),
    pattern: patternAccepts,
    format: formatAccepts,
    minimum: (arg, v) => typeof v !== "number" || v >= (arg as number),
    maximum: (arg, v) => typeof v !== "number" || v <= (arg as number),
    exclusiveMinimum: (arg, v) => typeof v !== "number" || v > (arg as number),
    exclusiveMaximum: (arg, v) => typeof v !== "number" || v < (arg as number),
    multipleOf: (arg, v) => typeof v !== "number" || Number.isInteger(v / (arg as number)),
    minItems: (arg, v) => !Array.isArray(v) || v.length >= (arg as number),
    maxItems: (arg, v) => !Array.isArray(v) || v.length <= (arg as number),
    uniqueItems: (arg, v) => !Array.isArray(v) || !arg || new Set(v.map((x) => canonical(x))).size === v.length,
    items: (arg, v, s, sub) => {
      if (!Array.isArray(v)) return true;
      return v
        .slice(Array.isArray(s.prefixItems) ? s.prefixItems.length : 0)
        .reduce<boolean | undefined>((r, x) => and(r, sub(arg, x)), true);
    },
    prefixItems: (arg, v, _s, sub) => {
      if (!Array.isArray(v) || !Array.isArray(arg)) return true;
      return arg.reduce<boolean | undefined>((r, p, i) => (i < v.length ? and(r, sub(p, v[i])) : r), true);
    },
    required: (arg, v) => !isPlainObject(v) || (Array.isArray(arg) && arg.every((n) => has(v, n as string))),
    properties: (arg, v, _s, sub) => {
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      return Object.entries(arg).reduce<boolean | undefined>(
        (r, [n, p]) => (has(v, n) ? and(r, sub(p, v[n])) : r),
        true,
      );
    },
    // every entry whose pattern matches a key applies to it, declared or not
    patternProperties: (arg, v, _s, sub) => {
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      let result: boolean | undefined = true;
      for (const n of Object.keys(v)) {
        const matching = matchingPatterns({ patternProperties: arg }, n);
        if (matching === "invalid") return undefined;
        for (const p of matching) result = and(result, sub(p, v[n]));
      }
      return result;
    },
    // keys neither declared nor matched by a pattern
    additionalProperties: (arg, v, s, sub) => {
      if (!isPlainObject(v)) return true;
      let result: boolean | undefined = true;
      for (const n of Object.keys(v)) {
        if (isPlainObject(s.properties) && has(s.properties, n)) continue;
        const patterned = matchesSomePattern(s, n);
        if (patterned === undefined) return undefined;
        if (!patterned) result = and(result, sub(arg, v[n]));
      }
      return result;
    },
    minProperties: (arg, v) => !isPlainObject(v) || Object.keys(v).length >= (arg as number),
    maxProperties: (arg, v) => !isPlainObject(v) || Object.keys(v).length <= (arg as number),
    anyOf: anyOfAccepts,
    oneOf: (arg, v, _s, sub) => {
      if (!Array.isArray(arg)) return undefined;
      const results = arg.map((alt) => sub(alt, v));
      if (results.includes(undefined)) return undefined;
      return results.filter(Boolean).length === 1;
    },
    allOf: (arg, v, _s, sub) =>
      Array.isArray(arg) ? arg.reduce<boolean | undefined>((r, m) => and(r, sub(m, v)), true) : undefined,
    if: (arg, v, s, sub) => {
      const cond = sub(arg, v);
      if (cond === undefined) return undefined;
      return cond ? sub(s.then, v) : sub(s.else, v);
    },
    // read by "if"
    then: () => true,
    else: () => true,
    contains: containsAccepts,
    // read by "contains"
    minContains: () => true,
    maxContains: () => true,
    propertyNames: (arg, v, _s, sub) => {
      if (!isPlainObject(v)) return true;
      return Object.keys(v).reduce<boolean | undefined>((r, n) => and(r, sub(arg, n)), true);
    },
    dependentRequired: (arg, v) => {
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      return Object.entries(arg).every(
        ([k, names]) => !has(v, k) || (Array.isArray(names) && names.every((n) => has(v, n as string))),
      );
    },
    dependentSchemas: (arg, v, _s, sub) => {
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      return Object.entries(arg).reduce<boolean | undefined>(
        (r, [k, schema]) => (has(v, k) ? and(r, sub(schema, v)) : r),
        true,
      );
    },
    not: (arg, v, _s, sub) => {
      const x = sub(arg, v);
      return x === undefined ? undefined : !x;
    },
  } satisfies Record<string, Handler>),
);

function patternAccepts(arg: unknown, v: unknown): boolean | undefined {
  if (typeof v !== "string") return true;
  try {
    return new RegExp(arg as string, "u").test(v);
  } catch {
    return undefined;
  }
}

function formatAccepts(arg: unknown, v: unknown): boolean | undefined {
  // Only the formats our validators assert are assertions; any other is an annotation.
  if (typeof v !== "string" || !assertsFormat(arg)) return true;
  const format = (fullFormats as Record<string, unknown>)[arg as string];
  if (typeof format === "function") return Boolean((format as (x: string) => boolean)(v));
  if (format instanceof RegExp) return format.test(v);
  const validate = (format as { validate?: unknown } | undefined)?.validate;
  return typeof validate === "function" ? Boolean((validate as (x: string) => boolean)(v)) : undefined;
}

function anyOfAccepts(arg: unknown, v: unknown, _s: Schema, sub: Sub): boolean | undefined {
  if (!Array.isArray(arg)) return undefined;
  let r: boolean | undefined = false;
  for (const alt of arg) {
    const x = sub(alt, v);
    if (x === true) return true;
    if (x === undefined) r = undefined;
  }
  return r;
}

function containsAccepts(arg: unknown, v: unknown, s: Schema, sub: Sub): boolean | undefined {
  if (!Array.isArray(v)) return true;
  let hits = 0;
  for (const x of v) {
    const r = sub(arg, x);
    if (r === undefined) return undefined;
    if (r) hits++;
  }
  const min = typeof s.minContains === "number" ? s.minContains : 1;
  const max = typeof s.maxContains === "number" ? s.maxContains : Infinity;
  return hits >= min && hits <= max;
}

function jsonTypeIs(type: string, v: unknown): boolean {
  if (type === "null") return v === null;
  if (type === "array") return Array.isArray(v);
  if (type === "object") return isPlainObject(v);
  if (type === "integer") return typeof v === "number" && Number.isInteger(v);
  if (type === "number") return typeof v === "number";
  return typeof v === type;
}
