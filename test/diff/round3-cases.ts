/**
 * The round-3 table (issue 22): for each class of the issue, schema edits judged by the values they
 * let through, with the verdict per direction written down before the diff ran. Like the semantic
 * table, `before` and `after` go into a tool's Args (request) and a tool's Result (response) as a
 * field "probe"; `defs` are definitions the probe refers to, put into model/common.schema.json
 * (their names start with "Probe") on the side they belong to. Rows marked `direct` use what the
 * contract itself refuses (an unknown keyword): they compare the two schemas directly.
 *
 * Verdicts: the worst level the diff must report in each direction; "none" is no change at all.
 * A request edit is breaking when some value valid before is refused after; a response edit when
 * some value valid after was not valid before, except where the contract's conventions say
 * otherwise (docs/CONTRACT-DIFF.md: a new response field is safe for tolerant readers; a recursion
 * that grows deeper is not a new field).
 */
import type { Level, RuleId } from "../../diff/rules";
import type { Verdict } from "./semantic-cases";
import { set, unset, type Edit } from "./harness";

export const CLASSES = [
  "ref-siblings",
  "x-mnote-facts",
  "recursion",
  "unknown-keywords",
  "annotations",
  "regex",
  "integers",
  "redundant",
  "unions",
  "conditionals",
  "mixed-unions",
] as const;
export type IssueClass = (typeof CLASSES)[number];

export interface Round3Row {
  cls: IssueClass;
  name: string;
  before: unknown;
  after: unknown;
  /** Definitions in model/common.schema.json, per side. */
  defs?: { before?: Record<string, unknown>; after?: Record<string, unknown> };
  request: Verdict;
  response: Verdict;
  /** Compare the two schemas directly (keywords the contract refuses). */
  direct?: boolean;
}

const COMMON = "../model/common.schema.json#/$defs/";
const ref = (name: string, siblings: Record<string, unknown> = {}) => ({ $ref: COMMON + name, ...siblings });
const str = { type: "string" };
const int = { type: "integer" };
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  additionalProperties: false,
  properties,
  ...extra,
});
const same = (defs: Record<string, unknown>) => ({ before: defs, after: defs });

/** A heading tree: the recursion passes through a property and items. */
const node = (text: unknown = { type: "string", maxLength: 200 }) =>
  closed(
    { text, children: { type: "array", maxItems: 50, items: { $ref: "#/$defs/ProbeNode" } } },
    { required: ["text"] },
  );
const leaf = closed({ text: { type: "string", maxLength: 200 } }, { required: ["text"] });

export const ROUND3_ROWS: Round3Row[] = [
  // ---- a $ref with sibling keywords is the conjunction of both
  {
    cls: "ref-siblings",
    name: "the target tightened below the sibling bound",
    before: ref("ProbeText", { maxLength: 300 }),
    after: ref("ProbeText", { maxLength: 300 }),
    defs: {
      before: { ProbeText: { type: "string", maxLength: 500 } },
      after: { ProbeText: { type: "string", maxLength: 200 } },
    },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "ref-siblings",
    name: "the target tightened, but the sibling bound is still the tighter one",
    before: ref("ProbeText", { maxLength: 300 }),
    after: ref("ProbeText", { maxLength: 300 }),
    defs: {
      before: { ProbeText: { type: "string", maxLength: 500 } },
      after: { ProbeText: { type: "string", maxLength: 400 } },
    },
    request: "none",
    response: "none",
  },
  {
    cls: "ref-siblings",
    name: "the target loosened beyond the sibling bound",
    before: ref("ProbeText", { maxLength: 300 }),
    after: ref("ProbeText", { maxLength: 300 }),
    defs: {
      before: { ProbeText: { type: "string", maxLength: 200 } },
      after: { ProbeText: { type: "string", maxLength: 500 } },
    },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "ref-siblings",
    name: "the sibling bound removed while the target has none",
    before: ref("ProbeText", { maxLength: 300 }),
    after: ref("ProbeText"),
    defs: same({ ProbeText: { type: "string" } }),
    request: "safe",
    response: "breaking",
  },
  {
    cls: "ref-siblings",
    name: "the sibling bound removed while the target's is tighter",
    before: ref("ProbeText", { maxLength: 300 }),
    after: ref("ProbeText"),
    defs: same({ ProbeText: { type: "string", maxLength: 100 } }),
    request: "none",
    response: "none",
  },
  {
    cls: "ref-siblings",
    name: "a pattern on the target added under a sibling pattern",
    before: ref("ProbeText", { pattern: "^[a-z]+$" }),
    after: ref("ProbeText", { pattern: "^[a-z]+$" }),
    defs: { before: { ProbeText: str }, after: { ProbeText: { type: "string", pattern: "^a" } } },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "ref-siblings",
    name: "a sibling type that adds null to a string target adds nothing (both apply)",
    before: ref("ProbeText"),
    after: ref("ProbeText", { type: ["string", "null"] }),
    defs: same({ ProbeText: { type: "string", maxLength: 20 } }),
    request: "none",
    response: "none",
  },
  {
    cls: "ref-siblings",
    name: "additionalProperties true next to a $ref to a closed object",
    before: ref("ProbeObject"),
    after: ref("ProbeObject", { additionalProperties: true }),
    defs: same({ ProbeObject: closed({ a: str }) }),
    request: "none",
    response: "none",
  },
  {
    cls: "ref-siblings",
    name: "a sibling property next to a $ref to a closed object cannot be sent",
    before: ref("ProbeObject"),
    after: ref("ProbeObject", { properties: { b: str } }),
    defs: same({ ProbeObject: closed({ a: str }) }),
    request: "none",
    response: "none",
  },
  {
    cls: "ref-siblings",
    name: "a field of the target removed under a sibling that lists it",
    before: ref("ProbeObject", { required: ["a"] }),
    after: ref("ProbeObject", { required: ["a"] }),
    defs: { before: { ProbeObject: closed({ a: str, b: str }) }, after: { ProbeObject: closed({ b: str }) } },
    request: "breaking",
    response: "breaking",
  },
  {
    cls: "ref-siblings",
    name: "an enum value removed from the target under a sibling enum",
    before: ref("ProbeMode", { enum: ["a", "b", "c"] }),
    after: ref("ProbeMode", { enum: ["a", "b", "c"] }),
    defs: { before: { ProbeMode: { enum: ["a", "b", "c"] } }, after: { ProbeMode: { enum: ["a", "b"] } } },
    request: "breaking",
    response: "safe",
  },

  // ---- recursion: compared by structure, never by name
  {
    cls: "recursion",
    name: "a leaf replaced by the recursive definition (the response grows deeper)",
    before: ref("ProbeNode"),
    after: ref("ProbeNode"),
    defs: {
      before: {
        ProbeNode: closed(
          {
            text: { type: "string", maxLength: 200 },
            children: { type: "array", maxItems: 50, items: { $ref: "#/$defs/ProbeLeaf" } },
          },
          { required: ["text"] },
        ),
        ProbeLeaf: leaf,
      },
      after: { ProbeNode: node(), ProbeLeaf: leaf },
    },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "recursion",
    name: "the recursive definition replaced by a leaf (deeper values refused)",
    before: ref("ProbeNode"),
    after: ref("ProbeNode"),
    defs: {
      before: { ProbeNode: node(), ProbeLeaf: leaf },
      after: {
        ProbeNode: closed(
          {
            text: { type: "string", maxLength: 200 },
            children: { type: "array", maxItems: 50, items: { $ref: "#/$defs/ProbeLeaf" } },
          },
          { required: ["text"] },
        ),
        ProbeLeaf: leaf,
      },
    },
    request: "breaking",
    // Depth-2 nodes lose their (optional) children field: a field of a response removed is
    // breaking by the contract's convention (response-property-removed), whatever its depth.
    response: "breaking",
  },
  {
    cls: "recursion",
    name: "an edit inside the recursion",
    before: ref("ProbeNode"),
    after: ref("ProbeNode"),
    defs: { before: { ProbeNode: node() }, after: { ProbeNode: node({ type: "string", maxLength: 100 }) } },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "recursion",
    name: "the recursion unrolled once, same values",
    before: ref("ProbeNode"),
    after: closed(
      { text: { type: "string", maxLength: 200 }, children: { type: "array", maxItems: 50, items: ref("ProbeNode") } },
      { required: ["text"] },
    ),
    defs: same({ ProbeNode: node() }),
    request: "none",
    response: "none",
  },
  {
    cls: "recursion",
    name: "the same name at the same place with another definition behind it",
    // Base: Probe is A = {a: {b: A}}; head: Probe is {a: A'} with A' = {b: A'}. Both close their
    // recursion at /a/b with the name ProbeA, but the base nests a/b/a/b, the head a/b/b/b.
    before: ref("ProbeA"),
    after: closed({ a: ref("ProbeA") }),
    defs: {
      before: { ProbeA: closed({ a: closed({ b: { $ref: "#/$defs/ProbeA" } }) }) },
      after: { ProbeA: closed({ b: { $ref: "#/$defs/ProbeA" } }) },
    },
    request: "breaking",
    response: "breaking",
  },
  {
    cls: "recursion",
    name: "mutual recursion: an edit in the second definition",
    before: ref("ProbeA"),
    after: ref("ProbeA"),
    defs: {
      before: {
        ProbeA: closed({ b: { $ref: "#/$defs/ProbeB" } }),
        ProbeB: closed({ a: { $ref: "#/$defs/ProbeA" }, n: { type: "integer", maximum: 10 } }),
      },
      after: {
        ProbeA: closed({ b: { $ref: "#/$defs/ProbeB" } }),
        ProbeB: closed({ a: { $ref: "#/$defs/ProbeA" }, n: { type: "integer", maximum: 20 } }),
      },
    },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "recursion",
    name: "an unchanged recursive definition",
    before: ref("ProbeNode", { description: "a tree" }),
    after: ref("ProbeNode", { description: "a tree" }),
    defs: same({ ProbeNode: node() }),
    request: "none",
    response: "none",
  },

  // ---- keywords the comparison does not know: could not prove, on the safe side
  {
    cls: "unknown-keywords",
    name: "an unknown keyword changed",
    before: { type: "string", unknownRule: 1 },
    after: { type: "string", unknownRule: 2 },
    request: "breaking",
    response: "breaking",
    direct: true,
  },
  {
    cls: "unknown-keywords",
    name: "an unknown x- keyword added",
    before: str,
    after: { type: "string", "x-other-limit": 3 },
    request: "breaking",
    response: "breaking",
    direct: true,
  },
  {
    cls: "unknown-keywords",
    name: "a pattern beyond the regular subset (a lookahead) changed",
    before: { type: "string", pattern: "^(?=a)a+$" },
    after: { type: "string", pattern: "^a+$" },
    request: "breaking",
    response: "breaking",
  },

  // ---- annotations where 2020-12 says they are annotations
  {
    cls: "annotations",
    name: "format on an integer",
    before: int,
    after: { type: "integer", format: "date-time" },
    request: "warning",
    response: "warning",
  },
  {
    cls: "annotations",
    name: "format on an object changed",
    before: { type: "object", format: "date-time" },
    after: { type: "object" },
    request: "warning",
    response: "warning",
  },
  {
    cls: "annotations",
    name: "format on a nullable string still asserts",
    before: { type: ["string", "null"] },
    after: { type: ["string", "null"], format: "date-time" },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "annotations",
    name: "a default on a required field",
    before: closed({ a: str }, { required: ["a"] }),
    after: closed({ a: { type: "string", default: "x" } }, { required: ["a"] }),
    request: "warning",
    response: "warning",
  },
  {
    cls: "annotations",
    name: "a default on an optional request field changes what callers get",
    before: closed({ a: str }),
    after: closed({ a: { type: "string", default: "x" } }),
    request: "breaking",
    response: "warning",
  },
  {
    cls: "annotations",
    name: "readOnly and examples",
    before: str,
    after: { type: "string", readOnly: true, examples: ["x"] },
    request: "warning",
    response: "warning",
  },

  // ---- regular expressions compared by the strings they accept
  {
    cls: "regex",
    name: "a character class reordered",
    before: { type: "string", pattern: "^[a-z0-9_]+$" },
    after: { type: "string", pattern: "^[_0-9a-z]+$" },
    request: "none",
    response: "none",
  },
  {
    cls: "regex",
    name: "\\d against 0-9",
    before: { type: "string", pattern: "^\\d{4}-\\d{2}$" },
    after: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}$" },
    request: "none",
    response: "none",
  },
  {
    cls: "regex",
    name: "an anchor spelled differently",
    before: { type: "string", pattern: "^a$|^b$" },
    after: { type: "string", pattern: "^(?:a|b)$" },
    request: "none",
    response: "none",
  },
  {
    cls: "regex",
    name: "+ against {1,}, and an escaped dot against a class",
    before: { type: "string", pattern: "^x+\\.y$" },
    after: { type: "string", pattern: "^x{1,}[.]y$" },
    request: "none",
    response: "none",
  },
  {
    cls: "regex",
    name: "\\w against its class, \\S against its negation",
    before: { type: "string", pattern: "^\\w+\\S$" },
    after: { type: "string", pattern: "^[A-Za-z0-9_]+[^\\s]$" },
    request: "none",
    response: "none",
  },
  {
    cls: "regex",
    name: "a bounded repetition is tighter",
    before: { type: "string", pattern: "^[a-z]+$" },
    after: { type: "string", pattern: "^[a-z]{1,10}$" },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "regex",
    name: "a wider class is looser",
    before: { type: "string", pattern: "^[a-z]+$" },
    after: { type: "string", pattern: "^[a-z0-9]+$" },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "regex",
    name: "an unanchored end is looser than $",
    before: { type: "string", pattern: "^ab$" },
    after: { type: "string", pattern: "^ab" },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "regex",
    name: "a dot does not match a line break",
    before: { type: "string", pattern: "^a" },
    after: { type: "string", pattern: "^a.*$" },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "regex",
    name: "patterns that cross",
    before: { type: "string", pattern: "^[a-m]+$" },
    after: { type: "string", pattern: "^[h-z]+$" },
    request: "breaking",
    response: "breaking",
  },
  {
    cls: "regex",
    name: "an equivalent patternProperties key",
    before: { type: "object", patternProperties: { "^x-[a-z]+$": str } },
    after: { type: "object", patternProperties: { "^x-(?:[a-z])+$": str } },
    request: "none",
    response: "none",
  },

  // ---- integer bounds and multiples
  {
    cls: "integers",
    name: "multipleOf 1 on an integer",
    before: int,
    after: { type: "integer", multipleOf: 1 },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "integer against number with multipleOf 1",
    before: { type: "integer", minimum: 0 },
    after: { type: "number", multipleOf: 1, minimum: 0 },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "a number with a whole multipleOf is an integer",
    before: { type: "number", multipleOf: 2 },
    after: { type: "integer", multipleOf: 2 },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "a fractional minimum on an integer",
    before: { type: "integer", minimum: 0.5 },
    after: { type: "integer", minimum: 1 },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "a fractional exclusive maximum on an integer",
    before: { type: "integer", exclusiveMaximum: 10.5 },
    after: { type: "integer", maximum: 10 },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "a bound between two multiples",
    before: { type: "integer", multipleOf: 5, minimum: 1 },
    after: { type: "integer", multipleOf: 5, minimum: 5 },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "integer and number together are number",
    before: { type: ["integer", "number"] },
    after: { type: "number" },
    request: "none",
    response: "none",
  },
  {
    cls: "integers",
    name: "a number becomes whole",
    before: { type: "number" },
    after: { type: "number", multipleOf: 1 },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "integers",
    name: "a minimum raised to the next multiple is no change, one further is",
    before: { type: "integer", multipleOf: 5, minimum: 1 },
    after: { type: "integer", multipleOf: 5, minimum: 6 },
    request: "breaking",
    response: "safe",
  },

  // ---- redundant constraints removed against their context
  {
    cls: "redundant",
    name: "uniqueItems with maxItems 1",
    before: { type: "array", maxItems: 1 },
    after: { type: "array", maxItems: 1, uniqueItems: true },
    request: "none",
    response: "none",
  },
  {
    cls: "redundant",
    name: "propertyNames a closed object implies",
    before: closed({ alpha: str, beta: str }),
    after: closed({ alpha: str, beta: str }, { propertyNames: { enum: ["alpha", "beta"] } }),
    request: "none",
    response: "none",
  },
  {
    cls: "redundant",
    name: "propertyNames by pattern a closed object implies",
    before: closed({ alpha: str, beta: str }),
    after: closed({ alpha: str, beta: str }, { propertyNames: { pattern: "^[a-z]+$", maxLength: 10 } }),
    request: "none",
    response: "none",
  },
  {
    cls: "redundant",
    name: "maxProperties a closed object implies",
    before: closed({ a: str, b: str }),
    after: closed({ a: str, b: str }, { maxProperties: 2 }),
    request: "none",
    response: "none",
  },
  {
    cls: "redundant",
    name: "maxProperties below what a closed object allows is a real bound",
    before: closed({ a: str, b: str }),
    after: closed({ a: str, b: str }, { maxProperties: 1 }),
    request: "breaking",
    response: "safe",
  },
  {
    cls: "redundant",
    name: "a dependentRequired on an already-required property",
    before: closed({ a: str, b: str }, { required: ["b"] }),
    after: closed({ a: str, b: str }, { required: ["b"], dependentRequired: { a: ["b"] } }),
    request: "none",
    response: "none",
  },
  {
    cls: "redundant",
    name: "a dependentRequired of a required property is a required field",
    before: closed({ a: str, b: str }, { required: ["a", "b"] }),
    after: closed({ a: str, b: str }, { required: ["a"], dependentRequired: { a: ["b"] } }),
    request: "none",
    response: "none",
  },
  {
    cls: "redundant",
    name: "minProperties its required fields imply, minLength 0",
    before: closed({ a: str }, { required: ["a"] }),
    after: closed({ a: { type: "string", minLength: 0 } }, { required: ["a"], minProperties: 1 }),
    request: "none",
    response: "none",
  },

  // ---- union shape
  {
    cls: "unions",
    name: "anyOf nested or flattened",
    before: { anyOf: [str, { anyOf: [int, { type: "boolean" }] }] },
    after: { anyOf: [str, int, { type: "boolean" }] },
    request: "none",
    response: "none",
  },
  {
    cls: "unions",
    name: "an alternative repeated",
    before: { anyOf: [str, int] },
    after: { anyOf: [str, int, str] },
    request: "none",
    response: "none",
  },
  {
    cls: "unions",
    name: "an alternative another one covers",
    before: { anyOf: [str, { type: "string", maxLength: 3 }, int] },
    after: { anyOf: [str, int] },
    request: "none",
    response: "none",
  },
  {
    cls: "unions",
    name: "an alternative that accepts nothing",
    before: { anyOf: [str, int] },
    after: { anyOf: [str, int, { not: {} }] },
    request: "none",
    response: "none",
  },
  {
    cls: "unions",
    name: "allOf nested or flattened",
    before: { allOf: [str, { allOf: [{ maxLength: 5 }, { minLength: 1 }] }] },
    after: { type: "string", minLength: 1, maxLength: 5 },
    request: "none",
    response: "none",
  },
  {
    cls: "unions",
    name: "a oneOf whose alternatives may overlap, against one schema",
    before: str,
    after: { oneOf: [str, { type: "string", maxLength: 3 }] },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "unions",
    name: "an alternative added inside a nested anyOf",
    before: { anyOf: [str, { anyOf: [int] }] },
    after: { anyOf: [str, { anyOf: [int, { type: "boolean" }] }] },
    request: "safe",
    response: "breaking",
  },

  // ---- conditionals
  {
    cls: "conditionals",
    name: "const against a one-element enum in the if",
    before: {
      type: "object",
      if: { properties: { kind: { const: "a" } }, required: ["kind"] },
      then: { required: ["x"] },
    },
    after: {
      type: "object",
      if: { required: ["kind"], properties: { kind: { enum: ["a"] } } },
      then: { required: ["x"] },
    },
    request: "none",
    response: "none",
  },
  {
    cls: "conditionals",
    name: "a then the node already requires",
    before: { type: "object", required: ["a", "b"], if: { required: ["c"] }, then: { required: ["b"] } },
    after: { type: "object", required: ["a", "b"] },
    request: "none",
    response: "none",
  },
  {
    cls: "conditionals",
    name: "if not X with the branches swapped",
    before: { type: "object", if: { required: ["k"] }, then: { required: ["a"] }, else: { required: ["b"] } },
    after: { type: "object", if: { not: { required: ["k"] } }, then: { required: ["b"] }, else: { required: ["a"] } },
    request: "none",
    response: "none",
  },
  {
    cls: "conditionals",
    name: "the same branch both ways is no condition",
    before: { type: "object", if: { required: ["k"] }, then: { required: ["a"] }, else: { required: ["a"] } },
    after: { type: "object", required: ["a"] },
    request: "none",
    response: "none",
  },
  {
    cls: "conditionals",
    name: "an equivalent if with a stricter then",
    before: { type: "object", if: { properties: { kind: { const: "a" } } }, then: { required: ["x"] } },
    after: { type: "object", if: { properties: { kind: { enum: ["a"] } } }, then: { required: ["x", "y"] } },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "conditionals",
    name: "a changed condition",
    before: { type: "object", if: { required: ["a"] }, then: { required: ["b"] } },
    after: { type: "object", if: { required: ["c"] }, then: { required: ["b"] } },
    request: "breaking",
    response: "breaking",
  },

  // ---- mixed-type unions: judged as a whole
  {
    cls: "mixed-unions",
    name: "a member widened by type while its string bound tightens",
    before: { anyOf: [{ type: "string", maxLength: 10 }, int] },
    after: { anyOf: [{ type: ["string", "integer"], maxLength: 5 }, int] },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "mixed-unions",
    name: "a nullable member widened by type while its bound tightens",
    before: { anyOf: [{ type: "string", maxLength: 10 }, { type: "null" }] },
    after: { anyOf: [{ type: ["string", "null"], maxLength: 5 }, { type: "null" }] },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "mixed-unions",
    name: "a member widened by type while its integer bound tightens",
    before: { anyOf: [{ type: "integer", maximum: 10 }, str] },
    after: { anyOf: [{ type: ["integer", "string"], maximum: 5 }, str] },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "mixed-unions",
    name: "a member widened by a type no other member has",
    before: { anyOf: [str, int] },
    after: { anyOf: [{ type: ["string", "boolean"] }, int] },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "mixed-unions",
    name: "members merged into one with the same bounds",
    before: {
      anyOf: [
        { type: "string", maxLength: 10 },
        { type: "integer", minimum: 0 },
      ],
    },
    after: { type: ["string", "integer"], maxLength: 10, minimum: 0 },
    request: "none",
    response: "none",
  },
];

/**
 * Rows that edit the contract itself (tool facts, kernel commands, the envelope) rather than a
 * probe field: the exact set of rules, with their levels, the diff must report.
 */
export interface Round3EditRow {
  cls: IssueClass;
  name: string;
  before?: Edit[];
  after: Edit[];
  expect: Array<[RuleId, Level]>;
}

const GET = "tools/page.get.tool.json";
const OPTIONS_SCHEMA = "model/page-options.schema.json";
const REQUEST = "envelope/request.schema.json";
const BLOCKS = "/$defs/Result/properties/blocks";
const SUMMARY = "/$defs/Result/properties/bodySummary";

export const ROUND3_EDITS: Round3EditRow[] = [
  // ---- x-mnote-* facts, each judged with its direction
  {
    cls: "x-mnote-facts",
    name: "a lower page block limit narrows what writers may send",
    after: [set(GET, `${BLOCKS}/maxItems`, 1500)],
    expect: [["limit-lowered", "breaking"]],
  },
  {
    cls: "x-mnote-facts",
    name: "a higher page block limit widens what readers may get",
    after: [set(GET, `${BLOCKS}/maxItems`, 3000)],
    expect: [["limit-raised", "breaking"]],
  },
  {
    cls: "x-mnote-facts",
    name: "a renamed limit is gone from the package",
    after: [set(GET, `${BLOCKS}/x-mnote-limit`, "pageBlockLimit")],
    expect: [
      ["export-removed", "breaking"],
      ["export-added", "safe"],
    ],
  },
  {
    cls: "x-mnote-facts",
    name: "a maxItems that loses its limit name is a plain response bound",
    after: [unset(GET, `${BLOCKS}/x-mnote-limit`), set(GET, `${BLOCKS}/description`, "The whole body.")],
    expect: [
      ["export-removed", "breaking"],
      ["description-changed", "warning"],
    ],
  },
  {
    cls: "x-mnote-facts",
    name: "a shorter cut is a tighter response",
    after: [
      set(GET, `${SUMMARY}/maxLength`, 103),
      set(GET, `${SUMMARY}/x-mnote-truncate`, { name: "bodySummary", length: 100, marker: "..." }),
    ],
    expect: [["response-constraint-tightened", "safe"]],
  },
  {
    cls: "x-mnote-facts",
    name: "a longer cut is a looser response",
    after: [
      set(GET, `${SUMMARY}/maxLength`, 403),
      set(GET, `${SUMMARY}/x-mnote-truncate`, { name: "bodySummary", length: 400, marker: "..." }),
    ],
    expect: [["response-constraint-loosened", "breaking"]],
  },
  {
    cls: "x-mnote-facts",
    name: "another cut marker changes the values readers recognize",
    after: [
      set(GET, `${SUMMARY}/maxLength`, 201),
      set(GET, `${SUMMARY}/x-mnote-truncate`, { name: "bodySummary", length: 200, marker: "…" }),
    ],
    expect: [["response-constraint-changed", "breaking"]],
  },
  {
    cls: "x-mnote-facts",
    name: "another initial value: readers see another value, writers get another behaviour",
    after: [set(OPTIONS_SCHEMA, "/$defs/PageOptions/properties/showToc/x-mnote-initialValue", true)],
    expect: [
      ["request-initial-value-changed", "breaking"],
      ["response-initial-value-changed", "breaking"],
    ],
  },
  {
    cls: "x-mnote-facts",
    name: "an initial value withdrawn is a looser response and only documents a request",
    after: [unset(OPTIONS_SCHEMA, "/$defs/PageOptions/properties/showToc/x-mnote-initialValue")],
    expect: [
      ["response-constraint-loosened", "breaking"],
      ["annotation-changed", "warning"],
    ],
  },
  {
    cls: "x-mnote-facts",
    name: "an option that becomes wired",
    after: [set(OPTIONS_SCHEMA, "/$defs/PageOptions/properties/showToc/x-mnote-runtimeSupport", "wired")],
    expect: [
      ["request-option-wired", "safe"],
      ["annotation-changed", "warning"],
    ],
  },
  {
    cls: "x-mnote-facts",
    name: "a request field the model fills becomes the host's",
    after: [set(REQUEST, "/$defs/ToolRequest/properties/dryRun/x-mnote-filledBy", "host")],
    expect: [["request-filled-by-changed", "breaking"]],
  },
  {
    cls: "x-mnote-facts",
    name: "a kernel payload field tightened is a narrower request to the kernel",
    after: [set("kernel/page.head.updateTitle.command.json", "/$defs/Payload/properties/dryRun", { const: false })],
    expect: [["request-enum-narrowed", "breaking"]],
  },
];
