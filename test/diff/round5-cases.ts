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
import { set, type Edit } from "./harness";

export const CLASSES = ["approval-null", "pattern-properties", "kernel-audience"] as const;
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

export const ROUND5_ROWS: Round5Row[] = [
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
];

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
];
