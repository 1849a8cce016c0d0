/**
 * The change table: each case is a before and an after (edits to the real contract), the changes
 * the diff must report, and, where the edit has an inverse, the changes it must report when the
 * two sides are swapped. Together they cover every rule in rules.ts (rules-table.test.ts checks).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Level, RuleId } from "../../diff/rules";
import { seventhToolFixture } from "../support/fixtures";
import { set, unset, putFile, dropFile, original, type Edit } from "./harness";

export type Expected = [rule: RuleId, level: Level, subject: string, pointer: string];

export interface Case {
  name: string;
  before?: Edit[];
  after: Edit[];
  expect: Expected[];
  /** What diffing after -> before reports; omitted when the case has no interesting inverse. */
  reverse?: Expected[];
}

const SAVE = "tools/page.save.tool.json";
const GET = "tools/page.get.tool.json";
const TITLE = "tools/page.update_title.tool.json";
const OPTIONS = "tools/page.update_options.tool.json";
const SUMMARY = "tools/artifact.create_summary.tool.json";
const AI_NOTE = "tools/artifact.create_ai_note.tool.json";
const REQUEST = "envelope/request.schema.json";
const RESPONSE = "envelope/response.schema.json";
const ERRORS = "catalog/errors.schema.json";
const CAPS = "catalog/capabilities.schema.json";
const COMMON = "model/common.schema.json";
const BLOCK = "model/block.schema.json";
const PAGE_OPTIONS = "model/page-options.schema.json";
const KERNEL_ENVELOPE = "kernel/envelope.schema.json";

const save = "mnote.page.save";
const get = "mnote.page.get";
const title = "mnote.page.update_title";
const options = "mnote.page.update_options";
const summary = "mnote.artifact.create_summary";

const ARGS = "/$defs/Args/properties";
const RESULT = "/$defs/Result/properties";
const FACTS = "/x-mnote-tool";
const KERNEL_COMMANDS_WITH_COMMAND_ID = [
  "artifact.aiNote.create",
  "artifact.summary.upsert",
  "page.body.save",
  "page.head.updateTitle",
  "page.layout.updateOptions",
  "page.snapshot.read",
];

/** The same schema as a field "probe" of a request (update_title's Args) and of a response (get's Result). */
function probe(schema: unknown): Edit[] {
  return [set(TITLE, `${ARGS}/probe`, schema), set(GET, `${RESULT}/probe`, schema)];
}

/** A heading tree in model/common.schema.json whose children are leaves, or trees again. */
const OUTLINE = { $ref: "../model/common.schema.json#/$defs/ProbeNode" };
const outlineText = { type: "string", maxLength: 200 };
const outlineLeaf = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: { text: outlineText },
};
const outlineNode = (items: string) => ({
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: { text: outlineText, children: { type: "array", maxItems: 50, items: { $ref: `#/$defs/${items}` } } },
});
function outline(kind: typeof outlineLeaf | typeof outlineNode): Edit[] {
  return [
    set(COMMON, "/$defs/ProbeLeaf", outlineLeaf),
    set(COMMON, "/$defs/ProbeNode", kind === outlineLeaf ? outlineNode("ProbeLeaf") : outlineNode("ProbeNode")),
  ];
}

function seventhTool(): Edit[] {
  const read = (p: string) => JSON.parse(readFileSync(join(seventhToolFixture, p), "utf8"));
  return [
    putFile("tools/page.get_outline.tool.json", read("tools/page.get_outline.tool.json")),
    putFile("kernel/page.outline.read.command.json", read("kernel/page.outline.read.command.json")),
  ];
}

function renamedCommand(): Edit {
  const command = original<{ $id: string; "x-mnote-kernel-command": { name: string } }>(
    "kernel/page.body.save.command.json",
  );
  command.$id = "https://mnote.dev/contract/kernel/page.body.write.command.json";
  command["x-mnote-kernel-command"].name = "page.body.write";
  return putFile("kernel/page.body.write.command.json", command);
}

const newError = {
  // (not mnote_tool_rate_limited: the contract has that one since issue 44)
  const: "mnote_tool_quota_exceeded",
  description: "Too many calls in a short time; wait and retry.",
  "x-mnote-error": { retryable: true, messages: { "zh-CN": "调用过于频繁", en: "Too many calls" } },
};

const newCapability = {
  const: "page.comment",
  description: "Comment on a page.",
  "x-mnote-capability": { requires: ["page.read"], deniedReason: "page_comment" },
};

export const CASES: Case[] = [
  // ---- tools and their facts
  {
    name: "a new tool",
    after: seventhTool(),
    expect: [
      ["tool-added", "safe", "mnote.page.get_outline", ""],
      ["kernel-command-added", "safe", "kernel:page.outline.read", ""],
    ],
    reverse: [
      ["tool-removed", "breaking", "mnote.page.get_outline", ""],
      ["kernel-command-removed", "breaking", "kernel:page.outline.read", ""],
    ],
  },
  {
    name: "a renamed tool (same kernel command)",
    after: [set(GET, `${FACTS}/name`, "mnote.page.read")],
    // The toolset description names the tool as the model calls it: the model reads another name.
    expect: [
      ["tool-renamed", "breaking", get, `${FACTS}/name`],
      ["description-changed", "warning", "contract", "/toolsetDescription"],
    ],
    reverse: [
      ["tool-renamed", "breaking", "mnote.page.read", `${FACTS}/name`],
      ["description-changed", "warning", "contract", "/toolsetDescription"],
    ],
  },
  {
    name: "a changed provider-safe name",
    after: [set(SAVE, `${FACTS}/providerName`, "mnote_save_page")],
    expect: [
      ["tool-provider-name-changed", "breaking", save, `${FACTS}/providerName`],
      ["description-changed", "warning", "contract", "/toolsetDescription"],
    ],
    reverse: [
      ["tool-provider-name-changed", "breaking", save, `${FACTS}/providerName`],
      ["description-changed", "warning", "contract", "/toolsetDescription"],
    ],
  },
  {
    name: "a changed kernel command",
    after: [renamedCommand(), set(SAVE, `${FACTS}/kernelCommand`, "page.body.write")],
    expect: [
      ["tool-kernel-command-changed", "breaking", save, `${FACTS}/kernelCommand`],
      ["kernel-command-added", "safe", "kernel:page.body.write", ""],
    ],
    reverse: [
      ["tool-kernel-command-changed", "breaking", save, `${FACTS}/kernelCommand`],
      ["kernel-command-removed", "breaking", "kernel:page.body.write", ""],
    ],
  },
  {
    name: "a changed capability",
    after: [set(SAVE, `${FACTS}/capability`, "artifact.write")],
    expect: [["tool-capability-changed", "breaking", save, `${FACTS}/capability`]],
    reverse: [["tool-capability-changed", "breaking", save, `${FACTS}/capability`]],
  },
  {
    name: "a read tool becomes a write (effect, idempotency and dryRun go together)",
    after: [
      set("kernel/page.snapshot.read.command.json", "/x-mnote-kernel-command/effect", "write"),
      set(GET, `${FACTS}/effect`, "write"),
      set(GET, `${FACTS}/idempotency`, "required"),
      set(GET, `${FACTS}/dryRun`, "required"),
    ],
    expect: [
      ["tool-dry-run-changed", "breaking", get, `${FACTS}/dryRun`],
      ["tool-effect-changed", "breaking", get, `${FACTS}/effect`],
      ["tool-idempotency-changed", "breaking", get, `${FACTS}/idempotency`],
      ["kernel-command-effect-changed", "breaking", "kernel:page.snapshot.read", "/x-mnote-kernel-command/effect"],
    ],
    reverse: [
      ["tool-dry-run-changed", "breaking", get, `${FACTS}/dryRun`],
      ["tool-effect-changed", "breaking", get, `${FACTS}/effect`],
      ["tool-idempotency-changed", "breaking", get, `${FACTS}/idempotency`],
      ["kernel-command-effect-changed", "breaking", "kernel:page.snapshot.read", "/x-mnote-kernel-command/effect"],
    ],
  },
  {
    name: "changed semantics hints",
    after: [set(SAVE, `${FACTS}/semantics/destructive`, false)],
    expect: [["tool-semantics-changed", "warning", save, `${FACTS}/semantics/destructive`]],
  },
  {
    name: "approval tightened (allow -> ask for append) and loosened back",
    after: [set(SAVE, `${FACTS}/approval/default`, "ask")],
    expect: [["tool-approval-tightened", "breaking", save, `${FACTS}/approval`]],
    reverse: [["tool-approval-loosened", "warning", save, `${FACTS}/approval`]],
  },
  {
    name: "approval: deny for every call is breaking; back from deny is a warning",
    after: [set(SAVE, `${FACTS}/approval`, "deny")],
    expect: [["tool-approval-tightened", "breaking", save, `${FACTS}/approval`]],
    reverse: [["tool-approval-loosened", "warning", save, `${FACTS}/approval`]],
  },
  {
    name: "budget: fewer calls per session is breaking; more is a loosening (warning)",
    after: [set(SAVE, `${FACTS}/budget/perSession`, 10)],
    expect: [["tool-budget-lowered", "breaking", save, `${FACTS}/budget`]],
    reverse: [["tool-budget-raised", "warning", save, `${FACTS}/budget`]],
  },
  {
    name: "budget: the same counts over a longer window are fewer calls per second (lowered)",
    after: [set(SAVE, `${FACTS}/budget/windowSeconds`, 120)],
    expect: [["tool-budget-lowered", "breaking", save, `${FACTS}/budget`]],
    reverse: [["tool-budget-raised", "warning", save, `${FACTS}/budget`]],
  },
  {
    name: "budget: a shorter window with fewer calls (a smaller burst, a higher rate): the worst, lowered, stays",
    after: [set(SAVE, `${FACTS}/budget`, { windowSeconds: 10, perSession: 20, perActor: 120, perPage: 240 })],
    expect: [["tool-budget-lowered", "breaking", save, `${FACTS}/budget`]],
  },
  {
    name: "budget: none where there was one is raised; one where there was none is lowered",
    after: [unset(SAVE, `${FACTS}/budget`)],
    expect: [["tool-budget-raised", "warning", save, `${FACTS}/budget`]],
    reverse: [["tool-budget-lowered", "breaking", save, `${FACTS}/budget`]],
  },
  {
    name: "a changed tool title",
    after: [set(SAVE, `${FACTS}/title`, "Save the page body")],
    expect: [["tool-title-changed", "warning", save, `${FACTS}/title`]],
  },
  {
    name: "a changed tool description",
    after: [set(SAVE, `${FACTS}/description`, "Write content blocks to the body of the current page.")],
    expect: [["description-changed", "warning", save, `${FACTS}/description`]],
  },
  {
    name: "a changed per-tool message override",
    after: [set(SAVE, `${FACTS}/messages/mnote_tool_idempotency_conflict/en`, "Key reused for other content")],
    expect: [["message-changed", "warning", save, `${FACTS}/messages/mnote_tool_idempotency_conflict`]],
  },

  // ---- request schemas (tool args, ToolRequest, SessionGrant)
  {
    name: "a new optional arg",
    after: [set(SAVE, `${ARGS}/note`, { type: "string", maxLength: 100 })],
    expect: [["request-property-added", "safe", save, "/args/properties/note"]],
    reverse: [["request-property-removed", "breaking", save, "/args/properties/note"]],
  },
  {
    name: "a new required arg",
    after: [
      set(SAVE, `${ARGS}/reason`, { type: "string", maxLength: 100 }),
      set(SAVE, "/$defs/Args/required/-", "reason"),
    ],
    expect: [["request-required-added", "breaking", save, "/args/properties/reason"]],
    reverse: [["request-property-removed", "breaking", save, "/args/properties/reason"]],
  },
  {
    name: "an existing arg becomes required",
    after: [set(SAVE, "/$defs/Args/required/-", "mode")],
    expect: [["request-required-added", "breaking", save, "/args/properties/mode"]],
    reverse: [["request-required-removed", "safe", save, "/args/properties/mode"]],
  },
  {
    name: "an arg accepts another type",
    after: [set(GET, `${ARGS}/includeBody/type`, ["boolean", "null"])],
    expect: [["request-type-widened", "safe", get, "/args/properties/includeBody/type"]],
    reverse: [["request-type-narrowed", "breaking", get, "/args/properties/includeBody/type"]],
  },
  {
    name: "an arg's enum loses a value",
    after: [set(SAVE, `${ARGS}/mode/enum`, ["append"])],
    expect: [["request-enum-narrowed", "breaking", save, "/args/properties/mode/enum"]],
    reverse: [["request-enum-widened", "safe", save, "/args/properties/mode/enum"]],
  },
  {
    name: "a tighter maxLength on an arg",
    after: [set(TITLE, `${ARGS}/title/maxLength`, 200)],
    expect: [["request-constraint-tightened", "breaking", title, "/args/properties/title/maxLength"]],
    reverse: [["request-constraint-loosened", "safe", title, "/args/properties/title/maxLength"]],
  },
  {
    name: "a new pattern on an arg",
    after: [set(SUMMARY, `${ARGS}/summary/pattern`, "^\\S")],
    expect: [["request-constraint-tightened", "breaking", summary, "/args/properties/summary/pattern"]],
    reverse: [["request-constraint-loosened", "safe", summary, "/args/properties/summary/pattern"]],
  },
  {
    name: "a changed pattern on an arg (neither tighter nor looser)",
    // " " passes only the new pattern, "É" only the old one.
    after: [set(TITLE, `${ARGS}/title/pattern`, "^[a-z ]+$")],
    expect: [["request-constraint-changed", "breaking", title, "/args/properties/title/pattern"]],
    reverse: [["request-constraint-changed", "breaking", title, "/args/properties/title/pattern"]],
  },
  {
    name: "multipleOf 2 becomes 4",
    before: [set(SAVE, `${ARGS}/batch`, { type: "integer", multipleOf: 2 })],
    after: [set(SAVE, `${ARGS}/batch`, { type: "integer", multipleOf: 4 })],
    expect: [["request-constraint-tightened", "breaking", save, "/args/properties/batch/multipleOf"]],
    reverse: [["request-constraint-loosened", "safe", save, "/args/properties/batch/multipleOf"]],
  },
  {
    name: "additionalProperties turned off for ToolRequest.args",
    after: [set(REQUEST, "/$defs/ToolRequest/properties/args/additionalProperties", false)],
    expect: [
      [
        "request-additional-properties-closed",
        "breaking",
        "envelope",
        "/ToolRequest/properties/args/additionalProperties",
      ],
    ],
    reverse: [
      ["request-additional-properties-opened", "safe", "envelope", "/ToolRequest/properties/args/additionalProperties"],
    ],
  },
  {
    name: "an arg becomes nullable",
    after: [
      set(SAVE, `${ARGS}/baseRevision`, {
        description: "The revision you read; the write fails with mnote_tool_conflict if the page has changed since.",
        anyOf: [{ $ref: "../model/common.schema.json#/$defs/Revision" }, { type: "null" }],
      }),
    ],
    // anyOf [X, {type: null}] is X with "null" added to its type (normalize.ts).
    expect: [["request-type-widened", "safe", save, "/args/properties/baseRevision/type"]],
    reverse: [["request-type-narrowed", "breaking", save, "/args/properties/baseRevision/type"]],
  },
  {
    // a call without mode is a replace now, which the contract asks approval for
    name: "a changed default of an arg (and with it the approval of calls that leave it out)",
    after: [set(SAVE, `${ARGS}/mode/default`, "replace")],
    expect: [
      ["request-default-changed", "breaking", save, "/args/properties/mode/default"],
      ["tool-approval-tightened", "breaking", save, `${FACTS}/approval`],
    ],
    reverse: [
      ["request-default-changed", "breaking", save, "/args/properties/mode/default"],
      ["tool-approval-loosened", "warning", save, `${FACTS}/approval`],
    ],
  },
  {
    name: "a page option stops being wired (request: calls fail; response: annotation)",
    after: [set(PAGE_OPTIONS, "/$defs/PageOptions/properties/smallText/x-mnote-runtimeSupport", "planned")],
    expect: [
      [
        "annotation-changed",
        "warning",
        get,
        "/result/properties/pageOptions/properties/smallText/x-mnote-runtimeSupport",
      ],
      [
        "request-option-unwired",
        "breaking",
        options,
        "/args/properties/options/properties/smallText/x-mnote-runtimeSupport",
      ],
    ],
    reverse: [
      [
        "annotation-changed",
        "warning",
        get,
        "/result/properties/pageOptions/properties/smallText/x-mnote-runtimeSupport",
      ],
      ["request-option-wired", "safe", options, "/args/properties/options/properties/smallText/x-mnote-runtimeSupport"],
    ],
  },
  {
    name: "an arg marked deprecated",
    after: [set(SAVE, `${ARGS}/mode/deprecated`, true)],
    expect: [["annotation-changed", "warning", save, "/args/properties/mode/deprecated"]],
    reverse: [["annotation-changed", "warning", save, "/args/properties/mode/deprecated"]],
  },
  {
    name: "a new not on an arg (stricter, not a warning)",
    after: [set(TITLE, `${ARGS}/title/not`, { const: "untitled" })],
    expect: [["request-constraint-tightened", "breaking", title, "/args/properties/title/not"]],
    reverse: [["request-constraint-loosened", "safe", title, "/args/properties/title/not"]],
  },
  {
    name: "a new locale: both request definitions that use Locale widen",
    after: [set(COMMON, "/$defs/Locale/enum/-", "ja")],
    expect: [
      ["request-enum-widened", "safe", "envelope", "/SessionGrant/properties/locale/enum"],
      ["request-enum-widened", "safe", "envelope", "/ToolRequest/properties/locale/enum"],
    ],
    reverse: [
      ["request-enum-narrowed", "breaking", "envelope", "/SessionGrant/properties/locale/enum"],
      ["request-enum-narrowed", "breaking", "envelope", "/ToolRequest/properties/locale/enum"],
    ],
  },

  // ---- kernel commands (the other side of the contract)
  {
    name: "a renamed kernel command (the tool moved to it)",
    after: [
      renamedCommand(),
      dropFile("kernel/page.body.save.command.json"),
      set(SAVE, `${FACTS}/kernelCommand`, "page.body.write"),
    ],
    expect: [
      ["tool-kernel-command-changed", "breaking", save, `${FACTS}/kernelCommand`],
      ["kernel-command-renamed", "breaking", "kernel:page.body.save", "/x-mnote-kernel-command/name"],
    ],
    reverse: [
      ["tool-kernel-command-changed", "breaking", save, `${FACTS}/kernelCommand`],
      ["kernel-command-renamed", "breaking", "kernel:page.body.write", "/x-mnote-kernel-command/name"],
    ],
  },
  {
    name: "a new required field in KernelContext (a request to the kernel)",
    after: [
      set("kernel/envelope.schema.json", "/$defs/KernelContext/properties/locale", {
        $ref: "../model/common.schema.json#/$defs/Locale",
      }),
      set("kernel/envelope.schema.json", "/$defs/KernelContext/required/-", "locale"),
    ],
    expect: [["request-required-added", "breaking", "envelope", "/KernelContext/properties/locale"]],
    reverse: [["request-property-removed", "breaking", "envelope", "/KernelContext/properties/locale"]],
  },
  {
    name: "a kernel result field no longer required (a response of the kernel)",
    after: [set("kernel/page.body.save.command.json", "/$defs/Result/required", ["commandId", "result"])],
    expect: [["response-required-removed", "breaking", "kernel:page.body.save", "/result/properties/replayed"]],
    reverse: [
      ["response-required-added", "safe", "kernel:page.body.save", "/result/properties/replayed"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.body.save", "/result/properties/replayed"],
    ],
  },
  {
    name: "a kernel payload field tightened",
    after: [set("kernel/page.body.save.command.json", "/$defs/Payload/properties/dryRun", { const: false })],
    expect: [["request-enum-narrowed", "breaking", "kernel:page.body.save", "/payload/properties/dryRun/const"]],
    reverse: [["request-enum-widened", "safe", "kernel:page.body.save", "/payload/properties/dryRun/const"]],
  },
  {
    name: "a new ToolResponse variant",
    after: [set(RESPONSE, "/$defs/ToolResponse/anyOf/-", { type: "null" })],
    expect: [["response-variant-added", "breaking", "envelope", "/ToolResponse/anyOf/2"]],
    reverse: [["response-variant-removed", "safe", "envelope", "/ToolResponse/anyOf/2"]],
  },

  {
    name: "capabilityScope items: the catalog's consts become a string type that accepts them all",
    after: [set(REQUEST, "/$defs/ToolRequest/properties/capabilityScope/items", { type: "string", maxLength: 32 })],
    // The definition's own description goes with it: a warning, the model reads descriptions.
    expect: [
      ["request-enum-widened", "safe", "envelope", "/ToolRequest/properties/capabilityScope/items/enum"],
      ["description-changed", "warning", "envelope", "/ToolRequest/properties/capabilityScope/items/description"],
    ],
    reverse: [
      ["request-enum-narrowed", "breaking", "envelope", "/ToolRequest/properties/capabilityScope/items/enum"],
      ["description-changed", "warning", "envelope", "/ToolRequest/properties/capabilityScope/items/description"],
    ],
  },
  {
    name: "ToolError.code: the catalog $ref replaced by a string is one finding, not one per code",
    after: [set(RESPONSE, "/$defs/ToolError/properties/code", { type: "string", maxLength: 64 })],
    // The definition's own description goes with it: a warning, the model reads descriptions.
    expect: [
      ["response-enum-widened", "breaking", "envelope", "/ToolError/properties/code/enum"],
      ["description-changed", "warning", "envelope", "/ToolError/properties/code/description"],
    ],
    reverse: [
      ["response-enum-narrowed", "safe", "envelope", "/ToolError/properties/code/enum"],
      ["description-changed", "warning", "envelope", "/ToolError/properties/code/description"],
    ],
  },

  // ---- constructs judged by the values they accept (more in semantic-cases.ts)
  {
    name: "a new anyOf alternative in a request and a response",
    before: probe({ anyOf: [{ type: "string" }, { type: "integer" }] }),
    after: probe({ anyOf: [{ type: "string" }, { type: "integer" }, { type: "boolean" }] }),
    expect: [
      ["request-variant-added", "safe", title, "/args/properties/probe/anyOf/2"],
      ["response-variant-added", "breaking", get, "/result/properties/probe/anyOf/2"],
    ],
    reverse: [
      ["request-variant-removed", "breaking", title, "/args/properties/probe/anyOf/2"],
      ["response-variant-removed", "safe", get, "/result/properties/probe/anyOf/2"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/probe/anyOf/2"],
    ],
  },
  {
    name: "a declared field removed from an open object",
    before: probe({ type: "object", properties: { a: { type: "string" } } }),
    after: probe({ type: "object" }),
    expect: [
      ["request-property-unlisted", "safe", title, "/args/properties/probe/properties/a"],
      ["response-property-unlisted", "breaking", get, "/result/properties/probe/properties/a"],
    ],
  },
  {
    name: "a changed if condition (could not prove)",
    // two names in the if: no dependentRequired says it (normalize.ts)
    before: probe({ type: "object", if: { required: ["a", "d"] }, then: { required: ["b"] } }),
    after: probe({ type: "object", if: { required: ["c", "d"] }, then: { required: ["b"] } }),
    expect: [
      ["request-unproven-narrowing", "breaking", title, "/args/properties/probe/if"],
      ["response-unproven-widening", "breaking", get, "/result/properties/probe/if"],
      ["kernel-reply-unproven-narrowing", "breaking", "mnote.page.get", "/result/properties/probe/if"],
    ],
  },

  // ---- response schemas (tool results, ToolSuccess, ToolFailure, Audit, ToolError)
  {
    name: "a new response field",
    after: [set(GET, `${RESULT}/createdAt`, { type: "string", format: "date-time", maxLength: 64 })],
    expect: [["response-property-added", "safe", get, "/result/properties/createdAt"]],
    reverse: [
      ["optional-response-field-removed", "breaking", get, "/result/properties/createdAt"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/createdAt"],
    ],
  },
  {
    name: "a response field becomes optional",
    after: [set(GET, "/$defs/Result/required", ["documentId", "workspaceId", "title"])],
    expect: [["response-required-removed", "breaking", get, "/result/properties/revision"]],
    reverse: [
      ["response-required-added", "safe", get, "/result/properties/revision"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/revision"],
    ],
  },
  {
    name: "a response field becomes nullable by type",
    after: [set(GET, `${RESULT}/title/type`, ["string", "null"])],
    expect: [["response-type-widened", "breaking", get, "/result/properties/title/type"]],
    reverse: [
      ["response-type-narrowed", "safe", get, "/result/properties/title/type"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/title/type"],
    ],
  },
  {
    name: "a new audit effect (response enum widened, reported once, under Audit)",
    after: [set(RESPONSE, "/$defs/AuditEffect/enum/-", "replay")],
    expect: [["response-enum-widened", "breaking", "envelope", "/Audit/properties/effect/enum"]],
    reverse: [["response-enum-narrowed", "safe", "envelope", "/Audit/properties/effect/enum"]],
  },
  {
    name: "a looser maxLength on a response field",
    after: [set(GET, `${RESULT}/title/maxLength`, 1000)],
    expect: [["response-constraint-loosened", "breaking", get, "/result/properties/title/maxLength"]],
    reverse: [
      ["response-constraint-tightened", "safe", get, "/result/properties/title/maxLength"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/title/maxLength"],
    ],
  },
  {
    name: "a looser pattern on an arg (every title the old one took still passes)",
    after: [set(TITLE, `${ARGS}/title/pattern`, "^[^\\r\\n]+$")],
    expect: [["request-constraint-loosened", "safe", title, "/args/properties/title/pattern"]],
    reverse: [["request-constraint-tightened", "breaking", title, "/args/properties/title/pattern"]],
  },
  {
    name: "a changed pattern in a response",
    after: [set(COMMON, "/$defs/CommandId/pattern", "^cmd_[a-z][a-z0-9_.]*$")],
    // One edit in common.schema.json: every surface that carries a CommandId sees it (reported grouped).
    expect: [
      ["response-constraint-changed", "breaking", "envelope", "/Audit/properties/commandId/pattern"],
      ["request-constraint-changed", "breaking", "envelope", "/KernelWrite/properties/commandId/pattern"],
      ...KERNEL_COMMANDS_WITH_COMMAND_ID.map((k): Expected => [
        "response-constraint-changed",
        "breaking",
        `kernel:${k}`,
        "/result/properties/commandId/pattern",
      ]),
      // command.status takes a command id (a request to the kernel) and answers one
      ["request-constraint-changed", "breaking", "kernel:command.status", "/payload/properties/commandId/pattern"],
      [
        "response-constraint-changed",
        "breaking",
        "kernel:command.status",
        "/result/properties/result/properties/commandId/pattern",
      ],
      ["kernel-reply-narrowed", "breaking", "kernel:artifact.aiNote.create", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:artifact.summary.upsert", "/result/properties/commandId/pattern"],
      [
        "kernel-reply-narrowed",
        "breaking",
        "kernel:command.status",
        "/result/properties/result/properties/commandId/pattern",
      ],
      ["kernel-reply-narrowed", "breaking", "kernel:page.body.save", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.head.updateTitle", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.layout.updateOptions", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.snapshot.read", "/result/properties/commandId/pattern"],
    ],
    reverse: [
      ["response-constraint-changed", "breaking", "envelope", "/Audit/properties/commandId/pattern"],
      ["request-constraint-changed", "breaking", "envelope", "/KernelWrite/properties/commandId/pattern"],
      ...KERNEL_COMMANDS_WITH_COMMAND_ID.map((k): Expected => [
        "response-constraint-changed",
        "breaking",
        `kernel:${k}`,
        "/result/properties/commandId/pattern",
      ]),
      // command.status takes a command id (a request to the kernel) and answers one
      ["request-constraint-changed", "breaking", "kernel:command.status", "/payload/properties/commandId/pattern"],
      [
        "response-constraint-changed",
        "breaking",
        "kernel:command.status",
        "/result/properties/result/properties/commandId/pattern",
      ],
      ["kernel-reply-narrowed", "breaking", "kernel:artifact.aiNote.create", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:artifact.summary.upsert", "/result/properties/commandId/pattern"],
      [
        "kernel-reply-narrowed",
        "breaking",
        "kernel:command.status",
        "/result/properties/result/properties/commandId/pattern",
      ],
      ["kernel-reply-narrowed", "breaking", "kernel:page.body.save", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.head.updateTitle", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.layout.updateOptions", "/result/properties/commandId/pattern"],
      ["kernel-reply-narrowed", "breaking", "kernel:page.snapshot.read", "/result/properties/commandId/pattern"],
    ],
  },
  {
    name: "additionalProperties turned off for ToolSuccess.result",
    after: [set(RESPONSE, "/$defs/ToolSuccess/properties/result/additionalProperties", false)],
    expect: [
      [
        "response-additional-properties-closed",
        "safe",
        "envelope",
        "/ToolSuccess/properties/result/additionalProperties",
      ],
    ],
    reverse: [
      [
        "response-additional-properties-opened",
        "breaking",
        "envelope",
        "/ToolSuccess/properties/result/additionalProperties",
      ],
    ],
  },
  {
    name: "page options allow unknown keys (request looser, response looser)",
    after: [set(PAGE_OPTIONS, "/$defs/PageOptions/additionalProperties", true)],
    expect: [
      ["response-additional-properties-opened", "breaking", get, "/result/properties/pageOptions/additionalProperties"],
      ["request-additional-properties-opened", "safe", options, "/args/properties/options/additionalProperties"],
    ],
    reverse: [
      ["response-additional-properties-closed", "safe", get, "/result/properties/pageOptions/additionalProperties"],
      ["request-additional-properties-closed", "breaking", options, "/args/properties/options/additionalProperties"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/pageOptions/additionalProperties"],
    ],
  },
  {
    name: "audit.commandId is no longer nullable",
    after: [
      set(RESPONSE, "/$defs/Audit/properties/commandId", { $ref: "../model/common.schema.json#/$defs/CommandId" }),
    ],
    expect: [["response-type-narrowed", "safe", "envelope", "/Audit/properties/commandId/type"]],
    reverse: [["response-type-widened", "breaking", "envelope", "/Audit/properties/commandId/type"]],
  },
  {
    name: "a new block type: the arg (request) and the result (response) disagree",
    after: [set(BLOCK, "/$defs/BlockType/enum/-", "callout")],
    expect: [
      ["response-enum-widened", "breaking", get, "/result/properties/blocks/items/properties/type/enum"],
      ["request-enum-widened", "safe", save, "/args/properties/content/items/properties/type/enum"],
    ],
    reverse: [
      ["request-enum-narrowed", "breaking", save, "/args/properties/content/items/properties/type/enum"],
      ["response-enum-narrowed", "safe", get, "/result/properties/blocks/items/properties/type/enum"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/blocks/items/properties/type/enum"],
    ],
  },
  {
    name: "a default in a response schema",
    after: [set(GET, `${RESULT}/bodySummary/default`, "")],
    expect: [["response-default-changed", "warning", get, "/result/properties/bodySummary/default"]],
    reverse: [["response-default-changed", "warning", get, "/result/properties/bodySummary/default"]],
  },
  {
    name: "a default on a required field only documents (it never applies)",
    after: [set(GET, `${RESULT}/title/default`, ""), set(TITLE, `${ARGS}/title/default`, "Untitled")],
    expect: [
      ["annotation-changed", "warning", get, "/result/properties/title/default"],
      ["annotation-changed", "warning", title, "/args/properties/title/default"],
    ],
  },
  {
    name: "a changed description behind a $ref",
    after: [set(BLOCK, "/$defs/ContentBlock/properties/checked/description", "Whether the to-do item is ticked.")],
    expect: [["description-changed", "warning", get, "/result/properties/blocks/items/properties/checked/description"]],
  },

  // ---- catalogs and the manifest
  {
    name: "a new error code (not a widened enum in ToolError or DryRunWarning)",
    after: [set(ERRORS, "/$defs/ErrorCode/oneOf/-", newError)],
    expect: [["error-code-added", "safe", "errors", "/mnote_tool_quota_exceeded"]],
    reverse: [["error-code-removed", "breaking", "errors", "/mnote_tool_quota_exceeded"]],
  },
  {
    name: "a code changes retryable",
    after: [set(ERRORS, "/$defs/ErrorCode/oneOf/0/x-mnote-error/retryable", true)],
    expect: [["error-retryable-changed", "warning", "errors", "/mnote_tool_invalid_input/retryable"]],
    reverse: [["error-retryable-changed", "warning", "errors", "/mnote_tool_invalid_input/retryable"]],
  },
  {
    name: "a new reason for a code",
    after: [
      set(ERRORS, "/$defs/ErrorCode/oneOf/3/x-mnote-error/reasons/grant_revoked", {
        "zh-CN": "会话授权已撤销",
        en: "The session grant was revoked",
      }),
    ],
    expect: [["error-reason-added", "safe", "errors", "/mnote_tool_not_authenticated/reasons/grant_revoked"]],
    reverse: [["error-reason-removed", "warning", "errors", "/mnote_tool_not_authenticated/reasons/grant_revoked"]],
  },
  {
    name: "a changed catalog message",
    after: [set(ERRORS, "/$defs/ErrorCode/oneOf/0/x-mnote-error/messages/en", "Invalid request")],
    expect: [["message-changed", "warning", "errors", "/mnote_tool_invalid_input/messages/en"]],
  },
  {
    name: "a changed error description",
    after: [set(ERRORS, "/$defs/ErrorCode/oneOf/2/description", "No tool has this name.")],
    expect: [["description-changed", "warning", "errors", "/mnote_tool_unknown_tool/description"]],
  },
  {
    name: "a new capability (not a widened enum in ToolRequest.capabilityScope)",
    after: [set(CAPS, "/$defs/CapabilityScope/oneOf/-", newCapability)],
    expect: [["capability-added", "safe", "capabilities", "/page.comment"]],
    reverse: [["capability-removed", "breaking", "capabilities", "/page.comment"]],
  },
  {
    name: "a capability requires another",
    after: [set(CAPS, "/$defs/CapabilityScope/oneOf/2/x-mnote-capability/requires/-", "page.write")],
    expect: [["capability-requires-added", "breaking", "capabilities", "/artifact.write/requires"]],
    reverse: [["capability-requires-removed", "safe", "capabilities", "/artifact.write/requires"]],
  },
  {
    name: "a changed denied reason",
    after: [set(CAPS, "/$defs/CapabilityScope/oneOf/1/x-mnote-capability/deniedReason", "page_edit")],
    expect: [["capability-denied-reason-changed", "warning", "capabilities", "/page.write/deniedReason"]],
  },
  {
    name: "a changed contract title",
    after: [set("contract.json", "/title", "mnote page-AI tools")],
    expect: [["contract-metadata-changed", "warning", "contract", "/title"]],
  },

  // ---- x-mnote-* facts, judged with their direction (more in round3-cases.ts)
  {
    name: "the guide's roles of two tools swapped",
    after: [set(SUMMARY, `${FACTS}/guideRole`, "note"), set(AI_NOTE, `${FACTS}/guideRole`, "summary")],
    expect: [
      ["tool-guide-role-changed", "warning", summary, `${FACTS}/guideRole`],
      ["tool-guide-role-changed", "warning", "mnote.artifact.create_ai_note", `${FACTS}/guideRole`],
    ],
  },
  {
    name: "a lower page block limit (a narrower request for writers, whatever schema states it)",
    after: [set(GET, `${RESULT}/blocks/maxItems`, 1500)],
    expect: [["limit-lowered", "breaking", "limits", "/pageBlocks"]],
    reverse: [["limit-raised", "breaking", "limits", "/pageBlocks"]],
  },
  {
    name: "a renamed limit: the package exports another name",
    after: [set(GET, `${RESULT}/blocks/x-mnote-limit`, "pageBlockLimit")],
    expect: [
      ["export-removed", "breaking", "package", "/limits/pageBlocks"],
      ["export-added", "safe", "package", "/limits/pageBlockLimit"],
    ],
  },
  {
    name: "another initial value for a page option",
    after: [set(PAGE_OPTIONS, "/$defs/PageOptions/properties/showToc/x-mnote-initialValue", true)],
    expect: [
      [
        "response-initial-value-changed",
        "breaking",
        get,
        "/result/properties/pageOptions/properties/showToc/x-mnote-initialValue",
      ],
      [
        "request-initial-value-changed",
        "breaking",
        options,
        "/args/properties/options/properties/showToc/x-mnote-initialValue",
      ],
    ],
  },
  {
    name: "a request field the model wrote is now the host's",
    after: [set(REQUEST, "/$defs/ToolRequest/properties/dryRun/x-mnote-filledBy", "host")],
    expect: [["request-filled-by-changed", "breaking", "envelope", "/ToolRequest/properties/dryRun/x-mnote-filledBy"]],
    reverse: [["request-filled-by-changed", "breaking", "envelope", "/ToolRequest/properties/dryRun/x-mnote-filledBy"]],
  },

  // ---- recursion compared by structure
  {
    name: "a leaf becomes the recursive definition (the tree grows deeper)",
    before: [...outline(outlineLeaf), ...probe(OUTLINE)],
    after: [...outline(outlineNode), ...probe(OUTLINE)],
    expect: [
      ["response-nesting-deepened", "breaking", get, "/result/properties/probe/properties/children/items"],
      [
        "response-property-added",
        "safe",
        get,
        "/result/properties/probe/properties/children/items/properties/children",
      ],
      ["request-nesting-deepened", "safe", title, "/args/properties/probe/properties/children/items"],
      ["request-property-added", "safe", title, "/args/properties/probe/properties/children/items/properties/children"],
    ],
    reverse: [
      ["response-nesting-reduced", "safe", get, "/result/properties/probe/properties/children/items"],
      [
        "optional-response-field-removed",
        "breaking",
        get,
        "/result/properties/probe/properties/children/items/properties/children",
      ],
      ["request-nesting-reduced", "breaking", title, "/args/properties/probe/properties/children/items"],
      [
        "request-property-removed",
        "breaking",
        title,
        "/args/properties/probe/properties/children/items/properties/children",
      ],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/probe/properties/children/items"],
      [
        "kernel-reply-narrowed",
        "breaking",
        "mnote.page.get",
        "/result/properties/probe/properties/children/items/properties/children",
      ],
    ],
  },

  // ---- refactors that change no behaviour
  {
    name: "a result field moved behind a $ref",
    after: [
      set(COMMON, "/$defs/PageTitle", { type: "string", maxLength: 500 }),
      set(GET, `${RESULT}/title`, { $ref: "../model/common.schema.json#/$defs/PageTitle" }),
    ],
    // The new definition is a new exported type; the result accepts the same values.
    expect: [["export-added", "safe", "package", "/types/PageTitle"]],
    reverse: [["export-removed", "breaking", "package", "/types/PageTitle"]],
  },
  {
    name: "a $ref'd arg written out in place",
    after: [
      set(SAVE, `${ARGS}/baseRevision`, {
        description: "The revision you read; the write fails with mnote_tool_conflict if the page has changed since.",
        type: "integer",
        minimum: 0,
        maximum: 9007199254740991,
      }),
    ],
    expect: [],
    reverse: [],
  },
  {
    name: "reordered enum values and anyOf alternatives",
    after: [
      set(SAVE, `${ARGS}/mode/enum`, ["append", "replace"]),
      set(SAVE, "/$defs/Result/anyOf", [
        { $ref: "../envelope/results.schema.json#/$defs/DryRunResult" },
        { $ref: "../envelope/results.schema.json#/$defs/PageWriteResult" },
      ]),
    ],
    expect: [],
  },
  {
    name: "a type written next to an enum of strings narrows nothing",
    before: [unset(SAVE, `${ARGS}/mode/type`)],
    after: [],
    expect: [],
    reverse: [],
  },
  {
    name: "an enum becomes a const of one of its values",
    after: [unset(SAVE, `${ARGS}/mode/enum`), set(SAVE, `${ARGS}/mode/const`, "append")],
    expect: [["request-enum-narrowed", "breaking", save, "/args/properties/mode/const"]],
    reverse: [["request-enum-widened", "safe", save, "/args/properties/mode/enum"]],
  },
  {
    name: "a removed required-and-present field is one change, not two",
    after: [
      unset(GET, `${RESULT}/revision`),
      set(GET, "/$defs/Result/required", ["documentId", "workspaceId", "title"]),
    ],
    expect: [
      ["response-property-removed", "breaking", get, "/result/properties/revision"],
      ["kernel-reply-narrowed", "breaking", "mnote.page.get", "/result/properties/revision"],
    ],
  },
  // ---- the kernel as its own audience (issue 45)
  {
    name: "a kernel error's reason is now required: kernels that leave it out fail the client's check",
    after: [set(KERNEL_ENVELOPE, "/$defs/KernelError/required", ["code", "reason"])],
    expect: [
      ["kernel-reply-narrowed", "breaking", "envelope", "/KernelError/properties/reason"],
      ["response-required-added", "safe", "envelope", "/KernelError/properties/reason"],
    ],
  },
  {
    name: "a kernel error's reason pattern changed to one the comparison cannot read",
    before: [set(KERNEL_ENVELOPE, "/$defs/KernelError/properties/reason/pattern", "^a")],
    after: [set(KERNEL_ENVELOPE, "/$defs/KernelError/properties/reason/pattern", "^(?=a)")],
    expect: [
      ["kernel-reply-unproven-narrowing", "breaking", "envelope", "/KernelError/properties/reason/pattern"],
      ["response-unproven-widening", "breaking", "envelope", "/KernelError/properties/reason/pattern"],
    ],
  },
  {
    name: "an optional response field removed from a closed result: code reading the type breaks, callers do not",
    after: [unset(GET, `${RESULT}/bodySummary`)],
    expect: [
      ["optional-response-field-removed", "breaking", get, "/result/properties/bodySummary"],
      ["kernel-reply-narrowed", "breaking", get, "/result/properties/bodySummary"],
      ["export-removed", "breaking", "package", "/truncations/bodySummary"],
    ],
  },
];
