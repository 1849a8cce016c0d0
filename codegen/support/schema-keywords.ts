/**
 * Where a JSON Schema keyword holds subschemas, by the shape of its value: one schema, a list of
 * schemas, or a map of names to schemas. The generator's rewrites that must reach every
 * subschema (ajv-compat.ts, validation-key.ts) walk by these lists, so a keyword added here is
 * reached by all of them. (The diff keeps its own, narrower lists: it drops $defs as it inlines.)
 */
export const ONE_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);
export const SCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
