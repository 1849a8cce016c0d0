/**
 * Does a schema accept one value? Used to prove inclusions that involve a finite list of values
 * (an enum against a type with bounds). Three answers: true, false, or undefined when a keyword
 * is beyond this evaluator; callers treat undefined as "could not prove" and take the safe side.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { canonical, sameJson } from "./json";
import { fullFormats } from "ajv-formats/dist/formats";
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
  const sub = (schema: unknown, value: unknown) => accepts(schema, value, expand, depth + 1);
  switch (key) {
    case "type": {
      const types = typeof arg === "string" ? [arg] : Array.isArray(arg) ? arg : [];
      return types.some((t) => jsonTypeIs(t as string, v));
    }
    case "enum":
      return Array.isArray(arg) && arg.some((x) => sameJson(x, v));
    case "const":
      return sameJson(arg, v);
    case "minLength":
      return typeof v !== "string" || [...v].length >= (arg as number);
    case "maxLength":
      return typeof v !== "string" || [...v].length <= (arg as number);
    case "pattern":
      if (typeof v !== "string") return true;
      try {
        return new RegExp(arg as string, "u").test(v);
      } catch {
        return undefined;
      }
    case "format": {
      // Only the formats our validators assert are assertions; any other is an annotation.
      if (typeof v !== "string" || !assertsFormat(arg)) return true;
      const format = (fullFormats as Record<string, unknown>)[arg as string];
      if (typeof format === "function") return Boolean((format as (x: string) => boolean)(v));
      if (format instanceof RegExp) return format.test(v);
      const validate = (format as { validate?: unknown } | undefined)?.validate;
      return typeof validate === "function" ? Boolean((validate as (x: string) => boolean)(v)) : undefined;
    }
    case "minimum":
      return typeof v !== "number" || v >= (arg as number);
    case "maximum":
      return typeof v !== "number" || v <= (arg as number);
    case "exclusiveMinimum":
      return typeof v !== "number" || v > (arg as number);
    case "exclusiveMaximum":
      return typeof v !== "number" || v < (arg as number);
    case "multipleOf":
      return typeof v !== "number" || Number.isInteger(v / (arg as number));
    case "minItems":
      return !Array.isArray(v) || v.length >= (arg as number);
    case "maxItems":
      return !Array.isArray(v) || v.length <= (arg as number);
    case "uniqueItems":
      return !Array.isArray(v) || !arg || new Set(v.map((x) => canonical(x))).size === v.length;
    case "items":
      if (!Array.isArray(v)) return true;
      return v
        .slice(Array.isArray(s.prefixItems) ? s.prefixItems.length : 0)
        .reduce<boolean | undefined>((r, x) => and(r, sub(arg, x)), true);
    case "prefixItems":
      if (!Array.isArray(v) || !Array.isArray(arg)) return true;
      return arg.reduce<boolean | undefined>((r, p, i) => (i < v.length ? and(r, sub(p, v[i])) : r), true);
    case "required":
      return (
        !isPlainObject(v) ||
        (Array.isArray(arg) && arg.every((n) => Object.prototype.hasOwnProperty.call(v, n as string)))
      );
    case "properties":
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      return Object.entries(arg).reduce<boolean | undefined>(
        (r, [n, p]) => (Object.prototype.hasOwnProperty.call(v, n) ? and(r, sub(p, v[n])) : r),
        true,
      );
    case "additionalProperties":
      if (!isPlainObject(v)) return true;
      if (isPlainObject(s.patternProperties)) return undefined;
      return Object.keys(v)
        .filter((n) => !(isPlainObject(s.properties) && Object.prototype.hasOwnProperty.call(s.properties, n)))
        .reduce<boolean | undefined>((r, n) => and(r, sub(arg, v[n])), true);
    case "minProperties":
      return !isPlainObject(v) || Object.keys(v).length >= (arg as number);
    case "maxProperties":
      return !isPlainObject(v) || Object.keys(v).length <= (arg as number);
    case "anyOf": {
      if (!Array.isArray(arg)) return undefined;
      let r: boolean | undefined = false;
      for (const alt of arg) {
        const x = sub(alt, v);
        if (x === true) return true;
        if (x === undefined) r = undefined;
      }
      return r;
    }
    case "oneOf": {
      if (!Array.isArray(arg)) return undefined;
      const results = arg.map((alt) => sub(alt, v));
      if (results.includes(undefined)) return undefined;
      return results.filter(Boolean).length === 1;
    }
    case "allOf":
      return Array.isArray(arg) ? arg.reduce<boolean | undefined>((r, m) => and(r, sub(m, v)), true) : undefined;
    case "if": {
      const cond = sub(arg, v);
      if (cond === undefined) return undefined;
      return cond ? sub(s.then, v) : sub(s.else, v);
    }
    case "then":
    case "else":
      return true;
    case "contains": {
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
    case "minContains":
    case "maxContains":
      return true;
    case "propertyNames":
      if (!isPlainObject(v)) return true;
      return Object.keys(v).reduce<boolean | undefined>((r, n) => and(r, sub(arg, n)), true);
    case "dependentRequired":
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      return Object.entries(arg).every(
        ([k, names]) =>
          !Object.prototype.hasOwnProperty.call(v, k) ||
          (Array.isArray(names) && names.every((n) => Object.prototype.hasOwnProperty.call(v, n as string))),
      );
    case "dependentSchemas":
      if (!isPlainObject(v) || !isPlainObject(arg)) return true;
      return Object.entries(arg).reduce<boolean | undefined>(
        (r, [k, schema]) => (Object.prototype.hasOwnProperty.call(v, k) ? and(r, sub(schema, v)) : r),
        true,
      );
    case "not": {
      const x = sub(arg, v);
      return x === undefined ? undefined : !x;
    }
    default:
      return undefined;
  }
}

function jsonTypeIs(type: string, v: unknown): boolean {
  if (type === "null") return v === null;
  if (type === "array") return Array.isArray(v);
  if (type === "object") return isPlainObject(v);
  if (type === "integer") return typeof v === "number" && Number.isInteger(v);
  if (type === "number") return typeof v === "number";
  return typeof v === type;
}
