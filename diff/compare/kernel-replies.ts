/**
 * The kernel as its own audience (issue 45): a kernel reply (a command's Result, the tool Result a
 * command returns, KernelReply, KernelError) is written by kernels and checked by the generated
 * kernel client against the head. So besides the response rules (the runtime reading it), a reply
 * schema is compared the way a request is, from the writer's side: whatever the head refuses that
 * the base accepted breaks kernels built on the base, `kernel-reply-narrowed` (or
 * `kernel-reply-unproven-narrowing` when the comparison could not prove the head accepts it).
 * Findings about what code reads rather than the values a validator accepts (x-mnote-* facts, a
 * default) are no reply a validator refuses, and are left to the response rules.
 */
import type { DirectedKind } from "../judge/keyword-rules";
import type { RuleId } from "../rules";
import type { Change } from "../types";
import { change, type Place } from "./change";
import { compareSchemas, type Expanders } from "./compare-schemas";

/** The kinds of request finding that refuse a value the base accepted. */
const REFUSING: ReadonlySet<DirectedKind> = new Set([
  "property-removed",
  "required-added",
  "type-narrowed",
  "enum-narrowed",
  "constraint-tightened",
  "constraint-changed",
  "additional-properties-closed",
  "variant-removed",
  "nesting-reduced",
  "unproven",
]);

/** The kernel-reply changes between two reply schemas. */
export function kernelReplyChanges(
  before: unknown,
  after: unknown,
  expand: Expanders,
  root: string,
  subject: string,
  fallback: Place,
): Change[] {
  const out: Change[] = [];
  for (const f of compareSchemas(before, after, "request", expand, root)) {
    if (f.fact || f.kind === undefined || !REFUSING.has(f.kind)) continue;
    const rule: RuleId = f.kind === "unproven" ? "kernel-reply-unproven-narrowing" : "kernel-reply-narrowed";
    const place = f.origin ? { file: f.origin.file, filePointer: f.origin.pointer } : fallback;
    const message = `kernels built on the base may reply with values the head refuses: ${f.message}`;
    out.push(change(rule, subject, f.pointer, place, message, f.before, f.after, "kernel"));
  }
  return out;
}
