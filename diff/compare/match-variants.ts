/**
 * Pairs the alternatives of an anyOf/oneOf/allOf across two versions. Order carries no meaning in
 * these lists, so an edit that only reorders them must not be reported, and a changed alternative
 * should be compared with its old self rather than reported as one removed and one added.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { sameJson } from "../normalize/json";

export interface VariantMatch {
  /** [before index, after index] */
  pairs: Array<[number, number]>;
  removed: number[];
  added: number[];
}

export function matchVariants(before: readonly unknown[], after: readonly unknown[]): VariantMatch {
  const candidates: Array<[number, number, number]> = [];
  before.forEach((b, i) =>
    after.forEach((a, j) => {
      const score = similarity(b, a);
      if (score > 0) candidates.push([score, i, j]);
    }),
  );
  // Best score first; among equals, keep alternatives that stayed in place together.
  candidates.sort((x, y) => y[0] - x[0] || Math.abs(x[1] - x[2]) - Math.abs(y[1] - y[2]) || x[1] - y[1] || x[2] - y[2]);
  const usedBefore = new Set<number>();
  const usedAfter = new Set<number>();
  const pairs: Array<[number, number]> = [];
  for (const [, i, j] of candidates) {
    if (usedBefore.has(i) || usedAfter.has(j)) continue;
    usedBefore.add(i);
    usedAfter.add(j);
    pairs.push([i, j]);
  }
  return {
    pairs: pairs.sort((x, y) => x[1] - y[1]),
    removed: before.map((_, i) => i).filter((i) => !usedBefore.has(i)),
    added: after.map((_, j) => j).filter((j) => !usedAfter.has(j)),
  };
}

/** 0 means "not the same alternative": different types, consts or definitions. */
function similarity(b: unknown, a: unknown): number {
  if (sameJson(b, a)) return 1000;
  if (!isPlainObject(b) || !isPlainObject(a)) return 0;
  if (typeof b.$ref === "string" || typeof a.$ref === "string") return b.$ref === a.$ref ? 100 : 0;
  let score = 0;
  if ("const" in b && "const" in a) {
    if (!sameJson(b.const, a.const)) return 0;
    score += 50;
  }
  const bt = types(b.type);
  const at = types(a.type);
  if (bt.length > 0 && at.length > 0) {
    if (
      !bt.some(
        (t) =>
          at.includes(t) || (t === "integer" && at.includes("number")) || (t === "number" && at.includes("integer")),
      )
    )
      return 0;
    score += 10;
  }
  const bp = isPlainObject(b.properties) ? Object.keys(b.properties) : [];
  const ap = isPlainObject(a.properties) ? Object.keys(a.properties) : [];
  score += 2 * bp.filter((name) => ap.includes(name)).length;
  return score;
}

function types(type: unknown): string[] {
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}
