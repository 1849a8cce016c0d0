/**
 * How a change to one leaf keyword (a bound, a pattern, an annotation, …) is judged: stricter or
 * looser, or direction-free. The structural keywords (type, enum, properties, anyOf, …) are walked
 * in compare-schemas.ts; everything else comes here, and what has no rule is "could not prove" (unproven), on the side that could hurt.
 */
import { isRuleId, type RuleId } from "./rules";
import type { Direction } from "./types";

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
  "property-unlisted",
  "unproven",
];

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

/** Keywords that document and never validate. */
export const ANNOTATIONS = new Set([
  "title",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]);
const RUNTIME_SUPPORT = "x-mnote-runtimeSupport";

export type Judgement = { kind: DirectedKind } | { rule: "description-changed" | "annotation-changed"; note?: string };

/** before/after: the keyword's values (undefined: absent); null: no change that matters. */
export function judgeKeyword(key: string, before: unknown, after: unknown, direction: Direction): Judgement | null {
  if (LOWER_BOUNDS.has(key) || UPPER_BOUNDS.has(key)) {
    if ((before !== undefined && typeof before !== "number") || (after !== undefined && typeof after !== "number")) {
      return { kind: "unproven" };
    }
    if (before === undefined) return { kind: "constraint-tightened" };
    if (after === undefined) return { kind: "constraint-loosened" };
    const tighter = LOWER_BOUNDS.has(key) ? after > before : after < before;
    return { kind: tighter ? "constraint-tightened" : "constraint-loosened" };
  }
  if (key === "pattern" || key === "format") {
    return {
      kind:
        before === undefined
          ? "constraint-tightened"
          : after === undefined
            ? "constraint-loosened"
            : "constraint-changed",
    };
  }
  if (key === "multipleOf") return { kind: multipleOfKind(before, after) };
  if (key === "uniqueItems") {
    if (Boolean(before) === Boolean(after)) return null;
    return { kind: after ? "constraint-tightened" : "constraint-loosened" };
  }
  if (key === "description") return { rule: "description-changed" };
  if (key === "default") return { kind: "default-changed" };
  if (key === RUNTIME_SUPPORT && direction === "request") {
    // Absent means wired, as in normalize's unwiredFields.
    const wasWired = (before ?? "wired") === "wired";
    const isWired = (after ?? "wired") === "wired";
    if (wasWired !== isWired) return { kind: isWired ? "option-wired" : "option-unwired" };
  }
  if (ANNOTATIONS.has(key) || key.startsWith("x-mnote-")) return { rule: "annotation-changed" };
  // No rule: could not prove the change harmless (the contract's validate refuses keywords outside 2020-12 anyway).
  return { kind: "unproven" };
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
