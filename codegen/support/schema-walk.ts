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
    } else out[key] = value !== null && typeof value === "object" ? structuredClone(value) : value;
  }
  return fn(out);
}
