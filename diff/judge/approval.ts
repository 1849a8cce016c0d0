/**
 * How a change of a tool's approval fact (x-mnote-tool approval) is judged: as a function from the
 * space of calls to a level, ordered allow < ask < deny.
 *
 * A condition compares top-level args fields with scalars, so the space splits into finitely many
 * cells that every condition of both sides treats alike: per field named by any condition, each
 * value some condition names (and the field's schema admits), null (when the schema admits it: a
 * call giving null gives no value, as the runtime reads it), one value no condition names (when
 * the field admits one), and the field left out (when it is not required; it then counts as its
 * default, on each side its own). A condition naming null holds exactly when the call gives no
 * value (left out or null), whatever the default (conditionHolds below, as the runtime reads it). Every call falls in one cell, and all calls of a cell get the same
 * level on each side, so comparing the level per cell is exact. A cell whose level rose breaks
 * callers that never ask a person (or that called the tool at all, for deny); one whose level fell
 * is a warning that reaches the changelog. Each is reported with an example call.
 *
 * A value the field's schema refuses (outside its enum, of another type) is no cell: a condition on
 * it can never match, so adding or removing it changes nothing.
 */
import type { ApprovalLevel, ApprovalModel } from "../../codegen/model";
import { holds, otherValue, sameScalar, type FieldDomain } from "../normalize/arg-space";

const STRICTNESS: Readonly<Record<ApprovalLevel, number>> = { allow: 0, ask: 1, deny: 2 };
/** The most changed cells named per direction in a message; the rest are counted. */
const SHOWN = 4;
/** Beyond this many cells the judge stops and says so (a contract with this many conditions is not one we have). */
const MAX_CELLS = 100_000;

type Args = Readonly<Record<string, unknown>>;

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Whether one condition holds for a call, read exactly as the runtime's one decision function
 * reads it (generated/frameworks/decision.ts `conditionHolds`, written by
 * codegen/targets/frameworks/decision.ts; test/diff/approval-cells.test.ts checks the two agree):
 * a condition value of null holds when the call gives no value for the field (left out, or null,
 * which the raise step drops), whatever its default; any other value holds when it equals the
 * call's value, or the field's default when the call gives none.
 */
export function conditionHolds(condition: Readonly<Record<string, unknown>>, args: Args, defaults: Args): boolean {
  return Object.keys(condition).every((f) => {
    const expected = condition[f];
    const given = own(args, f) ? args[f] : undefined;
    const absent = given === undefined || given === null;
    if (expected === null) return absent;
    return sameScalar(absent ? (own(defaults, f) ? defaults[f] : undefined) : given, expected);
  });
}

/** The level a fact gives for these args (first matching condition, else the default). */
export function levelFor(fact: ApprovalModel, args: Args, defaults: Args): ApprovalLevel {
  for (const c of fact.when) if (conditionHolds(c.args, args, defaults)) return c.approval;
  return fact.default;
}

/** One cell whose level changed, with an example call from it. */
export interface ChangedCell {
  call: Record<string, unknown>;
  /** Fields the example leaves out (they count as their default, on each side its own). */
  absent: string[];
  before: ApprovalLevel;
  after: ApprovalLevel;
}

export interface ApprovalShift {
  /** Cells that need more approval than before (the first few), and how many there are. */
  tightened: ChangedCell[];
  tightenedCount: number;
  /** Cells that need less. */
  loosened: ChangedCell[];
  loosenedCount: number;
  /** Set when the space was too large to judge: the change is not proven harmless. */
  tooLarge?: string;
}

export interface ApprovalSides<T> {
  before: T;
  after: T;
}

/** Per field: the values that make a cell (named ones, one other, and "left out" as undefined). */
function cellValues(
  field: string,
  facts: ApprovalSides<ApprovalModel>,
  domain: FieldDomain,
): Array<{ value: unknown } | "absent"> {
  const named: unknown[] = [];
  for (const c of [...facts.before.when, ...facts.after.when])
    if (Object.prototype.hasOwnProperty.call(c.args, field)) {
      const v = c.args[field];
      if (holds(domain, v) && !named.some((n) => sameScalar(n, v))) named.push(v);
    }
  // null is no "other value": a call giving null gives no value, so its default stands in (a cell of its own)
  if (!named.includes(null) && holds(domain, null)) named.push(null);
  const other = otherValue(domain, named);
  return [
    ...named.map((value) => ({ value })),
    ...(other !== undefined ? [{ value: other }] : []),
    ...(domain.absent ? (["absent"] as const) : []),
  ];
}

/** `{"mode":"replace"} (baseRevision left out): allow -> ask`, one per cell, then how many more. */
export function describeCells(cells: readonly ChangedCell[], count: number): string[] {
  const out = cells.map(({ call, absent, before, after }) => {
    const left = absent.length > 0 ? ` (${absent.join(", ")} left out)` : "";
    return `${JSON.stringify(call)}${left}: ${before} -> ${after}`;
  });
  if (count > cells.length) out.push(`and ${count - cells.length} more`);
  return out;
}

/**
 * Compares two approval facts cell by cell. `domains(field)` is what the field may hold on both
 * sides (arg-space.ts); `defaults` what a left-out field counts as, per side.
 */
export function compareApproval(
  facts: ApprovalSides<ApprovalModel>,
  defaults: ApprovalSides<Args>,
  domains: (field: string) => FieldDomain,
): ApprovalShift {
  const fields = [...new Set([...facts.before.when, ...facts.after.when].flatMap((c) => Object.keys(c.args)))].sort();
  const axes = fields.map((f) => cellValues(f, facts, domains(f)));
  const out: ApprovalShift = { tightened: [], tightenedCount: 0, loosened: [], loosenedCount: 0 };
  const total = axes.reduce((n, a) => n * a.length, 1);
  if (total > MAX_CELLS) return { ...out, tooLarge: `${total} combinations of ${fields.join(", ")}` };
  const index = fields.map(() => 0);
  for (let n = 0; n < total; n++) {
    const call: Record<string, unknown> = {};
    const absent: string[] = [];
    axes.forEach((axis, i) => {
      const v = axis[index[i]!]!;
      if (v === "absent") absent.push(fields[i]!);
      else call[fields[i]!] = v.value;
    });
    const before = levelFor(facts.before, call, defaults.before);
    const after = levelFor(facts.after, call, defaults.after);
    if (before !== after) {
      const way = STRICTNESS[after] > STRICTNESS[before] ? "tightened" : "loosened";
      const count = way === "tightened" ? "tightenedCount" : "loosenedCount";
      if (out[count]++ < SHOWN) out[way].push({ call, absent, before, after });
    }
    // the next cell: the last field varies fastest
    for (let i = index.length - 1; i >= 0; i--) {
      if (++index[i]! < axes[i]!.length) break;
      index[i] = 0;
    }
  }
  return out;
}
