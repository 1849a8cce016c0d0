/**
 * Every rule `mnote-tools diff` reports, as plain data: docs/CONTRACT-DIFF.md, the severity file's
 * schema (codegen/diff-rules.schema.json) and the tests read this table, so a rule cannot exist in
 * the code without a level, its categories, a summary and a test case.
 *
 * Levels are fixed per rule: what the change does. Schema rules come in request/response pairs
 * because the same edit has opposite effects: a request is written by callers (stricter breaks
 * them), a response is read by callers (looser breaks them). What a run does with a level (fail,
 * warn, report, hide) is the severity, chosen per rule in the severity file (severity.ts).
 *
 * Categories say which compatibility a rule is about, so a team can judge only some: wire (the
 * JSON envelopes callers send and read), source (the generated types, registry and plugin API code
 * compiles against), model (what the model reads: names, descriptions, provider variants), kernel
 * (kernel payloads, results and the facts kernels read). "surface" stands for the category of the
 * schema the rule fired in: wire for tools and the envelope, kernel for kernel commands and the
 * kernel envelope.
 */

export type Level = "breaking" | "warning" | "safe";

export const CATEGORIES = ["wire", "source", "model", "kernel"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface RuleDef {
  readonly id: string;
  readonly level: Level;
  readonly area: "tool" | "kernel" | "schema" | "errors" | "capabilities" | "contract" | "facts";
  readonly categories: ReadonlyArray<Category | "surface">;
  readonly summary: string;
}

export const RULES = [
  {
    id: "tool-added",
    level: "safe",
    area: "tool",
    categories: ["wire", "source", "model"],
    summary: "A new tool.",
  },
  {
    id: "tool-removed",
    level: "breaking",
    area: "tool",
    categories: ["wire", "source", "model"],
    summary: "A tool is gone; callers of it fail with mnote_tool_unknown_tool.",
  },
  {
    id: "tool-renamed",
    level: "breaking",
    area: "tool",
    categories: ["wire", "source", "model"],
    summary: "A tool's canonical name changed (same kernel command, new name).",
  },
  {
    id: "tool-provider-name-changed",
    level: "breaking",
    area: "tool",
    categories: ["model"],
    summary: "The provider-safe name the model calls changed.",
  },
  {
    id: "tool-kernel-command-changed",
    level: "breaking",
    area: "tool",
    categories: ["kernel"],
    summary: "The tool runs another kernel command; kernels built on the base lack it.",
  },
  {
    id: "tool-capability-changed",
    level: "breaking",
    area: "tool",
    categories: ["wire"],
    summary: "The capability a session needs for the tool changed.",
  },
  {
    id: "tool-effect-changed",
    level: "breaking",
    area: "tool",
    categories: ["wire", "model"],
    summary: "The tool changed between read and write.",
  },
  {
    id: "tool-idempotency-changed",
    level: "breaking",
    area: "tool",
    categories: ["wire"],
    summary: "Whether a request must carry an idempotencyKey changed.",
  },
  {
    id: "tool-dry-run-changed",
    level: "breaking",
    area: "tool",
    categories: ["wire", "model"],
    summary: "Whether a request must carry dryRun changed.",
  },
  {
    id: "tool-semantics-changed",
    level: "warning",
    area: "tool",
    categories: ["model"],
    summary: "The destructive/idempotent hints changed.",
  },
  {
    id: "tool-approval-tightened",
    level: "breaking",
    area: "tool",
    categories: ["wire"],
    summary:
      "A call needs more approval than before (x-mnote-tool approval allow -> ask, anything -> deny): callers that never ask a person get mnote_tool_approval_required or mnote_tool_approval_denied.",
  },
  {
    id: "tool-approval-loosened",
    level: "warning",
    area: "tool",
    categories: ["wire"],
    summary:
      "A call needs less approval than before (ask -> allow, deny -> ask or allow): writes that waited for a person now go through without one.",
  },
  {
    id: "tool-budget-lowered",
    level: "breaking",
    area: "tool",
    categories: ["wire"],
    summary:
      "A tool's budget (x-mnote-tool budget) allows fewer calls per window, or there is one where there was none: callers that kept to the old budget get mnote_tool_rate_limited.",
  },
  {
    id: "tool-budget-raised",
    level: "warning",
    area: "tool",
    categories: ["wire"],
    summary:
      "A tool's budget allows more calls per window, or is gone: a loosening, for the hosts whose policy lowers it (a flood is let through further).",
  },
  {
    id: "tool-title-changed",
    level: "warning",
    area: "tool",
    categories: ["model"],
    summary: "The tool's title changed.",
  },
  {
    id: "tool-guide-role-changed",
    level: "warning",
    area: "tool",
    categories: ["model"],
    summary:
      "The part the tool plays in the agent's guide (x-mnote-tool guideRole) changed: the Hermes SKILL.md names another tool for it.",
  },
  {
    id: "kernel-command-added",
    level: "safe",
    area: "kernel",
    categories: ["kernel", "source"],
    summary: "A new kernel command (kernels must implement it before a runtime built on the head calls it).",
  },
  {
    id: "kernel-command-removed",
    level: "breaking",
    area: "kernel",
    categories: ["kernel", "source"],
    summary: "A kernel command is gone: runtimes built on the base still call it.",
  },
  {
    id: "kernel-command-renamed",
    level: "breaking",
    area: "kernel",
    categories: ["kernel", "source"],
    summary:
      "A kernel command's name changed (a tool moved to it, or the same payload and result): runtimes call the old name.",
  },
  {
    id: "kernel-command-effect-changed",
    level: "breaking",
    area: "kernel",
    categories: ["kernel"],
    summary: "A kernel command changed between read and write.",
  },
  {
    id: "request-property-added",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A new optional field callers may send.",
  },
  {
    id: "response-property-added",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A new field in what callers read.",
  },
  {
    id: "request-property-removed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A field callers send is gone.",
  },
  {
    id: "response-property-removed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A field callers read is gone.",
  },
  {
    id: "request-required-added",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Callers must now send a field (new or existing).",
  },
  {
    id: "response-required-added",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A field callers read is now always present.",
  },
  {
    id: "request-required-removed",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Callers may now leave a field out.",
  },
  {
    id: "response-required-removed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A field callers read may now be missing.",
  },
  {
    id: "request-type-narrowed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Fewer JSON types accepted from callers.",
  },
  {
    id: "response-type-narrowed",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Fewer JSON types sent to callers.",
  },
  {
    id: "request-type-widened",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "More JSON types accepted from callers.",
  },
  {
    id: "response-type-widened",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Callers may read a JSON type they do not handle.",
  },
  {
    id: "request-enum-narrowed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "An enum or const value callers send is no longer accepted.",
  },
  {
    id: "response-enum-narrowed",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "An enum or const value is no longer sent to callers.",
  },
  {
    id: "request-enum-widened",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A new enum value callers may send.",
  },
  {
    id: "response-enum-widened",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Callers may read an enum value they do not know.",
  },
  {
    id: "request-constraint-tightened",
    level: "breaking",
    area: "schema",
    categories: ["surface"],
    summary: "A tighter min/max/length/items bound, a new pattern or format, uniqueItems, a new allOf member.",
  },
  {
    id: "response-constraint-tightened",
    level: "safe",
    area: "schema",
    categories: ["surface"],
    summary: "A tighter bound on what callers read.",
  },
  {
    id: "request-constraint-loosened",
    level: "safe",
    area: "schema",
    categories: ["surface"],
    summary: "A looser bound on what callers send.",
  },
  {
    id: "response-constraint-loosened",
    level: "breaking",
    area: "schema",
    categories: ["surface"],
    summary: "Callers may read values outside the old bounds.",
  },
  {
    id: "request-constraint-changed",
    level: "breaking",
    area: "schema",
    categories: ["surface"],
    summary: "A pattern, format or multipleOf changed in a way that is neither tighter nor looser.",
  },
  {
    id: "response-constraint-changed",
    level: "breaking",
    area: "schema",
    categories: ["surface"],
    summary: "A pattern, format or multipleOf changed in a way that is neither tighter nor looser.",
  },
  {
    id: "request-additional-properties-closed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "additionalProperties turned off: unknown keys callers send are refused.",
  },
  {
    id: "response-additional-properties-closed",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "additionalProperties turned off in what callers read.",
  },
  {
    id: "request-additional-properties-opened",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "additionalProperties turned on for what callers send.",
  },
  {
    id: "response-additional-properties-opened",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "Callers may read keys the base did not allow.",
  },
  {
    id: "request-variant-added",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A new anyOf/oneOf alternative callers may send.",
  },
  {
    id: "response-variant-added",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A new anyOf/oneOf alternative callers may read (e.g. a field becomes nullable).",
  },
  {
    id: "request-variant-removed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "An anyOf/oneOf alternative callers send is gone.",
  },
  {
    id: "response-variant-removed",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "An anyOf/oneOf alternative is no longer sent.",
  },
  {
    id: "request-default-changed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "model"],
    summary: "Callers that leave a field out now get another behaviour.",
  },
  {
    id: "response-default-changed",
    level: "warning",
    area: "schema",
    categories: ["model"],
    summary: "A default in a response schema changed (documentation only).",
  },
  {
    id: "request-option-unwired",
    level: "breaking",
    area: "schema",
    categories: ["surface", "kernel"],
    summary: "A request field's x-mnote-runtimeSupport left wired: real calls setting it now fail.",
  },
  {
    id: "request-option-wired",
    level: "safe",
    area: "schema",
    categories: ["surface", "kernel"],
    summary: "A request field's x-mnote-runtimeSupport became wired.",
  },
  {
    id: "request-initial-value-changed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "kernel"],
    summary:
      "An option's x-mnote-initialValue changed: a write that leaves the option as it is, or sets it to that value, now means something else.",
  },
  {
    id: "response-initial-value-changed",
    level: "breaking",
    area: "schema",
    categories: ["surface", "kernel"],
    summary: "An option's x-mnote-initialValue changed: pages that never set it now report another value.",
  },
  {
    id: "request-filled-by-changed",
    level: "breaking",
    area: "schema",
    categories: ["wire", "model"],
    summary:
      "Who writes a request field (x-mnote-filledBy: model or host) changed: the model's parameters and what plugins fill in change.",
  },
  {
    id: "request-nesting-deepened",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A recursive definition now nests where the base had a leaf: callers may send deeper values.",
  },
  {
    id: "response-nesting-deepened",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary:
      "A recursive definition now nests where the base had a leaf: callers read values nested deeper than the base allowed, of a kind they already handle one level up (no longer the whole of it).",
  },
  {
    id: "request-nesting-reduced",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A recursive definition no longer nests here: deeper values callers send are refused.",
  },
  {
    id: "response-nesting-reduced",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary: "A recursive definition no longer nests here: callers read shallower values.",
  },
  {
    id: "request-property-unlisted",
    level: "safe",
    area: "schema",
    categories: ["surface", "source"],
    summary:
      "A declared field removed from an object that still allows other keys: callers may still send it, with any value.",
  },
  {
    id: "response-property-unlisted",
    level: "breaking",
    area: "schema",
    categories: ["surface", "source"],
    summary:
      "A declared field removed from an open response object: callers may read it with any value, or not at all.",
  },
  {
    id: "request-unproven-narrowing",
    level: "breaking",
    area: "schema",
    categories: ["surface"],
    summary:
      "Could not prove the head accepts everything the base accepted from callers (a changed if, not or bound of the wrong type, nesting too deep): judged on the safe side.",
  },
  {
    id: "response-unproven-widening",
    level: "breaking",
    area: "schema",
    categories: ["surface"],
    summary: "Could not prove the head sends only what the base promised callers: judged on the safe side.",
  },
  {
    id: "description-changed",
    level: "warning",
    area: "schema",
    categories: ["model"],
    summary: "A description changed: the model reads it, so behaviour may change.",
  },
  {
    id: "annotation-changed",
    level: "warning",
    area: "schema",
    categories: ["model"],
    summary:
      "An annotation changed (title, examples, deprecated, readOnly, writeOnly, $comment, a format our validators do not assert, a default on a required field, x-mnote-runtimeSupport in a response, …).",
  },
  {
    id: "error-code-removed",
    level: "breaking",
    area: "errors",
    categories: ["wire", "source"],
    summary: "An error code callers handle is gone.",
  },
  {
    id: "error-code-added",
    level: "safe",
    area: "errors",
    categories: ["wire", "source"],
    summary: "A new error code.",
  },
  {
    id: "error-retryable-changed",
    level: "warning",
    area: "errors",
    categories: ["wire"],
    summary: "Whether retrying helps changed for a code.",
  },
  {
    id: "error-reason-removed",
    level: "warning",
    area: "errors",
    categories: ["wire"],
    summary: "A reason is no longer sent with its code.",
  },
  {
    id: "error-reason-added",
    level: "safe",
    area: "errors",
    categories: ["wire"],
    summary: "A new reason refines a code's message.",
  },
  {
    id: "message-changed",
    level: "warning",
    area: "errors",
    categories: ["model"],
    summary: "A catalog message, reason message or tool message override changed.",
  },
  {
    id: "capability-removed",
    level: "breaking",
    area: "capabilities",
    categories: ["wire"],
    summary: "A capability scope grants and tools use is gone.",
  },
  {
    id: "capability-added",
    level: "safe",
    area: "capabilities",
    categories: ["wire"],
    summary: "A new capability scope.",
  },
  {
    id: "capability-requires-added",
    level: "breaking",
    area: "capabilities",
    categories: ["wire"],
    summary: "A capability now requires another one: existing grants may no longer suffice.",
  },
  {
    id: "capability-requires-removed",
    level: "safe",
    area: "capabilities",
    categories: ["wire"],
    summary: "A capability requires less.",
  },
  {
    id: "capability-denied-reason-changed",
    level: "warning",
    area: "capabilities",
    categories: ["wire"],
    summary: "The reason a refusal of the capability carries changed.",
  },
  {
    id: "contract-metadata-changed",
    level: "warning",
    area: "contract",
    categories: ["wire", "source"],
    summary: "contract.json's name, title or baseUri changed.",
  },
  {
    id: "limit-lowered",
    level: "breaking",
    area: "facts",
    categories: ["wire", "kernel"],
    summary:
      "A named limit (x-mnote-limit) is lower: runtimes and kernels read limits.<name> and refuse writes that kept to the old one (a narrower request for writers).",
  },
  {
    id: "limit-raised",
    level: "breaking",
    area: "facts",
    categories: ["wire", "kernel"],
    summary:
      "A named limit (x-mnote-limit) is higher: readers built on the base rely on the old limit, and may now read more.",
  },
  {
    id: "export-removed",
    level: "breaking",
    area: "facts",
    categories: ["source"],
    summary:
      "A name the generated package exports is gone (a type, limits.<name>, truncations.<name>, optionSets.<Type>): code that imports it no longer compiles.",
  },
  {
    id: "export-added",
    level: "safe",
    area: "facts",
    categories: ["source"],
    summary: "A new name the generated package exports (a type, limits.<name>, truncations.<name>, optionSets.<Type>).",
  },
  // ---- the kernel as its own audience (issue 45): a kernel reply is written by kernels and checked
  // by the generated kernel client against the head, so a reply schema that accepts less breaks
  // kernels built on the base (the response-* rules judge the same schema for the runtime reading it)
  {
    id: "kernel-reply-narrowed",
    level: "breaking",
    area: "schema",
    categories: ["kernel"],
    summary:
      "A kernel reply (a command's result, a tool's Result the kernel returns, KernelReply, KernelError) accepts fewer values: the kernel client checks every reply against the head, so replies kernels built on the base send fail (a new required field, a tighter bound, a closed object, a const).",
  },
  {
    id: "kernel-reply-unproven-narrowing",
    level: "breaking",
    area: "schema",
    categories: ["kernel"],
    summary:
      "Could not prove the head accepts every kernel reply kernels built on the base may send: judged on the safe side.",
  },
  // ---- a removed optional response field breaks only code compiled against the types (issue 45)
  {
    id: "optional-response-field-removed",
    level: "breaking",
    area: "schema",
    categories: ["source"],
    summary:
      "An optional field of a response (of a closed object) is gone: callers on the wire already handle it absent, so only code compiled against the generated types that reads it breaks (plugin code); kernels that send it are judged by kernel-reply-narrowed.",
  },
] as const satisfies readonly RuleDef[];

export type RuleId = (typeof RULES)[number]["id"];

const BY_ID = new Map<string, RuleDef>(RULES.map((r) => [r.id, r]));

/** The level of a rule: what the change does, whatever a team does about it. */
export function ruleLevel(id: RuleId): Level {
  return BY_ID.get(id)!.level;
}

export function isRuleId(id: string): id is RuleId {
  return BY_ID.has(id);
}

/** The categories of a finding of this rule, "surface" resolved to where it fired (wire or kernel). */
export function ruleCategories(id: RuleId, surface: "wire" | "kernel"): Category[] {
  const out = BY_ID.get(id)!.categories.map((c) => (c === "surface" ? surface : c));
  return [...new Set(out)].sort((x, y) => CATEGORIES.indexOf(x) - CATEGORIES.indexOf(y));
}

export function ruleDef(id: RuleId): RuleDef {
  return BY_ID.get(id)!;
}
