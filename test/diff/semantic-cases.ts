/**
 * The semantic table: one schema edit per row, judged by the values it lets through, with the
 * verdict written down before running. Each row's `before` and `after` are put, as a field named
 * "probe", both into a tool's Args (a request: callers send it) and into a tool's Result (a
 * response: callers read it). The expected level per direction is the worst level the diff must
 * report; "none" means no change at all (the two spellings accept the same values).
 *
 * Keywords the contract itself refuses (prefixItems, unevaluated*: json-schema-to-typescript cannot
 * express them) cannot be put into a contract; their rows compare the two schemas directly.
 *
 * The set view: a request edit is breaking when some value valid before is refused after; a
 * response edit is breaking when some value valid after was not valid before.
 */
import type { Level } from "../../diff/rules";

export type Verdict = Level | "none";

/** [name, before, after, request verdict, response verdict] */
export type SemanticRow = [name: string, before: unknown, after: unknown, request: Verdict, response: Verdict];

const str = { type: "string" };
const int = { type: "integer" };
const obj = { type: "object" };
const arr = { type: "array" };

export const SEMANTIC_ROWS: SemanticRow[] = [
  // ---- types
  ["nullable by type array", str, { type: ["string", "null"] }, "safe", "breaking"],
  ["no longer nullable (type array)", { type: ["string", "null"] }, str, "breaking", "safe"],
  ["string becomes integer", str, int, "breaking", "breaking"],
  ["integer widens to number", int, { type: "number" }, "safe", "breaking"],
  ["number narrows to integer", { type: "number" }, int, "breaking", "safe"],
  ["type removed", str, {}, "safe", "breaking"],
  ["type added", {}, str, "breaking", "safe"],
  [
    "type [X, null] is anyOf [X, null]",
    { type: ["string", "null"] },
    { anyOf: [str, { type: "null" }] },
    "none",
    "none",
  ],
  [
    "anyOf [X with bound, null] is type [X, null] with the bound",
    { anyOf: [{ type: "string", maxLength: 5 }, { type: "null" }] },
    { type: ["string", "null"], maxLength: 5 },
    "none",
    "none",
  ],
  [
    "oneOf [integer, null] is type [integer, null]",
    { oneOf: [{ type: "integer", minimum: 0 }, { type: "null" }] },
    { type: ["integer", "null"], minimum: 0 },
    "none",
    "none",
  ],
  [
    "anyOf [null, X] order does not matter",
    { anyOf: [{ type: "null" }, str] },
    { type: ["null", "string"] },
    "none",
    "none",
  ],

  // ---- boolean schemas
  ["a field becomes false (cannot be sent)", str, false, "breaking", "safe"],
  ["a false field becomes a string", false, str, "safe", "breaking"],
  ["true is {}", true, {}, "none", "none"],
  ["{} is true", {}, true, "none", "none"],
  ["{not: {}} is false", { not: {} }, false, "none", "none"],
  ["true becomes false", true, false, "breaking", "safe"],

  // ---- numeric bounds and exclusive bounds
  [
    "maximum 3 is exclusiveMaximum 4 on an integer",
    { type: "integer", maximum: 3 },
    { type: "integer", exclusiveMaximum: 4 },
    "none",
    "none",
  ],
  [
    "minimum 1 is exclusiveMinimum 0 on an integer",
    { type: "integer", minimum: 1 },
    { type: "integer", exclusiveMinimum: 0 },
    "none",
    "none",
  ],
  [
    "exclusiveMinimum 0 is minimum 1 on an integer",
    { type: "integer", exclusiveMinimum: 0 },
    { type: "integer", minimum: 1 },
    "none",
    "none",
  ],
  [
    "maximum 3 becomes exclusiveMaximum 3 on an integer",
    { type: "integer", maximum: 3 },
    { type: "integer", exclusiveMaximum: 3 },
    "breaking",
    "safe",
  ],
  [
    "maximum 3 becomes exclusiveMaximum 3 on a number",
    { type: "number", maximum: 3 },
    { type: "number", exclusiveMaximum: 3 },
    "breaking",
    "safe",
  ],
  [
    "maximum 3 becomes exclusiveMaximum 4 on a number",
    { type: "number", maximum: 3 },
    { type: "number", exclusiveMaximum: 4 },
    "safe",
    "breaking",
  ],
  [
    "a looser second bound changes nothing",
    { type: "integer", maximum: 3 },
    { type: "integer", maximum: 3, exclusiveMaximum: 10 },
    "none",
    "none",
  ],
  [
    "a redundant exclusiveMinimum changes nothing",
    { type: "integer", minimum: 0 },
    { type: "integer", minimum: 0, exclusiveMinimum: -1 },
    "none",
    "none",
  ],
  [
    "exclusiveMinimum 0 becomes minimum 0 on a number",
    { type: "number", exclusiveMinimum: 0 },
    { type: "number", minimum: 0 },
    "safe",
    "breaking",
  ],
  [
    "minimum 0 becomes exclusiveMinimum 0 on a number",
    { type: "number", minimum: 0 },
    { type: "number", exclusiveMinimum: 0 },
    "breaking",
    "safe",
  ],
  ["higher minimum", { type: "integer", minimum: 0 }, { type: "integer", minimum: 1 }, "breaking", "safe"],
  ["lower minimum", { type: "integer", minimum: 1 }, { type: "integer", minimum: 0 }, "safe", "breaking"],
  ["minimum removed", { type: "integer", minimum: 1 }, int, "safe", "breaking"],
  ["maximum added", int, { type: "integer", maximum: 100 }, "breaking", "safe"],

  // ---- other bounds, patterns, formats
  ["longer maxLength", { type: "string", maxLength: 10 }, { type: "string", maxLength: 20 }, "safe", "breaking"],
  ["minLength removed", { type: "string", minLength: 1 }, str, "safe", "breaking"],
  [
    "minLength up, maxLength up",
    { type: "string", minLength: 1, maxLength: 5 },
    { type: "string", minLength: 2, maxLength: 6 },
    "breaking",
    "breaking",
  ],
  ["fewer maxItems", { type: "array", maxItems: 5 }, { type: "array", maxItems: 4 }, "breaking", "safe"],
  ["minItems added", arr, { type: "array", minItems: 1 }, "breaking", "safe"],
  [
    "fewer maxProperties",
    { type: "object", maxProperties: 5 },
    { type: "object", maxProperties: 3 },
    "breaking",
    "safe",
  ],
  ["minProperties removed", { type: "object", minProperties: 1 }, obj, "safe", "breaking"],
  ["pattern added", str, { type: "string", pattern: "^a" }, "breaking", "safe"],
  ["pattern removed", { type: "string", pattern: "^a" }, str, "safe", "breaking"],
  ["pattern changed", { type: "string", pattern: "^a" }, { type: "string", pattern: "^b" }, "breaking", "breaking"],
  ["format added", str, { type: "string", format: "date-time" }, "breaking", "safe"],
  ["format removed", { type: "string", format: "date-time" }, str, "safe", "breaking"],
  [
    "multipleOf 2 becomes 4",
    { type: "integer", multipleOf: 2 },
    { type: "integer", multipleOf: 4 },
    "breaking",
    "safe",
  ],
  [
    "multipleOf 4 becomes 2",
    { type: "integer", multipleOf: 4 },
    { type: "integer", multipleOf: 2 },
    "safe",
    "breaking",
  ],
  [
    "multipleOf 2 becomes 3",
    { type: "integer", multipleOf: 2 },
    { type: "integer", multipleOf: 3 },
    "breaking",
    "breaking",
  ],
  ["uniqueItems added", arr, { type: "array", uniqueItems: true }, "breaking", "safe"],
  ["uniqueItems false is absent", arr, { type: "array", uniqueItems: false }, "none", "none"],

  // ---- allOf
  [
    "a bound moved into allOf",
    { type: "string", maxLength: 5 },
    { type: "string", allOf: [{ maxLength: 5 }] },
    "none",
    "none",
  ],
  [
    "everything moved into allOf",
    { type: "integer", minimum: 0, maximum: 10 },
    { allOf: [int, { minimum: 0 }, { maximum: 10 }] },
    "none",
    "none",
  ],
  ["a new allOf bound", str, { type: "string", allOf: [{ maxLength: 5 }] }, "breaking", "safe"],
  ["an allOf bound removed", { type: "string", allOf: [{ maxLength: 5 }] }, str, "safe", "breaking"],
  [
    "allOf with a tighter bound than its parent",
    { type: "string", maxLength: 10, allOf: [{ maxLength: 5 }] },
    { type: "string", maxLength: 5 },
    "none",
    "none",
  ],
  [
    "a bound tightened inside allOf",
    { allOf: [str, { minLength: 1 }] },
    { allOf: [str, { minLength: 2 }] },
    "breaking",
    "safe",
  ],
  ["allOf [true] is nothing", str, { type: "string", allOf: [true] }, "none", "none"],
  [
    "required split across allOf",
    { type: "object", required: ["a", "b"] },
    { type: "object", allOf: [{ required: ["a"] }, { required: ["b"] }] },
    "none",
    "none",
  ],

  // ---- enum, const, oneOf of consts
  ["enum is oneOf of consts", { enum: ["a", "b"] }, { oneOf: [{ const: "a" }, { const: "b" }] }, "none", "none"],
  [
    "oneOf of consts is anyOf of consts",
    { oneOf: [{ const: "a" }, { const: "b" }] },
    { anyOf: [{ const: "a" }, { const: "b" }] },
    "none",
    "none",
  ],
  [
    "oneOf of consts with descriptions is the enum",
    {
      oneOf: [
        { const: "a", description: "A" },
        { const: "b", description: "B" },
      ],
    },
    { enum: ["a", "b"] },
    "none",
    "none",
  ],
  ["const is a one-value enum", { const: "a" }, { enum: ["a"] }, "none", "none"],
  ["an enum value added", { enum: ["a", "b"] }, { enum: ["a", "b", "c"] }, "safe", "breaking"],
  ["an enum value removed", { enum: ["a", "b", "c"] }, { enum: ["a", "b"] }, "breaking", "safe"],
  [
    "an enum value added through oneOf",
    { enum: ["a", "b"] },
    { oneOf: [{ const: "a" }, { const: "b" }, { const: "c" }] },
    "safe",
    "breaking",
  ],
  [
    "enum of consts becomes a superset type",
    { enum: ["a", "b"] },
    { type: "string", maxLength: 32 },
    "safe",
    "breaking",
  ],
  [
    "oneOf of consts becomes a superset type",
    { oneOf: [{ const: "page.read" }, { const: "page.write" }] },
    { type: "string", maxLength: 32 },
    "safe",
    "breaking",
  ],
  ["a type narrows to an enum", { type: "string", maxLength: 32 }, { enum: ["a", "b"] }, "breaking", "safe"],
  [
    "a type that refuses an old value",
    { enum: ["a", "abcdef"] },
    { type: "string", maxLength: 3 },
    "breaking",
    "breaking",
  ],
  ["a type next to an enum of its type", { type: "string", enum: ["a", "b"] }, { enum: ["a", "b"] }, "none", "none"],
  [
    "a type that filters an enum value",
    { enum: ["a", "b", 1] },
    { type: "string", enum: ["a", "b", 1] },
    "breaking",
    "safe",
  ],
  ["const changes value", { const: "a" }, { const: "b" }, "breaking", "breaking"],
  [
    "an enum gains null through anyOf",
    { enum: ["a", "b"] },
    { anyOf: [{ const: "a" }, { const: "b" }, { type: "null" }] },
    "safe",
    "breaking",
  ],
  [
    "enum with null is anyOf of the enum and null",
    { enum: ["a", null] },
    { anyOf: [{ enum: ["a"] }, { type: "null" }] },
    "none",
    "none",
  ],
  ["reordered enum", { enum: ["a", "b", "c"] }, { enum: ["c", "a", "b"] }, "none", "none"],
  [
    "integer enum is the bounded integer range",
    { enum: [1, 2, 3] },
    { type: "integer", minimum: 1, maximum: 3 },
    "none",
    "none",
  ],
  ["boolean type is the enum of true and false", { type: "boolean" }, { enum: [true, false] }, "none", "none"],
  [
    "a wider integer range than the enum",
    { enum: [1, 2] },
    { type: "integer", minimum: 1, maximum: 3 },
    "safe",
    "breaking",
  ],

  // ---- not
  ["not added", str, { type: "string", not: { const: "x" } }, "breaking", "safe"],
  ["not removed", { type: "string", not: { const: "x" } }, str, "safe", "breaking"],
  [
    "not excludes more",
    { type: "string", not: { enum: ["x"] } },
    { type: "string", not: { enum: ["x", "y"] } },
    "breaking",
    "safe",
  ],
  [
    "not excludes less",
    { type: "string", not: { enum: ["x", "y"] } },
    { type: "string", not: { enum: ["x"] } },
    "safe",
    "breaking",
  ],
  [
    "not of a looser bound",
    { type: "string", not: { maxLength: 3 } },
    { type: "string", not: { maxLength: 5 } },
    "breaking",
    "safe",
  ],
  [
    "not of a tighter bound",
    { type: "string", not: { maxLength: 5 } },
    { type: "string", not: { maxLength: 3 } },
    "safe",
    "breaking",
  ],
  [
    "not of a changed pattern",
    { type: "string", not: { pattern: "^a" } },
    { type: "string", not: { pattern: "^b" } },
    "breaking",
    "breaking",
  ],

  // ---- dependentRequired, dependentSchemas
  ["dependentRequired added", obj, { type: "object", dependentRequired: { a: ["b"] } }, "breaking", "safe"],
  [
    "dependentRequired needs less",
    { type: "object", dependentRequired: { a: ["b", "c"] } },
    { type: "object", dependentRequired: { a: ["b"] } },
    "safe",
    "breaking",
  ],
  [
    "dependentRequired needs another field",
    { type: "object", dependentRequired: { a: ["b"] } },
    { type: "object", dependentRequired: { a: ["c"] } },
    "breaking",
    "breaking",
  ],
  ["dependentRequired removed", { type: "object", dependentRequired: { a: ["b"] } }, obj, "safe", "breaking"],
  ["dependentSchemas added", obj, { type: "object", dependentSchemas: { a: { required: ["b"] } } }, "breaking", "safe"],
  [
    "dependentSchemas entry loosened",
    { type: "object", dependentSchemas: { a: { required: ["b", "c"] } } },
    { type: "object", dependentSchemas: { a: { required: ["b"] } } },
    "safe",
    "breaking",
  ],

  // ---- if / then / else
  ["if/then added", obj, { type: "object", if: { required: ["a"] }, then: { required: ["b"] } }, "breaking", "safe"],
  ["if/then removed", { type: "object", if: { required: ["a"] }, then: { required: ["b"] } }, obj, "safe", "breaking"],
  [
    "then requires more",
    { type: "object", if: { required: ["a"] }, then: { required: ["b"] } },
    { type: "object", if: { required: ["a"] }, then: { required: ["b", "c"] } },
    "breaking",
    "safe",
  ],
  [
    "then requires less",
    { type: "object", if: { required: ["a"] }, then: { required: ["b", "c"] } },
    { type: "object", if: { required: ["a"] }, then: { required: ["b"] } },
    "safe",
    "breaking",
  ],
  [
    "else added to an if/then",
    { type: "object", if: { required: ["a"] }, then: { required: ["b"] } },
    { type: "object", if: { required: ["a"] }, then: { required: ["b"] }, else: { required: ["c"] } },
    "breaking",
    "safe",
  ],
  [
    "if changed (could not prove)",
    { type: "object", if: { required: ["a"] }, then: { required: ["b"] } },
    { type: "object", if: { required: ["c"] }, then: { required: ["b"] } },
    "breaking",
    "breaking",
  ],
  ["if without then or else changes nothing", obj, { type: "object", if: { required: ["a"] } }, "none", "none"],

  // ---- prefixItems, items, contains
  ["prefixItems added", arr, { type: "array", prefixItems: [str] }, "breaking", "safe"],
  [
    "a second prefixItem",
    { type: "array", prefixItems: [str] },
    { type: "array", prefixItems: [str, int] },
    "breaking",
    "safe",
  ],
  [
    "a prefixItem removed",
    { type: "array", prefixItems: [str, int] },
    { type: "array", prefixItems: [str] },
    "safe",
    "breaking",
  ],
  [
    "items false removed after prefixItems",
    { type: "array", prefixItems: [str], items: false },
    { type: "array", prefixItems: [str] },
    "safe",
    "breaking",
  ],
  [
    "a prefixItem loosened",
    { type: "array", prefixItems: [{ type: "string", maxLength: 3 }] },
    { type: "array", prefixItems: [{ type: "string", maxLength: 9 }] },
    "safe",
    "breaking",
  ],
  ["items removed", { type: "array", items: str }, arr, "safe", "breaking"],
  ["items added", arr, { type: "array", items: str }, "breaking", "safe"],
  [
    "items nullable by anyOf is items nullable by type",
    { type: "array", items: { anyOf: [str, { type: "null" }] } },
    { type: "array", items: { type: ["string", "null"] } },
    "none",
    "none",
  ],
  ["contains added", arr, { type: "array", contains: str }, "breaking", "safe"],
  ["contains removed", { type: "array", contains: str }, arr, "safe", "breaking"],
  [
    "contains loosened",
    { type: "array", contains: { type: "string", maxLength: 3 } },
    { type: "array", contains: str },
    "safe",
    "breaking",
  ],
  [
    "minContains added",
    { type: "array", contains: str },
    { type: "array", contains: str, minContains: 2 },
    "breaking",
    "safe",
  ],
  [
    "maxContains removed",
    { type: "array", contains: str, maxContains: 2 },
    { type: "array", contains: str },
    "safe",
    "breaking",
  ],

  // ---- objects: propertyNames, patternProperties, additional and unevaluated properties
  ["propertyNames added", obj, { type: "object", propertyNames: { maxLength: 5 } }, "breaking", "safe"],
  [
    "propertyNames loosened",
    { type: "object", propertyNames: { maxLength: 5 } },
    { type: "object", propertyNames: { maxLength: 10 } },
    "safe",
    "breaking",
  ],
  [
    "patternProperties added to an open object",
    obj,
    { type: "object", patternProperties: { "^x-": str } },
    "breaking",
    "safe",
  ],
  [
    "patternProperties removed from an open object",
    { type: "object", patternProperties: { "^x-": str } },
    obj,
    "safe",
    "breaking",
  ],
  [
    "a patternProperties entry loosened",
    { type: "object", patternProperties: { "^x-": str } },
    { type: "object", patternProperties: { "^x-": { type: ["string", "null"] } } },
    "safe",
    "breaking",
  ],
  [
    "patternProperties removed from a closed object",
    { type: "object", additionalProperties: false, patternProperties: { "^x-": str } },
    { type: "object", additionalProperties: false },
    "breaking",
    "safe",
  ],
  ["a declared field removed from an open object", { type: "object", properties: { a: str } }, obj, "safe", "breaking"],
  [
    "a declared field removed from a closed object",
    { type: "object", additionalProperties: false, properties: { a: str } },
    { type: "object", additionalProperties: false },
    "breaking",
    "breaking",
  ],
  ["a field declared on an open object", obj, { type: "object", properties: { a: str } }, "breaking", "safe"],
  [
    "an optional field added to a closed object",
    { type: "object", additionalProperties: false, properties: { a: str } },
    { type: "object", additionalProperties: false, properties: { a: str, b: str } },
    "safe",
    "safe",
  ],
  [
    "a declared field falls to an equal additionalProperties",
    { type: "object", additionalProperties: str, properties: { a: str } },
    { type: "object", additionalProperties: str },
    "none",
    "none",
  ],
  [
    "a declared field falls to a looser additionalProperties",
    { type: "object", additionalProperties: { type: ["string", "null"] }, properties: { a: str } },
    { type: "object", additionalProperties: { type: ["string", "null"] } },
    "safe",
    "breaking",
  ],
  [
    "additionalProperties false added",
    { type: "object", properties: { a: str } },
    { type: "object", properties: { a: str }, additionalProperties: false },
    "breaking",
    "safe",
  ],
  [
    "additionalProperties false removed",
    { type: "object", properties: { a: str }, additionalProperties: false },
    { type: "object", properties: { a: str } },
    "safe",
    "breaking",
  ],
  [
    "additionalProperties schema tightened",
    { type: "object", additionalProperties: str },
    { type: "object", additionalProperties: { type: "string", maxLength: 3 } },
    "breaking",
    "safe",
  ],
  ["additionalProperties true is absent", obj, { type: "object", additionalProperties: true }, "none", "none"],
  [
    "unevaluatedProperties false added",
    { type: "object", properties: { a: str } },
    { type: "object", properties: { a: str }, unevaluatedProperties: false },
    "breaking",
    "safe",
  ],
  [
    "a field of an open object set to false",
    { type: "object", properties: { a: str } },
    { type: "object", properties: { a: false } },
    "breaking",
    "safe",
  ],
  [
    "a field of a closed object set to false",
    { type: "object", additionalProperties: false, properties: { a: str } },
    { type: "object", additionalProperties: false, properties: { a: false } },
    "breaking",
    "safe",
  ],
  [
    "a field becomes required",
    { type: "object", properties: { a: str } },
    { type: "object", properties: { a: str }, required: ["a"] },
    "breaking",
    "safe",
  ],
  [
    "a field is no longer required",
    { type: "object", properties: { a: str }, required: ["a"] },
    { type: "object", properties: { a: str } },
    "safe",
    "breaking",
  ],
  [
    "required reordered",
    { type: "object", required: ["a", "b"] },
    { type: "object", required: ["b", "a"] },
    "none",
    "none",
  ],

  // ---- anyOf / oneOf
  ["anyOf of disjoint types becomes oneOf", { anyOf: [str, int] }, { oneOf: [str, int] }, "none", "none"],
  [
    "anyOf of overlapping alternatives becomes oneOf",
    { anyOf: [str, { type: "string", maxLength: 3 }] },
    { oneOf: [str, { type: "string", maxLength: 3 }] },
    "breaking",
    "safe",
  ],
  [
    "oneOf of overlapping alternatives becomes anyOf",
    { oneOf: [str, { type: "string", maxLength: 3 }] },
    { anyOf: [str, { type: "string", maxLength: 3 }] },
    "safe",
    "breaking",
  ],
  ["an anyOf alternative removed", { anyOf: [str, int] }, { anyOf: [str] }, "breaking", "safe"],
  ["an anyOf alternative added", { anyOf: [str, int] }, { anyOf: [str, int, { type: "boolean" }] }, "safe", "breaking"],
  ["an anyOf of one is the schema", { anyOf: [str] }, str, "none", "none"],
  [
    "an anyOf alternative loosened",
    { anyOf: [{ type: "string", maxLength: 3 }, int] },
    { anyOf: [{ type: "string", maxLength: 5 }, int] },
    "safe",
    "breaking",
  ],
  [
    "an anyOf alternative tightened",
    { anyOf: [{ type: "string", maxLength: 5 }, int] },
    { anyOf: [{ type: "string", maxLength: 3 }, int] },
    "breaking",
    "safe",
  ],
  ["reordered anyOf", { anyOf: [str, int] }, { anyOf: [int, str] }, "none", "none"],
  [
    "a discriminated oneOf becomes anyOf",
    {
      oneOf: [
        { type: "object", required: ["k"], properties: { k: { const: "a" } } },
        { type: "object", required: ["k"], properties: { k: { const: "b" } } },
      ],
    },
    {
      anyOf: [
        { type: "object", required: ["k"], properties: { k: { const: "a" } } },
        { type: "object", required: ["k"], properties: { k: { const: "b" } } },
      ],
    },
    "none",
    "none",
  ],

  // ---- nesting
  [
    "an enum value removed deep in an array of objects",
    { type: "array", items: { type: "object", properties: { k: { enum: ["x", "y"] } } } },
    { type: "array", items: { type: "object", properties: { k: { enum: ["x"] } } } },
    "breaking",
    "safe",
  ],
  [
    "a nested field becomes nullable by anyOf",
    { type: "object", properties: { a: int } },
    { type: "object", properties: { a: { anyOf: [int, { type: "null" }] } } },
    "safe",
    "breaking",
  ],

  // ---- annotations: warnings, never breaking
  ["description added", str, { type: "string", description: "x" }, "warning", "warning"],
  ["title added", str, { type: "string", title: "x" }, "warning", "warning"],
  ["examples added", str, { type: "string", examples: ["a"] }, "warning", "warning"],
  ["$comment added", str, { type: "string", $comment: "x" }, "warning", "warning"],
  ["contentMediaType added", str, { type: "string", contentMediaType: "text/plain" }, "warning", "warning"],
  ["deprecated added", str, { type: "string", deprecated: true }, "warning", "warning"],
  ["default added (callers that leave it out get it)", str, { type: "string", default: "a" }, "breaking", "warning"],
];
