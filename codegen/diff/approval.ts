/**
 * How a change of a tool's approval fact (x-mnote-tool approval) is judged: per situation a call
 * can be in (the args values the base's or the head's conditions name, and none of them), the
 * level before and after, ordered allow < ask < deny. More approval anywhere breaks callers that
 * never ask a person (or that called the tool at all, for deny); less is a warning that reaches the
 * changelog (writes that waited for a person now go through without one).
 */
import type { ApprovalLevel, ApprovalModel } from "../model";

const STRICTNESS: Readonly<Record<ApprovalLevel, number>> = { allow: 0, ask: 1, deny: 2 };

/** The level a fact gives for these args (first matching condition, else the default). */
function levelFor(
  fact: ApprovalModel,
  args: Readonly<Record<string, unknown>>,
  defaults: Readonly<Record<string, unknown>>,
): ApprovalLevel {
  for (const c of fact.when) {
    const hit = Object.keys(c.args).every(
      (f) => (Object.prototype.hasOwnProperty.call(args, f) ? args[f] : defaults[f]) === c.args[f],
    );
    if (hit) return c.approval;
  }
  return fact.default;
}

export interface ApprovalShift {
  /** Some situation needs more approval than before. */
  tightened: boolean;
  /** Some situation needs less. */
  loosened: boolean;
  /** One line per situation whose level changed: `mode=replace: allow -> ask`. */
  details: string[];
}

/** Compares two approval facts situation by situation. */
export function compareApproval(
  before: ApprovalModel,
  after: ApprovalModel,
  defaults: { before: Readonly<Record<string, unknown>>; after: Readonly<Record<string, unknown>> },
): ApprovalShift {
  const situations: Array<Record<string, unknown>> = [
    {},
    ...before.when.map((c) => c.args),
    ...after.when.map((c) => c.args),
  ];
  const seen = new Set<string>();
  const out: ApprovalShift = { tightened: false, loosened: false, details: [] };
  for (const args of situations) {
    const key = JSON.stringify(Object.entries(args).sort());
    if (seen.has(key)) continue;
    seen.add(key);
    const b = levelFor(before, args, defaults.before);
    const a = levelFor(after, args, defaults.after);
    if (b === a) continue;
    if (STRICTNESS[a] > STRICTNESS[b]) out.tightened = true;
    else out.loosened = true;
    const label =
      Object.keys(args).length === 0
        ? "by default"
        : Object.entries(args)
            .map(([f, v]) => `${f}=${JSON.stringify(v)}`)
            .join(", ");
    out.details.push(`${label}: ${b} -> ${a}`);
  }
  return out;
}
