/** One side of a diff: the built model, and an inliner over its schema files. */
import type { ContractModel } from "../../codegen/model";
import { Inliner } from "../normalize/inline";
import type { Expanders } from "./compare-schemas";
import { canonical } from "../normalize/json";
import { walkSchema } from "../../codegen/support/schema-walk";

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

const directRefs = new WeakMap<DiffSide, Map<string, Set<string>>>();
const closures = new WeakMap<DiffSide, Map<string, Set<string>>>();

/** For each contract file, the files its $refs name (by path), computed once per side. */
function refsByFile(side: DiffSide): Map<string, Set<string>> {
  const known = directRefs.get(side);
  if (known) return known;
  const direct = new Map<string, Set<string>>();
  const pathById = new Map(side.model.schemaFiles.map((f) => [f.id, f.path]));
  for (const f of side.model.schemaFiles) {
    const targets = new Set<string>();
    walkSchema(f.json, "", (node) => {
      if (typeof node.$ref !== "string") return;
      let target: string | undefined;
      try {
        const url = new URL(node.$ref, f.id);
        url.hash = "";
        target = pathById.get(url.href);
      } catch {
        target = undefined;
      }
      // A $ref the files cannot resolve: unknown reach, never taken as unchanged.
      targets.add(target ?? "\0unresolved");
    });
    direct.set(f.path, targets);
  }
  directRefs.set(side, direct);
  return direct;
}

/** The contract files a file's schemas reach through $refs (itself included), by path. */
function reach(side: DiffSide, path: string): Set<string> {
  let byFile = closures.get(side);
  if (!byFile) closures.set(side, (byFile = new Map()));
  const known = byFile.get(path);
  if (known) return known;
  const direct = refsByFile(side);
  const out = new Set<string>([path]);
  const stack = [path];
  while (stack.length > 0)
    for (const next of direct.get(stack.pop()!) ?? [])
      if (!out.has(next)) {
        out.add(next);
        stack.push(next);
      }
  byFile.set(path, out);
  return out;
}

/**
 * Whether the schemas of a file are the same on both sides together with every file they reach:
 * then inlining them gives the same schemas, and comparing them finds nothing. Most of a contract
 * is unchanged between two versions, so the diff skips those comparisons.
 */
export function unchangedFile(base: DiffSide, head: DiffSide, path: string): boolean {
  if (base === head) return true;
  const files = reach(head, path);
  const before = reach(base, path);
  if (files.size !== before.size) return false;
  for (const f of files) {
    const hash = head.model.fileHashes[f];
    if (!before.has(f) || hash === undefined || base.model.fileHashes[f] !== hash) return false;
  }
  return true;
}
