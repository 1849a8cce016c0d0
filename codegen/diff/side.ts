/** One side of a diff: the built model, and an inliner over its schema files. */
import type { ContractModel } from "../model";
import { Inliner } from "./inline";
import type { Expanders } from "./compare-schemas";
import { canonical } from "./json";

/**
 * Compared on their own (catalog rules, envelope definitions), so schemas that use them compare
 * only the reference: one edit is reported once, under the rule that fits it.
 */
export const SEPARATELY_COMPARED = new Set([
  "catalog/errors.schema.json#/$defs/ErrorCode",
  "catalog/capabilities.schema.json#/$defs/CapabilityScope",
  "envelope/response.schema.json#/$defs/Audit",
  "envelope/response.schema.json#/$defs/ToolError",
  "envelope/response.schema.json#/$defs/ToolSuccess",
  "envelope/response.schema.json#/$defs/ToolFailure",
  "kernel/envelope.schema.json#/$defs/KernelContext",
  "kernel/envelope.schema.json#/$defs/KernelWrite",
  "kernel/envelope.schema.json#/$defs/KernelError",
]);

/** Tool schemas are compared under their tool; a kernel command that uses them compares only the reference. */
function toolSchemas(model: ContractModel): string[] {
  return model.tools.flatMap((t) => [`${t.file}#/$defs/Args`, `${t.file}#/$defs/Result`]);
}

export interface DiffSide {
  model: ContractModel;
  inliner: Inliner;
}

export function diffSide(model: ContractModel): DiffSide {
  return {
    model,
    inliner: new Inliner(model.schemaFiles, model.baseUri, new Set([...SEPARATELY_COMPARED, ...toolSchemas(model)])),
  };
}

const cache = new WeakMap<DiffSide, WeakMap<DiffSide, Expanders>>();

/** The markers of both sides, for one diff (cached per pair of sides: the stability of recursive definitions is computed once). */
export function expanders(base: DiffSide, head: DiffSide): Expanders {
  let byHead = cache.get(base);
  if (!byHead) cache.set(base, (byHead = new WeakMap()));
  let out = byHead.get(head);
  if (!out) {
    out = {
      before: (m) => base.inliner.expand(m),
      after: (m) => head.inliner.expand(m),
      isOpaque: (ref) => base.inliner.isOpaque(ref) || head.inliner.isOpaque(ref),
      isStable: stability(base, head),
    };
    byHead.set(head, out);
  }
  return out;
}

const REF = /"\$ref":"((?:[^"\\]|\\.)*)"/g;

/**
 * Whether a recursive definition is written the same on both sides, and so is every recursive
 * definition it reaches: only then may two uses of its name be taken as equal without unfolding
 * them (the greatest fixpoint: a definition is unstable when its text differs or it reaches an
 * unstable one).
 */
function stability(base: DiffSide, head: DiffSide): (ref: string) => boolean {
  const memo = new Map<string, boolean>();
  const text = (side: DiffSide, ref: string): string | null => {
    try {
      return canonical(side.inliner.expand({ $ref: ref }));
    } catch {
      return null;
    }
  };
  const refsIn = (t: string | null): string[] =>
    t === null ? [] : [...t.matchAll(REF)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  return (ref) => {
    const known = memo.get(ref);
    if (known !== undefined) return known;
    const texts = new Map<string, [string | null, string | null]>();
    const queue = [ref];
    while (queue.length > 0) {
      const r = queue.pop()!;
      if (texts.has(r) || memo.has(r)) continue;
      const pair: [string | null, string | null] = [text(base, r), text(head, r)];
      texts.set(r, pair);
      for (const next of [...refsIn(pair[0]), ...refsIn(pair[1])])
        if (!base.inliner.isOpaque(next) && !head.inliner.isOpaque(next)) queue.push(next);
    }
    const unstable = new Set([...texts].filter(([, [b, a]]) => b === null || b !== a).map(([r]) => r));
    for (const [r] of texts) if (memo.get(r) === false) unstable.add(r);
    for (let changed = true; changed;) {
      changed = false;
      for (const [r, [b]] of texts) {
        if (unstable.has(r)) continue;
        if (refsIn(b).some((x) => unstable.has(x) || memo.get(x) === false)) {
          unstable.add(r);
          changed = true;
        }
      }
    }
    for (const [r] of texts) memo.set(r, !unstable.has(r));
    return memo.get(ref)!;
  };
}
