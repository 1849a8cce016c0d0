/**
 * Visits every subschema of a schema, knowing which keywords hold schemas and which hold data
 * (so a property called "type" or an enum value is never mistaken for a keyword).
 */
import { joinPointer } from "../../common/json-pointer";
import { isPlainObject } from "../../common/values";

const SCHEMA_KEYWORDS = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"];
const SCHEMA_MAP_KEYWORDS = ["properties", "$defs", "patternProperties", "dependentSchemas"];
const SCHEMA_ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf"];

export type SchemaVisitor = (schema: Record<string, unknown>, pointer: string) => void;

export { isPlainObject };

export function walkSchema(schema: unknown, pointer: string, visit: SchemaVisitor): void {
  if (!isPlainObject(schema)) return;
  visit(schema, pointer);
  for (const key of SCHEMA_KEYWORDS) {
    if (key in schema) walkSchema(schema[key], joinPointer(pointer, key), visit);
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = schema[key];
    if (isPlainObject(map)) {
      for (const name of Object.keys(map)) walkSchema(map[name], joinPointer(pointer, key, name), visit);
    }
  }
  for (const key of SCHEMA_ARRAY_KEYWORDS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((s, i) => walkSchema(s, joinPointer(pointer, key, i), visit));
  }
}

/**
 * A deep copy with fn applied bottom-up to every subschema (data keywords are copied as they are).
 * A string, number or boolean is its own copy: structuredClone of one costs a serializer's round
 * trip, and mapSchema meets some 200,000 of them in the 200-tool synthetic contract (5% of its CPU).
 */
export function mapSchema(schema: unknown, fn: (s: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_KEYWORDS.includes(key)) out[key] = mapSchema(value, fn);
    else if (SCHEMA_MAP_KEYWORDS.includes(key) && isPlainObject(value)) {
      const m: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) m[name] = mapSchema(sub, fn);
      out[key] = m;
    } else if (SCHEMA_ARRAY_KEYWORDS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((s) => mapSchema(s, fn));
    } else out[key] = value !== null && typeof value === "object" ? copyData(value) : value;
  }
  return fn(out);
}

/**
 * A deep copy of JSON data (an enum's values, a const, examples): arrays and plain objects copied
 * member by member, in the same key order as structuredClone's, anything else by structuredClone.
 * structuredClone of a small array is a serializer's round trip each time (the codegen profile).
 */
function copyData(value: object): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out[i] = v !== null && typeof v === "object" ? copyData(v) : v;
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const v = record[key];
    const copy = v !== null && typeof v === "object" ? copyData(v) : v;
    // an own "__proto__" (JSON.parse makes one) stays an own property, never the copy's prototype
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}
