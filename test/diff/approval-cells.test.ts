/**
 * The approval judge (diff/judge/approval.ts) against brute force: on random condition lists
 * over a few fields, with random enums, types (nullable ones too), required fields and defaults on
 * each side, and conditions naming null ("the call gives no value"), the verdict (some call got
 * stricter, some looser) must equal the one found by trying every call of a bounded argument space
 * with the runtime's own decision function (generated/frameworks/decision.ts, ruleLevel), and every
 * example call it reports must be a call of both sides with the levels that function gives. Which
 * calls each side accepts is ajv's word, not the judge's. The space is bounded but complete for the
 * conditions drawn: open fields get every value a condition may name plus values none names, null,
 * and the field left out.
 */
import Ajv2020 from "ajv/dist/2020";
import fc from "fast-check";
import type { ApprovalLevel, ApprovalModel } from "../../codegen/model";
import { compareApproval, levelFor } from "../../diff/judge/approval";
import { fieldDomain, intersect, type FieldDomain } from "../../diff/normalize/arg-space";
import { ruleLevel } from "../../generated/frameworks/decision";

const FIELDS = ["f", "g", "h"] as const;
const LEVELS: ApprovalLevel[] = ["allow", "ask", "deny"];
const STRICT = { allow: 0, ask: 1, deny: 2 };
/** What conditions and defaults may name: strings, numbers, booleans, null (some outside any enum). */
const NAMED = ["a", "b", "c", 0, 1, true, false, null] as const;
/** Every value a call may hold in the brute force: the named ones and some no condition names. */
const POOL = [...NAMED, "zz", "", 7, 2.5];

/** A field's type: a plain one, or one that admits null (a call may then send null for it). */
const TYPE = fc.oneof(
  fc.constantFrom("string", "integer", "boolean", "number"),
  fc.constantFrom("string", "integer", "boolean").map((t) => [t, "null"]),
);

/** Per field schema, whether it accepts a value: ajv's word (compiled once per distinct schema). */
const ajv = new Ajv2020({ strict: false });
const validators = new Map<string, (v: unknown) => boolean>();
function accepts(schema: object, value: unknown): boolean {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    const compiled = ajv.compile(schema);
    validate = (v) => compiled(v);
    validators.set(key, validate);
  }
  return validate(value);
}

/** The runtime's level for a call: the decision function every host and framework runs. */
const runtimeLevel = (fact: ApprovalModel, call: Record<string, unknown>, defaults: Record<string, unknown>) =>
  ruleLevel(fact as Parameters<typeof ruleLevel>[0], call, defaults);

const field = fc.record({
  // the field's schema on each side
  before: fc.oneof(
    fc.record({ enum: fc.subarray([...NAMED], { minLength: 1 }) }),
    fc.record({ type: TYPE }),
    fc.constant({}),
  ),
  afterSame: fc.boolean(),
  after: fc.oneof(fc.record({ enum: fc.subarray([...NAMED], { minLength: 1 }) }), fc.record({ type: TYPE })),
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
        // a call both sides accept (ajv): each field's value passes its schema on both sides, or the
        // field is left out where neither side requires it
        const fieldSchemas = (i: number) => [
          fields[i]!.before,
          fields[i]!.afterSame ? fields[i]!.before : fields[i]!.after,
        ];
        const valid = (i: number, value: unknown) => fieldSchemas(i).every((s) => accepts(s, value));

        // brute force: every call of the bounded space that both sides accept
        let tighter = false;
        let looser = false;
        const axes = FIELDS.map((_, i) => [
          ...POOL.filter((v) => valid(i, v)).map((v) => ({ v })),
          ...(fields[i]!.required ? [] : [undefined]),
        ]);
        // a field that can hold nothing on both sides leaves no call to compare (the schema diff reports it)
        fc.pre(axes.every((axis) => axis.length > 0));
        const visit = (i: number, call: Record<string, unknown>): void => {
          if (i === FIELDS.length) {
            const x = STRICT[runtimeLevel(facts.before, call, defs.before)];
            const y = STRICT[runtimeLevel(facts.after, call, defs.after)];
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
          for (const [n, v] of Object.entries(cell.call)) expect(valid(FIELDS.indexOf(n as "f"), v)).toBe(true);
          for (const n of cell.absent) expect(fields[FIELDS.indexOf(n as "f")]!.required).toBe(false);
          expect(runtimeLevel(facts.before, cell.call, defs.before)).toBe(cell.before);
          expect(runtimeLevel(facts.after, cell.call, defs.after)).toBe(cell.after);
          expect(levelFor(facts.before, cell.call, defs.before)).toBe(cell.before);
        }
        expect(judged.tightened.every((c) => STRICT[c.after] > STRICT[c.before])).toBe(true);
        expect(judged.loosened.every((c) => STRICT[c.after] < STRICT[c.before])).toBe(true);
      }),
      { numRuns: Number(process.env.APPROVAL_RUNS ?? 1500), seed: Number(process.env.APPROVAL_SEED ?? 34) },
    );
  }, 120_000);

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
