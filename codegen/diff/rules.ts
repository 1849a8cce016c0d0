/**
 * Every rule `mnote-tools diff` reports, as plain data: docs/CONTRACT-DIFF.md and the tests read
 * this table, so a rule cannot exist in the code without a level, a summary and a test case.
 *
 * Levels are fixed per rule. Schema rules come in request/response pairs because the same edit
 * has opposite effects: a request is written by callers (stricter breaks them), a response is read
 * by callers (looser breaks them).
 */

export type Level = "breaking" | "warning" | "safe";

export interface RuleDef {
  readonly id: string;
  readonly level: Level;
  readonly area: "tool" | "kernel" | "schema" | "errors" | "capabilities" | "contract";
  readonly summary: string;
}

export const RULES = [
  { id: "tool-added", level: "safe", area: "tool", summary: "A new tool." },
  {
    id: "tool-removed",
    level: "breaking",
    area: "tool",
    summary: "A tool is gone; callers of it fail with mnote_tool_unknown_tool.",
  },
  {
    id: "tool-renamed",
    level: "breaking",
    area: "tool",
    summary: "A tool's canonical name changed (same kernel command, new name).",
  },
  {
    id: "tool-provider-name-changed",
    level: "breaking",
    area: "tool",
    summary: "The provider-safe name the model calls changed.",
  },
  {
    id: "tool-kernel-command-changed",
    level: "breaking",
    area: "tool",
    summary: "The tool runs another kernel command; kernels built on the base lack it.",
  },
  {
    id: "tool-capability-changed",
    level: "breaking",
    area: "tool",
    summary: "The capability a session needs for the tool changed.",
  },
  { id: "tool-effect-changed", level: "breaking", area: "tool", summary: "The tool changed between read and write." },
  {
    id: "tool-idempotency-changed",
    level: "breaking",
    area: "tool",
    summary: "Whether a request must carry an idempotencyKey changed.",
  },
  {
    id: "tool-dry-run-changed",
    level: "breaking",
    area: "tool",
    summary: "Whether a request must carry dryRun changed.",
  },
  {
    id: "tool-semantics-changed",
    level: "warning",
    area: "tool",
    summary: "The destructive/idempotent hints changed.",
  },
  { id: "tool-title-changed", level: "warning", area: "tool", summary: "The tool's title changed." },

  {
    id: "kernel-command-added",
    level: "safe",
    area: "kernel",
    summary: "A new kernel command (kernels must implement it before a runtime built on the head calls it).",
  },
  {
    id: "kernel-command-removed",
    level: "breaking",
    area: "kernel",
    summary: "A kernel command is gone: runtimes built on the base still call it.",
  },
  {
    id: "kernel-command-renamed",
    level: "breaking",
    area: "kernel",
    summary:
      "A kernel command's name changed (a tool moved to it, or the same payload and result): runtimes call the old name.",
  },
  {
    id: "kernel-command-effect-changed",
    level: "breaking",
    area: "kernel",
    summary: "A kernel command changed between read and write.",
  },

  { id: "request-property-added", level: "safe", area: "schema", summary: "A new optional field callers may send." },
  { id: "response-property-added", level: "safe", area: "schema", summary: "A new field in what callers read." },
  { id: "request-property-removed", level: "breaking", area: "schema", summary: "A field callers send is gone." },
  { id: "response-property-removed", level: "breaking", area: "schema", summary: "A field callers read is gone." },
  {
    id: "request-required-added",
    level: "breaking",
    area: "schema",
    summary: "Callers must now send a field (new or existing).",
  },
  {
    id: "response-required-added",
    level: "safe",
    area: "schema",
    summary: "A field callers read is now always present.",
  },
  { id: "request-required-removed", level: "safe", area: "schema", summary: "Callers may now leave a field out." },
  {
    id: "response-required-removed",
    level: "breaking",
    area: "schema",
    summary: "A field callers read may now be missing.",
  },
  {
    id: "request-type-narrowed",
    level: "breaking",
    area: "schema",
    summary: "Fewer JSON types accepted from callers.",
  },
  { id: "response-type-narrowed", level: "safe", area: "schema", summary: "Fewer JSON types sent to callers." },
  { id: "request-type-widened", level: "safe", area: "schema", summary: "More JSON types accepted from callers." },
  {
    id: "response-type-widened",
    level: "breaking",
    area: "schema",
    summary: "Callers may read a JSON type they do not handle.",
  },
  {
    id: "request-enum-narrowed",
    level: "breaking",
    area: "schema",
    summary: "An enum or const value callers send is no longer accepted.",
  },
  {
    id: "response-enum-narrowed",
    level: "safe",
    area: "schema",
    summary: "An enum or const value is no longer sent to callers.",
  },
  { id: "request-enum-widened", level: "safe", area: "schema", summary: "A new enum value callers may send." },
  {
    id: "response-enum-widened",
    level: "breaking",
    area: "schema",
    summary: "Callers may read an enum value they do not know.",
  },
  {
    id: "request-constraint-tightened",
    level: "breaking",
    area: "schema",
    summary: "A tighter min/max/length/items bound, a new pattern or format, uniqueItems, a new allOf member.",
  },
  {
    id: "response-constraint-tightened",
    level: "safe",
    area: "schema",
    summary: "A tighter bound on what callers read.",
  },
  { id: "request-constraint-loosened", level: "safe", area: "schema", summary: "A looser bound on what callers send." },
  {
    id: "response-constraint-loosened",
    level: "breaking",
    area: "schema",
    summary: "Callers may read values outside the old bounds.",
  },
  {
    id: "request-constraint-changed",
    level: "breaking",
    area: "schema",
    summary: "A pattern, format or multipleOf changed in a way that is neither tighter nor looser.",
  },
  {
    id: "response-constraint-changed",
    level: "breaking",
    area: "schema",
    summary: "A pattern, format or multipleOf changed in a way that is neither tighter nor looser.",
  },
  {
    id: "request-additional-properties-closed",
    level: "breaking",
    area: "schema",
    summary: "additionalProperties turned off: unknown keys callers send are refused.",
  },
  {
    id: "response-additional-properties-closed",
    level: "safe",
    area: "schema",
    summary: "additionalProperties turned off in what callers read.",
  },
  {
    id: "request-additional-properties-opened",
    level: "safe",
    area: "schema",
    summary: "additionalProperties turned on for what callers send.",
  },
  {
    id: "response-additional-properties-opened",
    level: "breaking",
    area: "schema",
    summary: "Callers may read keys the base did not allow.",
  },
  {
    id: "request-variant-added",
    level: "safe",
    area: "schema",
    summary: "A new anyOf/oneOf alternative callers may send.",
  },
  {
    id: "response-variant-added",
    level: "breaking",
    area: "schema",
    summary: "A new anyOf/oneOf alternative callers may read (e.g. a field becomes nullable).",
  },
  {
    id: "request-variant-removed",
    level: "breaking",
    area: "schema",
    summary: "An anyOf/oneOf alternative callers send is gone.",
  },
  {
    id: "response-variant-removed",
    level: "safe",
    area: "schema",
    summary: "An anyOf/oneOf alternative is no longer sent.",
  },
  {
    id: "request-default-changed",
    level: "breaking",
    area: "schema",
    summary: "Callers that leave a field out now get another behaviour.",
  },
  {
    id: "response-default-changed",
    level: "warning",
    area: "schema",
    summary: "A default in a response schema changed (documentation only).",
  },
  {
    id: "request-option-unwired",
    level: "breaking",
    area: "schema",
    summary: "A request field's x-mnote-runtimeSupport left wired: real calls setting it now fail.",
  },
  {
    id: "request-option-wired",
    level: "safe",
    area: "schema",
    summary: "A request field's x-mnote-runtimeSupport became wired.",
  },
  {
    id: "request-property-unlisted",
    level: "safe",
    area: "schema",
    summary:
      "A declared field removed from an object that still allows other keys: callers may still send it, with any value.",
  },
  {
    id: "response-property-unlisted",
    level: "breaking",
    area: "schema",
    summary:
      "A declared field removed from an open response object: callers may read it with any value, or not at all.",
  },
  {
    id: "request-unproven-narrowing",
    level: "breaking",
    area: "schema",
    summary:
      "Could not prove the head accepts everything the base accepted from callers (a changed if, not or bound of the wrong type, nesting too deep): judged on the safe side.",
  },
  {
    id: "response-unproven-widening",
    level: "breaking",
    area: "schema",
    summary: "Could not prove the head sends only what the base promised callers: judged on the safe side.",
  },
  {
    id: "description-changed",
    level: "warning",
    area: "schema",
    summary: "A description changed: the model reads it, so behaviour may change.",
  },
  {
    id: "annotation-changed",
    level: "warning",
    area: "schema",
    summary: "An annotation changed (title, examples, deprecated, readOnly, writeOnly, $comment, x-mnote-filledBy, …).",
  },

  { id: "error-code-removed", level: "breaking", area: "errors", summary: "An error code callers handle is gone." },
  { id: "error-code-added", level: "safe", area: "errors", summary: "A new error code." },
  {
    id: "error-retryable-changed",
    level: "warning",
    area: "errors",
    summary: "Whether retrying helps changed for a code.",
  },
  {
    id: "error-reason-removed",
    level: "warning",
    area: "errors",
    summary: "A reason is no longer sent with its code.",
  },
  { id: "error-reason-added", level: "safe", area: "errors", summary: "A new reason refines a code's message." },
  {
    id: "message-changed",
    level: "warning",
    area: "errors",
    summary: "A catalog message, reason message or tool message override changed.",
  },

  {
    id: "capability-removed",
    level: "breaking",
    area: "capabilities",
    summary: "A capability scope grants and tools use is gone.",
  },
  { id: "capability-added", level: "safe", area: "capabilities", summary: "A new capability scope." },
  {
    id: "capability-requires-added",
    level: "breaking",
    area: "capabilities",
    summary: "A capability now requires another one: existing grants may no longer suffice.",
  },
  { id: "capability-requires-removed", level: "safe", area: "capabilities", summary: "A capability requires less." },
  {
    id: "capability-denied-reason-changed",
    level: "warning",
    area: "capabilities",
    summary: "The reason a refusal of the capability carries changed.",
  },

  {
    id: "contract-metadata-changed",
    level: "warning",
    area: "contract",
    summary: "contract.json's name, title or baseUri changed.",
  },
] as const satisfies readonly RuleDef[];

export type RuleId = (typeof RULES)[number]["id"];

const BY_ID = new Map<string, RuleDef>(RULES.map((r) => [r.id, r]));

export function ruleLevel(id: RuleId): Level {
  return BY_ID.get(id)!.level;
}

export function isRuleId(id: string): id is RuleId {
  return BY_ID.has(id);
}
