/**
 * The approval judge (diff/judge/approval.ts) against brute force: on random condition lists
 * over a few fields, with random enums, types, required fields and defaults on each side, the
 * verdict (some call got stricter, some looser) must equal the one found by trying every call of
 * a bounded argument space, and every example call it reports must be a call of both sides with
 * the levels it states. The space is bounded but complete for the conditions drawn: open fields
 * get every value a condition may name plus values none names.
 */
import fc from "fast-check";
import type { ApprovalLevel, ApprovalModel } from "../../codegen/model";
import { compareApproval, levelFor } from "../../diff/judge/approval";
import { fieldDomain, holds, intersect, type FieldDomain } from "../../diff/normalize/arg-space";

const FIELDS = ["f", "g", "h"] as const;
const LEVELS: ApprovalLevel[] = ["allow", "ask", "deny"];
const STRICT = { allow: 0, ask: 1, deny: 2 };
/** What conditions and defaults may name: strings, numbers, booleans, null (some outside any enum). */
const NAMED = ["a", "b", "c", 0, 1, true, false, null] as const;
/** Every value a call may hold in the brute force: the named ones and some no condition names. */
const POOL = [...NAMED, "zz", "", 7, 2.5];

const field = fc.record({
  // the field's schema on each side
  before: fc.oneof(
    fc.record({ enum: fc.subarray([...NAMED], { minLength: 1 }) }),
    fc.record({ type: fc.constantFrom("string", "integer", "boolean", "number") }),
    fc.constant({}),
  ),
  afterSame: fc.boolean(),
  after: fc.oneof(
    fc.record({ enum: fc.subarray([...NAMED], { minLength: 1 }) }),
    fc.record({ type: fc.constantFrom("string", "integer", "boolean", "number") }),
  ),
  required: fc.boolean(),
  defaultBefore: fc.option(fc.constantFrom(...NAMED), { nil: undefined }),
  defaultAfter: fc.option(fc.constantFrom(...NAMED), { nil: undefined }),
});

const condition = fc.record({
  args: fc
    .subarray([...FIELDS], { minLength: 1 })
    .chain((names) => fc.tuple(...names.map((n) => fc.constantFrom(...NAMED).map((v) => [n, v] as const)))),
  approval: fc.constantFrom(...LEVELS),
});

const fact = fc.record({
  default: fc.constantFrom(...LEVELS),
  when: fc.array(condition, { maxLength: 5 }),
});

const toModel = (f: {
  default: ApprovalLevel;
  when: Array<{ args: ReadonlyArray<readonly [string, unknown]>; approval: ApprovalLevel }>;
}): ApprovalModel => ({
  default: f.default,
  when: f.when.map((c) => ({
    args: Object.fromEntries(c.args) as ApprovalModel["when"][number]["args"],
    approval: c.approval,
  })),
});

describe("the approval judge", () => {
  it("equals brute force over a bounded argument space", () => {
    fc.assert(
      fc.property(fc.tuple(field, field, field), fact, fact, (fields, b, a) => {
        const args = (side: "before" | "after") => ({
          type: "object",
          additionalProperties: false,
          required: FIELDS.filter((_, i) => fields[i]!.required),
          properties: Object.fromEntries(
            FIELDS.map((n, i) => [n, side === "before" || fields[i]!.afterSame ? fields[i]!.before : fields[i]!.after]),
          ),
        });
        const defaults = (side: "defaultBefore" | "defaultAfter") =>
          Object.fromEntries(FIELDS.flatMap((n, i) => (fields[i]![side] === undefined ? [] : [[n, fields[i]![side]]])));
        const facts = { before: toModel(b), after: toModel(a) };
        const defs = { before: defaults("defaultBefore"), after: defaults("defaultAfter") };
        const domains = new Map<string, FieldDomain>(
          FIELDS.map((n) => [n, intersect(fieldDomain(args("before"), n), fieldDomain(args("after"), n))]),
        );

        // brute force: every call of the bounded space that both sides accept
        let tighter = false;
        let looser = false;
        const axes = FIELDS.map((n) => [
          ...POOL.filter((v) => holds(domains.get(n)!, v)).map((v) => ({ v })),
          ...(domains.get(n)!.absent ? [null] : []),
        ]);
        // a field that can hold nothing on both sides leaves no call to compare (the schema diff reports it)
        fc.pre(axes.every((axis) => axis.length > 0));
        const visit = (i: number, call: Record<string, unknown>): void => {
          if (i === FIELDS.length) {
            const x = STRICT[levelFor(facts.before, call, defs.before)];
            const y = STRICT[levelFor(facts.after, call, defs.after)];
            if (y > x) tighter = true;
            if (y < x) looser = true;
            return;
          }
          for (const choice of axes[i]!) visit(i + 1, choice ? { ...call, [FIELDS[i]!]: choice.v } : call);
        };
        visit(0, {});
        const judged = compareApproval(facts, defs, (n) => domains.get(n)!);

        expect({ tighter: judged.tightenedCount > 0, looser: judged.loosenedCount > 0 }).toEqual({ tighter, looser });
        for (const cell of [...judged.tightened, ...judged.loosened]) {
          for (const [n, v] of Object.entries(cell.call)) expect(holds(domains.get(n)!, v)).toBe(true);
          for (const n of cell.absent) expect(domains.get(n)!.absent).toBe(true);
          expect(levelFor(facts.before, cell.call, defs.before)).toBe(cell.before);
          expect(levelFor(facts.after, cell.call, defs.after)).toBe(cell.after);
        }
        expect(judged.tightened.every((c) => STRICT[c.after] > STRICT[c.before])).toBe(true);
        expect(judged.loosened.every((c) => STRICT[c.after] < STRICT[c.before])).toBe(true);
      }),
      { numRuns: 1500, seed: 34 },
    );
  });

  it("reports the call that matches two swapped conditions", () => {
    const ask = { args: { mode: "replace" }, approval: "ask" as const };
    const deny = { args: { baseRevision: 0 }, approval: "deny" as const };
    const domain = (n: string): FieldDomain =>
      n === "mode"
        ? { values: { finite: ["replace", "append"] }, absent: true }
        : { values: { types: ["integer"] }, absent: true };
    const shift = compareApproval(
      { before: { default: "allow", when: [ask, deny] }, after: { default: "allow", when: [deny, ask] } },
      { before: { mode: "append" }, after: { mode: "append" } },
      domain,
    );
    expect(shift).toMatchObject({ tightenedCount: 1, loosenedCount: 0 });
    expect(shift.tightened).toEqual([
      { call: { baseRevision: 0, mode: "replace" }, absent: [], before: "ask", after: "deny" },
    ]);
  });
});
