/**
 * How a change to one leaf keyword (a bound, a pattern, an annotation, an x-mnote-* fact, …) is
 * judged: stricter or looser, or direction-free. The structural keywords (type, enum, properties,
 * anyOf, …) are walked in compare-schemas.ts; everything else comes here, and what has no rule is
 * "could not prove" (unproven), on the side that could hurt.
 */
import { isRuleId, type RuleId } from "../rules";
import type { Direction } from "../types";
import { comparePatterns, type LengthWindow } from "../normalize/regex";
import { ANNOTATIONS, allowsKind, assertsFormat, typeSet, type Schema } from "../normalize/schema-facts";
import { VENDOR_KEYWORDS, type VendorKeyword } from "../../codegen/vendor-keywords";
import { canonical } from "../normalize/json";
import { isPlainObject } from "../../codegen/support/schema-walk";

export { ANNOTATIONS };

/** Kinds whose rule depends on the direction: `${direction}-${kind}`. */
export type DirectedKind =
  | "property-added"
  | "property-removed"
  | "required-added"
  | "required-removed"
  | "type-narrowed"
  | "type-widened"
  | "enum-narrowed"
  | "enum-widened"
  | "constraint-tightened"
  | "constraint-loosened"
  | "constraint-changed"
  | "additional-properties-closed"
  | "additional-properties-opened"
  | "variant-added"
  | "variant-removed"
  | "default-changed"
  | "option-unwired"
  | "option-wired"
  | "initial-value-changed"
  | "filled-by-changed"
  | "nesting-deepened"
  | "nesting-reduced"
  | "property-unlisted"
  | "unproven";

export const DIRECTED_KINDS: readonly DirectedKind[] = [
  "property-added",
  "property-removed",
  "required-added",
  "required-removed",
  "type-narrowed",
  "type-widened",
  "enum-narrowed",
  "enum-widened",
  "constraint-tightened",
  "constraint-loosened",
  "constraint-changed",
  "additional-properties-closed",
  "additional-properties-opened",
  "variant-added",
  "variant-removed",
  "default-changed",
  "option-unwired",
  "option-wired",
  "initial-value-changed",
  "filled-by-changed",
  "nesting-deepened",
  "nesting-reduced",
  "property-unlisted",
  "unproven",
];

/** Kinds that exist for requests only: in a response the fact is an annotation. */
export const REQUEST_ONLY_KINDS: ReadonlySet<DirectedKind> = new Set([
  "option-wired",
  "option-unwired",
  "filled-by-changed",
]);

export function directedRule(direction: Direction, kind: DirectedKind): RuleId {
  // Could not prove: named after the side that hurts in each direction.
  const id =
    kind === "unproven"
      ? direction === "request"
        ? "request-unproven-narrowing"
        : "response-unproven-widening"
      : `${direction}-${kind}`;
  if (!isRuleId(id)) throw new Error(`rules.ts has no rule ${id}`);
  return id;
}

const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]);

export type Judgement = { kind: DirectedKind } | { rule: "description-changed" | "annotation-changed"; note?: string };

/** What the comparer knows about the node a keyword sits on. */
export interface KeywordContext {
  direction: Direction;
  /** The node on each side (for keywords whose meaning depends on their neighbours: format, default). */
  before: Schema;
  after: Schema;
  /** The node is a property that is required on either side: it is never absent, so a default never applies. */
  requiredProperty: boolean;
}

type FactJudge = (before: unknown, after: unknown, ctx: KeywordContext) => Judgement | null;

const annotation: FactJudge = () => ({ rule: "annotation-changed" });

/**
 * Every x-mnote-* keyword (contract/meta/keywords.schema.json, VENDOR_KEYWORDS), judged by what it
 * changes for the side that reads it. One table: a new fact gets its row here, and a keyword
 * without a row is "could not prove".
 */
export const FACT_JUDGES: Readonly<Record<VendorKeyword, FactJudge>> = {
  // Whether the kernel applies an option: a request that sets an unwired one fails.
  "x-mnote-runtimeSupport": (before, after, ctx) => {
    if (ctx.direction !== "request") return { rule: "annotation-changed" };
    // Absent means wired, as in normalize's unwiredFields.
    const wasWired = (before ?? "wired") === "wired";
    const isWired = (after ?? "wired") === "wired";
    if (wasWired === isWired) return { rule: "annotation-changed" };
    return { kind: isWired ? "option-wired" : "option-unwired" };
  },
  // What a page reports for an option it never set: another value is another behaviour for readers
  // and writers; a new one is a promise made (tighter for readers), a removed one a promise withdrawn.
  "x-mnote-initialValue": (before, after, ctx) => {
    if (before !== undefined && after !== undefined) return { kind: "initial-value-changed" };
    if (ctx.direction === "request") return { rule: "annotation-changed" };
    return { kind: before === undefined ? "constraint-tightened" : "constraint-loosened" };
  },
  // Who writes a request field (the model or the host): the model's parameters and the plugin change.
  "x-mnote-filledBy": (_b, _a, ctx) =>
    ctx.direction === "request" ? { kind: "filled-by-changed" } : { rule: "annotation-changed" },
  // The number a named limit states is judged with the contract's facts (compare-facts.ts), its name as an export.
  "x-mnote-limit": () => null,
  "x-mnote-truncate": judgeTruncate,
  // Never compared (the examples are checked by generate).
  "x-mnote-examples": () => null,
  // File-level facts, compared by their own comparers; anywhere else they mean nothing to a validator.
  "x-mnote-tool": annotation,
  "x-mnote-kernel-command": annotation,
  "x-mnote-error": annotation,
  "x-mnote-capability": annotation,
};

/**
 * How a string is cut: a shorter cut is tighter, a longer one looser (the maxLength moves with
 * it and is judged here, once); another marker changes the values sent (readers that recognize a
 * cut by its marker), so it is a change both ways; the name is an export (compare-facts.ts).
 */
function judgeTruncate(before: unknown, after: unknown): Judgement | null {
  if (before === undefined) return { kind: "constraint-tightened" };
  if (after === undefined) return { kind: "constraint-loosened" };
  if (!isPlainObject(before) || !isPlainObject(after)) return { kind: "unproven" };
  const [b, a] = [before, after];
  if (b.marker !== a.marker) return { kind: "constraint-changed" };
  if (typeof b.length !== "number" || typeof a.length !== "number") return { kind: "unproven" };
  if (a.length === b.length) return null;
  return { kind: a.length < b.length ? "constraint-tightened" : "constraint-loosened" };
}

/** before/after: the keyword's values (undefined: absent); null: no change that matters. */
export function judgeKeyword(key: string, before: unknown, after: unknown, ctx: KeywordContext): Judgement | null {
  if (LOWER_BOUNDS.has(key) || UPPER_BOUNDS.has(key)) {
    if ((before !== undefined && typeof before !== "number") || (after !== undefined && typeof after !== "number")) {
      return { kind: "unproven" };
    }
    if (before === undefined) return { kind: "constraint-tightened" };
    if (after === undefined) return { kind: "constraint-loosened" };
    const tighter = LOWER_BOUNDS.has(key) ? after > before : after < before;
    return { kind: tighter ? "constraint-tightened" : "constraint-loosened" };
  }
  if (key === "pattern") return judgePattern(before, after, ctx);
  if (key === "format") return judgeFormat(before, after, ctx);
  if (key === "multipleOf") return { kind: multipleOfKind(before, after) };
  if (key === "uniqueItems") {
    if (Boolean(before) === Boolean(after)) return null;
    return { kind: after ? "constraint-tightened" : "constraint-loosened" };
  }
  if (key === "description") return { rule: "description-changed" };
  if (key === "default") {
    // A default applies to a field left out: a required field is never left out, so there it only documents.
    if (ctx.requiredProperty)
      return { rule: "annotation-changed", note: "a default on a required field never applies" };
    return { kind: "default-changed" };
  }
  if ((VENDOR_KEYWORDS as readonly string[]).includes(key))
    return FACT_JUDGES[key as VendorKeyword](before, after, ctx);
  if (ANNOTATIONS.has(key)) return { rule: "annotation-changed" };
  // No rule (an unknown x- keyword or one outside 2020-12): could not prove the change harmless.
  return { kind: "unproven" };
}

/**
 * The string lengths both nodes allow: a string outside one side's window is refused (or newly
 * allowed) by that side's length bound, which is judged as its own keyword, so the pattern is
 * judged only on the strings inside both.
 */
function lengthWindow(ctx: KeywordContext): LengthWindow {
  const num = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) ? v : fallback);
  return {
    min: Math.max(num(ctx.before.minLength, 0), num(ctx.after.minLength, 0)),
    max: Math.min(num(ctx.before.maxLength, Infinity), num(ctx.after.maxLength, Infinity)),
  };
}

/** Patterns by the strings they accept (regex.ts), inside the length bounds beside them: an equivalent spelling is no change. */
function judgePattern(before: unknown, after: unknown, ctx: KeywordContext): Judgement | null {
  if (before === undefined) return { kind: "constraint-tightened" };
  if (after === undefined) return { kind: "constraint-loosened" };
  if (typeof before !== "string" || typeof after !== "string") return { kind: "unproven" };
  switch (comparePatterns(before, after, lengthWindow(ctx))) {
    case "equal":
      return null;
    case "subset":
      return { kind: "constraint-tightened" };
    case "superset":
      return { kind: "constraint-loosened" };
    case "different":
      return { kind: "constraint-changed" };
    default:
      return { kind: "unproven" };
  }
}

/**
 * format asserts only where our validators assert it (a supported format, on a node that may be a
 * string); anywhere else 2020-12 makes it an annotation.
 */
function judgeFormat(before: unknown, after: unknown, ctx: KeywordContext): Judgement | null {
  const asserted = (value: unknown, node: Schema) =>
    value !== undefined && assertsFormat(value) && allowsKind(typeSet(node.type), "string");
  const b = asserted(before, ctx.before);
  const a = asserted(after, ctx.after);
  if (!b && !a) return { rule: "annotation-changed", note: "format is an annotation here" };
  if (b && a) return canonical(before) === canonical(after) ? null : { kind: "constraint-changed" };
  return { kind: a ? "constraint-tightened" : "constraint-loosened" };
}

function multipleOfKind(before: unknown, after: unknown): DirectedKind {
  if (before === undefined) return "constraint-tightened";
  if (after === undefined) return "constraint-loosened";
  if (typeof before !== "number" || typeof after !== "number") return "constraint-changed";
  // Multiples of 4 are all multiples of 2: a multipleOf the old one divides admits fewer values.
  if (Number.isInteger(after / before)) return "constraint-tightened";
  if (Number.isInteger(before / after)) return "constraint-loosened";
  return "constraint-changed";
}
