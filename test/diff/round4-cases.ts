/**
 * The round-4 table (issue 34): for each class the held-out edits found, edits with the verdict
 * written down before the diff ran. Rows (`ROUND4_ROWS`) are schema edits put into a tool's Args
 * (request) and a tool's Result (response) as a field "probe" (table-verdicts.ts); edit rows
 * (`ROUND4_EDITS`) change the contract itself and list every rule the diff must report.
 *
 * Each precision class has an edit that is not equivalent next to the ones that are, so a rule
 * that proves too much fails here too.
 */
import type { Level, RuleId } from "../../diff/rules";
import type { Verdict } from "./semantic-cases";
import type { ProbeRow } from "./table-verdicts";
import { dropFile, set, type Edit } from "./harness";

export const CLASSES = [
  "approval-cells",
  "approval-policy",
  "approval-enum",
  "dependent-required",
  "swapped-branches",
  "contains",
  "negated-length",
  "recursive-union",
  "pattern-length",
  "unicode-classes",
] as const;
export type IssueClass = (typeof CLASSES)[number];

export interface Round4Row extends ProbeRow {
  cls: IssueClass;
  name: string;
  request: Verdict;
  response: Verdict;
}

export interface Round4EditRow {
  cls: IssueClass;
  name: string;
  before?: Edit[];
  after: Edit[];
  expect: Array<[RuleId, Level]>;
  /** Words the message of each change must hold (the example calls of an approval change). */
  messages?: string[];
}

const COMMON = "../model/common.schema.json#/$defs/";
const ref = (name: string) => ({ $ref: COMMON + name });
const str = { type: "string" };
const int = { type: "integer" };
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  additionalProperties: false,
  properties,
  ...extra,
});
const same = (defs: Record<string, unknown>) => ({ before: defs, after: defs });
const ab = (extra: Record<string, unknown>) => ({ type: "object", properties: { a: str, b: str, c: str }, ...extra });
/** kind is required and one of x, y, z: a condition on it splits the objects into disjoint parts. */
const kinded = (extra: Record<string, unknown>) =>
  closed({ kind: { enum: ["x", "y", "z"] }, n: int }, { required: ["kind"], ...extra });
const kindIs = (...values: string[]) => ({ properties: { kind: { enum: values } } });
const nAtMost = (n: number) => ({ properties: { n: { maximum: n } } });
const nAtLeast = (n: number) => ({ properties: { n: { minimum: n } } });
const node = closed(
  {
    text: { type: "string", maxLength: 200 },
    children: { type: "array", maxItems: 50, items: { $ref: "#/$defs/ProbeNode" } },
  },
  { required: ["text"] },
);

export const ROUND4_ROWS: Round4Row[] = [
  // ---- if/then and dependentSchemas as dependentRequired
  {
    cls: "dependent-required",
    name: "if a then b, as dependentRequired",
    before: ab({ if: { required: ["a"] }, then: { required: ["b"] } }),
    after: ab({ dependentRequired: { a: ["b"] } }),
    request: "none",
    response: "none",
  },
  {
    cls: "dependent-required",
    name: "dependentSchemas {a: {required: [b]}} as dependentRequired",
    before: ab({ dependentSchemas: { a: { required: ["b"] } } }),
    after: ab({ dependentRequired: { a: ["b"] } }),
    request: "none",
    response: "none",
  },
  {
    cls: "dependent-required",
    name: "if a then b and c, as dependentRequired a: b (looser)",
    before: ab({ if: { required: ["a"] }, then: { required: ["b", "c"] } }),
    after: ab({ dependentRequired: { a: ["b"] } }),
    request: "safe",
    response: "breaking",
  },
  {
    cls: "dependent-required",
    name: "dependentSchemas a: b as dependentRequired a: b, c (tighter)",
    before: ab({ dependentSchemas: { a: { required: ["b"] } } }),
    after: ab({ dependentRequired: { a: ["b", "c"] } }),
    request: "breaking",
    response: "safe",
  },
  // ---- if/then/else with the branches swapped under the complementary condition
  {
    cls: "swapped-branches",
    name: "if kind x then A else B, as if kind y or z then B else A",
    before: kinded({ if: kindIs("x"), then: nAtMost(5), else: nAtLeast(10) }),
    after: kinded({ if: kindIs("y", "z"), then: nAtLeast(10), else: nAtMost(5) }),
    request: "none",
    response: "none",
  },
  {
    cls: "swapped-branches",
    name: "a chain of disjoint conditions reordered",
    before: kinded({ if: kindIs("x"), then: nAtMost(5), else: { if: kindIs("y"), then: nAtLeast(10) } }),
    after: kinded({ if: kindIs("y"), then: nAtLeast(10), else: { if: kindIs("x"), then: nAtMost(5) } }),
    request: "none",
    response: "none",
  },
  {
    cls: "swapped-branches",
    name: "branches swapped under a condition that is not the complement",
    before: kinded({ if: kindIs("x"), then: nAtMost(5), else: nAtLeast(10) }),
    after: kinded({ if: kindIs("y"), then: nAtLeast(10), else: nAtMost(5) }),
    request: "breaking",
    response: "breaking",
  },
  // ---- contains / maxContains that every valid array satisfies
  {
    cls: "contains",
    name: "contains of the items' own schema is minItems 1",
    before: { type: "array", items: str, contains: str },
    after: { type: "array", items: str, minItems: 1 },
    request: "none",
    response: "none",
  },
  {
    cls: "contains",
    name: "contains of the items' own schema beside minItems goes",
    before: { type: "array", items: str, minItems: 2, contains: str },
    after: { type: "array", items: str, minItems: 2 },
    request: "none",
    response: "none",
  },
  {
    cls: "contains",
    name: "maxContains 1 of a single value under uniqueItems goes",
    before: { type: "array", items: str, uniqueItems: true, contains: { const: "a" }, maxContains: 1 },
    after: { type: "array", items: str, uniqueItems: true, contains: { const: "a" } },
    request: "none",
    response: "none",
  },
  {
    cls: "contains",
    name: "contains of a narrower schema than the items' is still a constraint",
    before: { type: "array", items: str },
    after: { type: "array", items: str, contains: { type: "string", maxLength: 3 } },
    request: "breaking",
    response: "safe",
  },
  // ---- not: {minLength: N+1} is maxLength: N
  {
    cls: "negated-length",
    name: "not minLength 11 on a string is maxLength 10",
    before: { type: "string", not: { minLength: 11 } },
    after: { type: "string", maxLength: 10 },
    request: "none",
    response: "none",
  },
  {
    cls: "negated-length",
    name: "not maxLength 2 on a string is minLength 3",
    before: { type: "string", not: { maxLength: 2 } },
    after: { type: "string", minLength: 3 },
    request: "none",
    response: "none",
  },
  {
    cls: "negated-length",
    name: "not minLength 11 against maxLength 9 is tighter",
    before: { type: "string", not: { minLength: 11 } },
    after: { type: "string", maxLength: 9 },
    request: "breaking",
    response: "safe",
  },
  // ---- a union alternative covered by a recursive alternative
  {
    cls: "recursive-union",
    name: "a leaf alternative beside the recursive node it is a case of",
    before: { anyOf: [ref("ProbeNode"), closed({ text: { type: "string", maxLength: 100 } }, { required: ["text"] })] },
    after: ref("ProbeNode"),
    defs: same({ ProbeNode: node }),
    request: "none",
    response: "none",
  },
  {
    cls: "recursive-union",
    name: "an alternative the recursive node does not cover",
    before: { anyOf: [ref("ProbeNode"), closed({ text: { type: "string", maxLength: 300 } }, { required: ["text"] })] },
    after: ref("ProbeNode"),
    defs: same({ ProbeNode: node }),
    request: "breaking",
    response: "safe",
  },
  {
    cls: "recursive-union",
    name: "inside the recursion: children are nodes or leaves, as children are nodes",
    before: ref("ProbeNode"),
    after: ref("ProbeNode"),
    defs: {
      before: {
        ProbeNode: closed(
          {
            text: { type: "string", maxLength: 200 },
            children: {
              type: "array",
              maxItems: 50,
              items: { anyOf: [{ $ref: "#/$defs/ProbeNode" }, { $ref: "#/$defs/ProbeLeaf" }] },
            },
          },
          { required: ["text"] },
        ),
        ProbeLeaf: closed({ text: { type: "string", maxLength: 200 } }, { required: ["text"] }),
      },
      after: {
        ProbeNode: node,
        ProbeLeaf: closed({ text: { type: "string", maxLength: 200 } }, { required: ["text"] }),
      },
    },
    request: "none",
    response: "none",
  },
  // ---- patterns equal under a length bound beside them
  {
    cls: "pattern-length",
    name: "{1,3} against + under maxLength 3",
    before: { type: "string", maxLength: 3, pattern: "^[a-z]{1,3}$" },
    after: { type: "string", maxLength: 3, pattern: "^[a-z]+$" },
    request: "none",
    response: "none",
  },
  {
    cls: "pattern-length",
    name: "* against + under minLength 1",
    before: { type: "string", minLength: 1, pattern: "^[a-z]*$" },
    after: { type: "string", minLength: 1, pattern: "^[a-z]+$" },
    request: "none",
    response: "none",
  },
  {
    cls: "pattern-length",
    name: "{1,3} against + under maxLength 4 is wider",
    before: { type: "string", maxLength: 4, pattern: "^[a-z]{1,3}$" },
    after: { type: "string", maxLength: 4, pattern: "^[a-z]+$" },
    request: "safe",
    response: "breaking",
  },
  // ---- Unicode property classes
  {
    cls: "unicode-classes",
    name: "[a-z] widened to \\p{L}",
    before: { type: "string", pattern: "^[a-z]+$" },
    after: { type: "string", pattern: "^\\p{L}+$" },
    request: "safe",
    response: "breaking",
  },
  {
    cls: "unicode-classes",
    name: "\\p{L} narrowed to [A-Za-z]",
    before: { type: "string", pattern: "^\\p{L}+$" },
    after: { type: "string", pattern: "^[A-Za-z]+$" },
    request: "breaking",
    response: "safe",
  },
  {
    cls: "unicode-classes",
    name: "\\p{L} against \\p{Letter}, and \\P{L} against [^\\p{L}]",
    before: { type: "string", pattern: "^\\p{L}+\\P{L}$" },
    after: { type: "string", pattern: "^\\p{Letter}+[^\\p{L}]$" },
    request: "none",
    response: "none",
  },
];

const SAVE = "tools/page.save.tool.json";
const APPROVAL = "/x-mnote-tool/approval";
const POLICY = "envelope/approval-policy.schema.json";
const approval = (...when: Array<[Record<string, unknown>, string]>) =>
  set(SAVE, APPROVAL, { default: "allow", when: when.map(([args, level]) => ({ args, approval: level })) });

export const ROUND4_EDITS: Round4EditRow[] = [
  // ---- approval judged per cell of the argument space
  {
    cls: "approval-cells",
    name: "two overlapping conditions swapped: a replace at revision 0 goes from ask to deny",
    before: [approval([{ mode: "replace" }, "ask"], [{ baseRevision: 0 }, "deny"])],
    after: [approval([{ baseRevision: 0 }, "deny"], [{ mode: "replace" }, "ask"])],
    expect: [["tool-approval-tightened", "breaking"]],
    messages: ['{"baseRevision":0,"mode":"replace"}: ask -> deny'],
  },
  {
    cls: "approval-cells",
    name: "two overlapping conditions swapped back: deny to ask",
    before: [approval([{ baseRevision: 0 }, "deny"], [{ mode: "replace" }, "ask"])],
    after: [approval([{ mode: "replace" }, "ask"], [{ baseRevision: 0 }, "deny"])],
    expect: [["tool-approval-loosened", "warning"]],
    messages: ['{"baseRevision":0,"mode":"replace"}: deny -> ask'],
  },
  {
    cls: "approval-cells",
    name: "a call that leaves mode out counts as append",
    before: [approval([{ mode: "replace" }, "ask"])],
    after: [approval([{ mode: "replace" }, "ask"], [{ mode: "append", baseRevision: 0 }, "deny"])],
    expect: [["tool-approval-tightened", "breaking"]],
    messages: ['{"baseRevision":0} (mode left out): allow -> deny'],
  },
  {
    cls: "approval-cells",
    name: "conditions reordered where they cannot overlap",
    before: [approval([{ mode: "replace" }, "ask"], [{ mode: "append", baseRevision: 0 }, "deny"])],
    after: [approval([{ mode: "append", baseRevision: 0 }, "deny"], [{ mode: "replace" }, "ask"])],
    expect: [],
  },
  // ---- a condition no call can match
  {
    cls: "approval-enum",
    name: "a condition on a mode outside the enum removed",
    before: [approval([{ mode: "replace" }, "ask"], [{ mode: "rewrite" }, "deny"])],
    after: [approval([{ mode: "replace" }, "ask"])],
    expect: [],
  },
  {
    cls: "approval-enum",
    name: "a condition on a value of the wrong type added",
    after: [approval([{ mode: "replace" }, "ask"], [{ baseRevision: "0" }, "deny"])],
    expect: [],
  },
  {
    cls: "approval-enum",
    name: "a condition on a mode outside the enum changes its level",
    before: [approval([{ mode: "rewrite", baseRevision: 0 }, "deny"], [{ mode: "replace" }, "ask"])],
    after: [approval([{ mode: "rewrite", baseRevision: 0 }, "allow"], [{ mode: "replace" }, "ask"])],
    expect: [],
  },
  {
    cls: "approval-enum",
    name: "a condition on a revision below the schema's minimum added",
    after: [approval([{ mode: "replace" }, "ask"], [{ baseRevision: -1 }, "deny"])],
    expect: [],
  },
  {
    cls: "approval-enum",
    name: "a condition on the other value of the enum added",
    after: [approval([{ mode: "replace" }, "ask"], [{ mode: "append" }, "deny"])],
    expect: [["tool-approval-tightened", "breaking"]],
  },
  // ---- the host's policy file schema
  {
    cls: "approval-policy",
    name: "fewer sessions in a policy file",
    after: [set(POLICY, "/$defs/ApprovalPolicy/properties/sessions/maxProperties", 100)],
    expect: [["request-constraint-tightened", "breaking"]],
  },
  {
    cls: "approval-policy",
    name: "more tools per policy",
    after: [set(POLICY, "/$defs/ApprovalToolRules/maxProperties", 128)],
    expect: [["request-constraint-loosened", "safe"]],
  },
  {
    cls: "approval-policy",
    name: "a policy file schema the base does not have is new, not narrowed",
    before: [dropFile(POLICY)],
    after: [],
    expect: [["export-added", "safe"]],
  },
  {
    cls: "approval-policy",
    name: "a new required member of the policy file",
    after: [set(POLICY, "/$defs/ApprovalPolicy/required", ["tools"])],
    expect: [["request-required-added", "breaking"]],
  },
];
