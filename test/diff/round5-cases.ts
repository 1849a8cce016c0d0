/**
 * The round-5 table (issue 45): for each class of the issue, edits with the verdict written down
 * before the diff ran. Rows (`ROUND5_ROWS`) are schema edits put into a tool's Args (request) and a
 * tool's Result (response) as a field "probe" (table-verdicts.ts); each row that says "no change"
 * in both directions carries `probes`, values ajv must judge alike on both sides (round5-table
 * checks them beside the verdict, with random JSON values), and each row that finds a change may
 * carry a `witness`, a value ajv accepts on one side only. Edit rows (`ROUND5_EDITS`) change the
 * contract itself and list every rule the diff must report.
 */
import type { Level, RuleId } from "../../diff/rules";
import type { Verdict } from "./semantic-cases";
import type { ProbeRow } from "./table-verdicts";
import { set, unset, type Edit } from "./harness";

export const CLASSES = [
  "approval-null",
  "pattern-properties",
  "kernel-audience",
  "union-equivalence",
  "allof-ref",
  "small-false-alarms",
] as const;
export type IssueClass = (typeof CLASSES)[number];

export interface Round5Row extends ProbeRow {
  cls: IssueClass;
  name: string;
  request: Verdict;
  response: Verdict;
  /** Values ajv must accept on both sides or refuse on both (rows with no change). */
  probes?: unknown[];
  /** A value ajv accepts on exactly one side (rows with a change). */
  witness?: unknown;
}

export interface Round5EditRow {
  cls: IssueClass;
  name: string;
  before?: Edit[];
  after: Edit[];
  expect: Array<[RuleId, Level]>;
  /** Words the messages of the changes must hold (the example calls of an approval change). */
  messages?: string[];
}

const str = { type: "string" };
const obj = (extra: Record<string, unknown>) => ({ type: "object", properties: { a: str, b: str }, ...extra });
const closed = (extra: Record<string, unknown>) => obj({ additionalProperties: false, ...extra });

const int = (min: number, max: number) => ({ type: "integer", minimum: min, maximum: max });
const closedAB = (extra: Record<string, unknown>) => ({
  type: "object",
  additionalProperties: false,
  properties: { a: str, b: str },
  ...extra,
});
const kinded = (extra: Record<string, unknown>) => ({
  type: "object",
  additionalProperties: false,
  required: ["kind"],
  properties: { kind: { enum: ["x", "y"] }, x: str, y: str },
  ...extra,
});
const kindIs = (k: string) => ({ properties: { kind: { const: k } } });
const COMMON_REF = (name: string) => ({ $ref: `../model/common.schema.json#/$defs/${name}` });
const ANY_JSON = {
  anyOf: [
    { type: ["null", "boolean", "number", "string"] },
    { type: "array", items: { $ref: "#/$defs/ProbeJson" } },
    { type: "object", additionalProperties: { $ref: "#/$defs/ProbeJson" } },
  ],
};
const TREE = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: {
    text: { type: "string", maxLength: 20 },
    children: { type: "array", items: { $ref: "#/$defs/ProbeTree" } },
  },
};
const TREE_LEAF = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: { text: { type: "string", maxLength: 20 }, n: { type: "integer" } },
};
const JSON_PROBES = [null, true, 1, 2.5, "s", [], [1, [2, {}]], {}, { a: { b: [null] } }];
const TREE_PROBES = [
  { text: "a" },
  { text: "a", children: [{ text: "b" }] },
  { text: "a", children: [{}] },
  { text: 1 },
  {},
];

export const ROUND5_ROWS: Round5Row[] = [
  // ---- unions that partition a single schema
  {
    cls: "union-equivalence",
    name: "an integer range split into two adjacent ranges",
    before: int(0, 100),
    after: { anyOf: [int(0, 49), int(50, 100)] },
    request: "none",
    response: "none",
    probes: [-1, 0, 49, 50, 100, 101, 49.5, "1"],
  },
  {
    cls: "union-equivalence",
    name: "a number range split at an exclusive bound",
    before: { type: "number", minimum: 0, maximum: 10 },
    after: {
      anyOf: [
        { type: "number", minimum: 0, exclusiveMaximum: 5 },
        { type: "number", minimum: 5, maximum: 10 },
      ],
    },
    request: "none",
    response: "none",
    probes: [0, 4.99, 5, 10, 10.01, -0.1],
  },
  {
    cls: "union-equivalence",
    name: "an integer range split with a gap is narrower",
    before: int(0, 100),
    after: { anyOf: [int(0, 49), int(51, 100)] },
    request: "breaking",
    response: "safe",
    witness: 50,
  },
  {
    cls: "union-equivalence",
    name: "minProperties 1 on a closed object as an anyOf of required sets",
    before: closedAB({ minProperties: 1 }),
    after: closedAB({ anyOf: [{ required: ["a"] }, { required: ["b"] }] }),
    request: "none",
    response: "none",
    probes: [{}, { a: "x" }, { b: "y" }, { a: "x", b: "y" }, { c: 1 }],
  },
  {
    cls: "union-equivalence",
    name: "minProperties 1 on an open object is not an anyOf of its declared fields",
    before: { type: "object", properties: { a: str, b: str }, minProperties: 1 },
    after: { type: "object", properties: { a: str, b: str }, anyOf: [{ required: ["a"] }, { required: ["b"] }] },
    request: "breaking",
    response: "safe",
    witness: { c: 1 },
  },
  {
    cls: "union-equivalence",
    name: "an if/then/else chain on a const discriminator as an anyOf of disjoint branches",
    before: kinded({ if: kindIs("x"), then: { required: ["x"] }, else: { required: ["y"] } }),
    after: kinded({
      anyOf: [
        { properties: { kind: { const: "x" } }, required: ["x"] },
        { properties: { kind: { const: "y" } }, required: ["y"] },
      ],
    }),
    request: "none",
    response: "none",
    probes: [{ kind: "x", x: "1" }, { kind: "x", y: "1" }, { kind: "y", y: "1" }, { kind: "y" }, { kind: "z", y: "1" }],
  },
  {
    cls: "union-equivalence",
    name: "the recursive any-JSON definition for an open {}",
    before: {},
    after: COMMON_REF("ProbeJson"),
    defs: { before: { ProbeJson: ANY_JSON }, after: { ProbeJson: ANY_JSON } },
    request: "none",
    response: "none",
    probes: JSON_PROBES,
  },
  {
    cls: "union-equivalence",
    name: "a recursive JSON definition without objects is narrower than {}",
    before: {},
    after: COMMON_REF("ProbeJson"),
    defs: {
      before: { ProbeJson: ANY_JSON },
      after: {
        ProbeJson: {
          anyOf: [
            { type: ["null", "boolean", "number", "string"] },
            { type: "array", items: { $ref: "#/$defs/ProbeJson" } },
          ],
        },
      },
    },
    request: "breaking",
    response: "safe",
    witness: {},
  },
  // ---- a $ref inside allOf is the $ref
  {
    cls: "allof-ref",
    name: "a recursive $ref wrapped in allOf",
    before: COMMON_REF("ProbeTree"),
    after: { allOf: [COMMON_REF("ProbeTree")] },
    defs: { before: { ProbeTree: TREE }, after: { ProbeTree: TREE } },
    request: "none",
    response: "none",
    probes: TREE_PROBES,
  },
  {
    cls: "allof-ref",
    name: "a recursive $ref wrapped in allOf with a description beside it",
    before: COMMON_REF("ProbeTree"),
    after: { description: "The tree.", allOf: [COMMON_REF("ProbeTree")] },
    defs: { before: { ProbeTree: TREE }, after: { ProbeTree: TREE } },
    request: "warning",
    response: "warning",
  },
  {
    cls: "allof-ref",
    name: "a recursive $ref wrapped in allOf beside a tighter bound",
    before: COMMON_REF("ProbeTree"),
    after: { allOf: [COMMON_REF("ProbeTree"), { maxProperties: 1 }] },
    defs: { before: { ProbeTree: TREE }, after: { ProbeTree: TREE } },
    request: "breaking",
    response: "safe",
    witness: { text: "a", children: [] },
  },
  {
    cls: "allof-ref",
    name: "the recursion inside a definition wrapped in allOf",
    before: COMMON_REF("ProbeTree"),
    after: COMMON_REF("ProbeTree"),
    defs: {
      before: { ProbeTree: TREE },
      after: {
        ProbeTree: {
          ...TREE,
          properties: {
            ...TREE.properties,
            children: { type: "array", items: { allOf: [{ $ref: "#/$defs/ProbeTree" }] } },
          },
        },
      },
    },
    request: "none",
    response: "none",
    probes: TREE_PROBES,
  },
  {
    cls: "allof-ref",
    name: "an inline object replaced by allOf of a $ref to the same object",
    before: TREE_LEAF,
    after: { allOf: [COMMON_REF("ProbeLeaf")] },
    defs: { before: { ProbeLeaf: TREE_LEAF }, after: { ProbeLeaf: TREE_LEAF } },
    request: "none",
    response: "none",
    probes: [{ text: "a" }, { text: "a", n: 1 }, { n: 1 }, { text: 2 }],
  },
  // ---- small false alarms
  {
    cls: "small-false-alarms",
    name: "if: false with a then",
    before: str,
    after: { type: "string", if: false, then: { maxLength: 1 } },
    request: "none",
    response: "none",
    probes: ["", "ab", 1],
  },
  {
    cls: "small-false-alarms",
    name: "an if without required on a field the node already requires",
    before: { type: "object", required: ["a"], properties: { a: str, b: str } },
    after: {
      type: "object",
      required: ["a"],
      properties: { a: str, b: str },
      if: { properties: { a: { const: "x" } } },
      then: { required: ["b"] },
    },
    request: "breaking",
    response: "safe",
    witness: { a: "x" },
  },
  {
    cls: "small-false-alarms",
    name: "an if without required on a required field, with a then the node implies",
    before: { type: "object", required: ["a", "b"], properties: { a: str, b: str } },
    after: {
      type: "object",
      required: ["a", "b"],
      properties: { a: str, b: str },
      if: { properties: { a: { const: "x" } } },
      then: { required: ["b"] },
    },
    request: "none",
    response: "none",
    probes: [{ a: "x", b: "y" }, { a: "x" }, { a: "z", b: "y" }],
  },
  {
    cls: "small-false-alarms",
    name: "a pattern standing in for a length bound",
    before: { type: "string", maxLength: 10 },
    after: { type: "string", pattern: "^[\\s\\S]{0,10}$" },
    request: "none",
    response: "none",
    probes: ["", "0123456789", "01234567890", "a\nb", "😀😀😀😀😀😀😀😀😀😀", "😀😀😀😀😀😀😀😀😀😀😀"],
  },
  {
    cls: "small-false-alarms",
    name: "a new maxLength the pattern already implies",
    before: { type: "string", pattern: "^[a-z]{1,5}$" },
    after: { type: "string", pattern: "^[a-z]{1,5}$", maxLength: 5 },
    request: "none",
    response: "none",
    probes: ["a", "abcde", "abcdef", ""],
  },
  {
    cls: "small-false-alarms",
    name: "a new maxLength below the pattern's longest",
    before: { type: "string", pattern: "^[a-z]{1,5}$" },
    after: { type: "string", pattern: "^[a-z]{1,5}$", maxLength: 4 },
    request: "breaking",
    response: "safe",
    witness: "abcde",
  },
  {
    cls: "small-false-alarms",
    name: "an open object's property set to the boolean schema true",
    before: { type: "object", properties: { a: str } },
    after: { type: "object", properties: { a: true } },
    request: "safe",
    response: "breaking",
    witness: { a: 1 },
  },
  {
    cls: "small-false-alarms",
    name: "a closed object's property set to the boolean schema false",
    before: closedAB({}),
    after: closedAB({ properties: { a: false, b: str } }),
    request: "breaking",
    response: "safe",
    witness: { a: "x" },
  },
  {
    cls: "small-false-alarms",
    name: "type dropped beside an enum of integers that implies it",
    before: { type: "integer", enum: [1, 2, 3] },
    after: { enum: [1, 2, 3] },
    request: "none",
    response: "none",
    probes: [1, 2, 3, 4, "1", 1.5],
  },
];

ROUND5_ROWS.push(
  // ---- patternProperties apply to declared properties too
  {
    cls: "pattern-properties",
    name: "a pattern matching a declared property of a closed object narrows it",
    before: closed({}),
    after: closed({ patternProperties: { "^a$": { maxLength: 3 } } }),
    request: "breaking",
    response: "safe",
    witness: { a: "long text" },
  },
  {
    cls: "pattern-properties",
    name: "a pattern matching a declared property and other keys of a closed object",
    before: closed({}),
    after: closed({ patternProperties: { "^a": { maxLength: 3 } } }),
    request: "breaking",
    response: "breaking",
    witness: { ab: "x" },
  },
  {
    cls: "pattern-properties",
    name: "a pattern's bound moved onto the declared property it matches",
    before: closed({ patternProperties: { "^a$": { maxLength: 3 } } }),
    after: { type: "object", properties: { a: { type: "string", maxLength: 3 }, b: str }, additionalProperties: false },
    request: "none",
    response: "none",
    probes: [{ a: "abc" }, { a: "abcd" }, { b: "long text" }, { c: "x" }, {}],
  },
  {
    cls: "pattern-properties",
    name: "a pattern that narrows a declared property removed",
    before: obj({ patternProperties: { "^b$": { minLength: 2 } } }),
    after: obj({}),
    request: "safe",
    response: "breaking",
    witness: { b: "x" },
  },
  {
    cls: "pattern-properties",
    name: "a pattern on a declared property it does not narrow, added",
    before: closed({}),
    after: closed({ patternProperties: { "^(a|b)$": { type: "string" } } }),
    request: "none",
    response: "none",
    probes: [{ a: "x", b: "y" }, { a: 1 }, { c: "x" }],
  },
  {
    cls: "pattern-properties",
    name: "a pattern's schema on a declared property widened",
    before: obj({ patternProperties: { "^a$": { maxLength: 3 } } }),
    after: obj({ patternProperties: { "^a$": { maxLength: 5 } } }),
    request: "safe",
    response: "breaking",
    witness: { a: "abcd" },
  },
  {
    cls: "pattern-properties",
    name: "additionalProperties false beside a pattern covering every other key",
    before: obj({ patternProperties: { "^x-": { type: "integer" } }, additionalProperties: false }),
    after: obj({ patternProperties: { "^x-": { type: "integer" } }, additionalProperties: { not: {} } }),
    request: "none",
    response: "none",
    probes: [{ "x-a": 1 }, { "x-a": "s" }, { c: 1 }, { a: "x" }],
  },
);

const SAVE = "tools/page.save.tool.json";
const GET = "tools/page.get.tool.json";
const ACCESS = "kernel/access.check.command.json";
const KERNEL_ENVELOPE = "kernel/envelope.schema.json";
const APPROVAL = "/x-mnote-tool/approval";
const rule = (fallback: string, ...when: Array<[Record<string, unknown>, string]>) =>
  set(SAVE, APPROVAL, { default: fallback, when: when.map(([args, level]) => ({ args, approval: level })) });
const approval = (...when: Array<[Record<string, unknown>, string]>) => rule("allow", ...when);

export const ROUND5_EDITS: Round5EditRow[] = [
  // ---- a condition naming null: "the call gives no value for the field" (left out, or null)
  {
    cls: "approval-null",
    name: "a {baseRevision: null} -> ask condition added: calls without a revision go allow -> ask",
    after: [approval([{ mode: "replace" }, "ask"], [{ baseRevision: null }, "ask"])],
    expect: [["tool-approval-tightened", "breaking"]],
    messages: ['{"mode":"append"} (baseRevision left out): allow -> ask'],
  },
  {
    cls: "approval-null",
    name: "the {baseRevision: null} -> ask condition removed: calls without a revision stop asking",
    before: [approval([{ mode: "replace" }, "ask"], [{ baseRevision: null }, "ask"])],
    after: [approval([{ mode: "replace" }, "ask"])],
    expect: [["tool-approval-loosened", "warning"]],
    messages: ['{"mode":"append"} (baseRevision left out): ask -> allow'],
  },
  {
    cls: "approval-null",
    name: "a {baseRevision: null} -> allow condition added under an ask default",
    before: [rule("ask")],
    after: [rule("ask", [{ baseRevision: null }, "allow"])],
    expect: [["tool-approval-loosened", "warning"]],
    messages: ["(baseRevision left out): ask -> allow"],
  },
  {
    cls: "approval-null",
    name: "a null condition on a defaulted field holds when it is left out, whatever its default",
    after: [approval([{ mode: "replace" }, "ask"], [{ mode: null }, "deny"])],
    expect: [["tool-approval-tightened", "breaking"]],
    messages: ["(mode left out): allow -> deny"],
  },
  {
    cls: "approval-null",
    name: "a null condition after one that already catches every call without a revision",
    before: [approval([{ baseRevision: null }, "ask"])],
    after: [approval([{ baseRevision: null }, "ask"], [{ baseRevision: null, mode: "replace" }, "deny"])],
    expect: [],
  },
  {
    cls: "approval-null",
    name: "a null condition on a required field never holds",
    after: [approval([{ mode: "replace" }, "ask"], [{ content: null }, "deny"])],
    expect: [],
  },
  {
    cls: "approval-null",
    name: "an explicit append stops asking when the condition names null for the default's value",
    before: [approval([{ mode: "append" }, "ask"])],
    after: [approval([{ mode: null }, "ask"])],
    expect: [["tool-approval-loosened", "warning"]],
    messages: ['{"mode":"append"}: ask -> allow'],
  },
  // ---- the kernel as its own audience: replies the base's kernels send must still pass the head
  {
    cls: "kernel-audience",
    name: "a new required field in a kernel error",
    after: [set(KERNEL_ENVELOPE, "/$defs/KernelError/required", ["code", "reason"])],
    expect: [
      ["kernel-reply-narrowed", "breaking"],
      ["response-required-added", "safe"],
    ],
    messages: ["kernels built on the base may reply with values the head refuses"],
  },
  {
    cls: "kernel-audience",
    name: "minItems 1 on a list kernels answer empty",
    after: [set(ACCESS, "/$defs/Result/properties/result/properties/granted/minItems", 1)],
    expect: [
      ["kernel-reply-narrowed", "breaking"],
      ["response-constraint-tightened", "safe"],
    ],
  },
  {
    cls: "kernel-audience",
    name: "a kernel's success result closed",
    after: [set(KERNEL_ENVELOPE, "/$defs/KernelReply/anyOf/0/properties/result/additionalProperties", false)],
    expect: [
      ["kernel-reply-narrowed", "breaking"],
      ["response-additional-properties-closed", "safe"],
    ],
  },
  {
    cls: "kernel-audience",
    name: "a const where kernels send other values",
    after: [set(ACCESS, "/$defs/Result/properties/result/properties/member/const", true)],
    expect: [
      ["kernel-reply-narrowed", "breaking"],
      ["response-enum-narrowed", "safe"],
    ],
  },
  {
    cls: "kernel-audience",
    name: "a newly required member of a tool's result, which its kernel command returns",
    after: [set(GET, "/$defs/Result/required", ["documentId", "workspaceId", "title", "revision", "bodySummary"])],
    expect: [
      ["kernel-reply-narrowed", "breaking"],
      ["response-required-added", "safe"],
    ],
  },
  {
    cls: "kernel-audience",
    name: "a longer title in a tool's result breaks readers, not kernels",
    after: [set(GET, "/$defs/Result/properties/title/maxLength", 1000)],
    expect: [["response-constraint-loosened", "breaking"]],
  },
  {
    cls: "kernel-audience",
    name: "a kernel error's reason allowed longer breaks the runtime reading it, not kernels",
    after: [set(KERNEL_ENVELOPE, "/$defs/KernelError/properties/reason/maxLength", 128)],
    expect: [["response-constraint-loosened", "breaking"]],
  },
  // ---- a removed optional response field: for plugin code only (and kernels)
  {
    cls: "small-false-alarms",
    name: "an optional response field removed is reported for plugin code and kernels, not callers",
    after: [unset(GET, "/$defs/Result/properties/bodySummary")],
    expect: [
      ["optional-response-field-removed", "breaking"],
      ["kernel-reply-narrowed", "breaking"],
      // its x-mnote-truncate named an export
      ["export-removed", "breaking"],
    ],
    messages: ["not callers on the wire"],
  },
];
