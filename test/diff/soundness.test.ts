/**
 * Soundness of the parts the diff now trusts to drop findings, checked against a real validator
 * (ajv, 2020-12) on random schemas and a pool of values, with a fixed seed:
 *
 * - every normalizer rule keeps the values a schema accepts (a rewrite that loses or adds one would
 *   hide a change or invent one);
 * - the inclusion prover never claims sub ⊆ sup when some value passes sub and fails sup;
 * - the pattern comparison never claims an inclusion that a string contradicts;
 * - end to end, a request edit the diff does not call breaking refuses no value the base accepted
 *   (no miss);
 * - nothing crashes: every keyword with every kind of value, well-formed or not, at the top, in
 *   a union, a conjunction, a negation and a condition, is judged (a rule per finding) without
 *   throwing.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { normalize } from "../../diff/normalize/normalize";
import { proveSubset } from "../../diff/normalize/subset";
import { SAME_SIDE } from "../../diff/normalize/normalize";
import { comparePatterns } from "../../diff/normalize/regex";
import { compareSchemas } from "../../diff/compare/compare-schemas";
import { ruleLevel } from "../../diff/rules";
import { mapSchema } from "../../codegen/support/schema-walk";

/** mulberry32: a small seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rnd = random(20260522);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
const chance = (p: number) => rnd() < p;

const NAMES = ["a", "b", "k"];
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const PATTERNS = ["^a", "^[a-c]+$", "^[a-z]{1,3}$", "b$", "^\\d+$", "^(?:ab|a)$", "^.*$", "^[^b]*$", "c"];
const STRINGS = ["", "a", "b", "ab", "abc", "abcd", "ba", "c", "12", "1a", "a\nb", "zz", "aaaa", "x-1"];
const NUMBERS = [-1, 0, 0.5, 1, 2, 3, 4, 5, 6, 10, 11, 2.5, 100];

function schema(depth: number): unknown {
  if (chance(0.06)) return pick([true, false, {}]);
  const type = pick(["string", "integer", "number", "object", "array", "boolean", "null", "mixed", "any"]);
  const s: Record<string, unknown> = {};
  if (type === "mixed")
    s.type = pick([
      ["string", "null"],
      ["string", "integer"],
      ["integer", "number"],
      ["object", "array"],
    ]);
  else if (type !== "any") s.type = type;
  const kw = (name: string, value: unknown, p = 0.3) => {
    if (chance(p)) s[name] = value;
  };
  kw("minLength", pick([0, 1, 2, 3]));
  kw("maxLength", pick([0, 1, 2, 3, 5]));
  kw("pattern", pick(PATTERNS));
  kw("minimum", pick([0, 0.5, 1, 3]));
  kw("maximum", pick([2, 3, 4.5, 10]));
  kw("exclusiveMinimum", pick([0, 1, 2.5]), 0.15);
  kw("exclusiveMaximum", pick([3, 5, 10.5]), 0.15);
  kw("multipleOf", pick([1, 2, 0.5, 5]), 0.2);
  kw("enum", pick([["a", "b"], [1, 2, 3], ["a", 1, null], [true], ["ab", "abc"]]), 0.12);
  kw("const", pick(["a", 1, null, 2.5]), 0.06);
  if (depth > 0) {
    if (chance(0.35)) {
      const props: Record<string, unknown> = {};
      for (const n of NAMES) if (chance(0.5)) props[n] = schema(depth - 1);
      s.properties = props;
    }
    kw(
      "required",
      NAMES.filter(() => chance(0.4)),
      0.3,
    );
    kw("additionalProperties", chance(0.5) ? false : schema(depth - 1), 0.3);
    kw("minProperties", pick([0, 1, 2]), 0.1);
    kw("maxProperties", pick([1, 2, 3]), 0.15);
    kw("propertyNames", { pattern: pick(["^[ab]$", "^a"]) }, 0.1);
    kw("dependentRequired", { a: ["b"] }, 0.1);
    kw("items", schema(depth - 1), 0.3);
    kw("minItems", pick([0, 1, 2]), 0.15);
    kw("maxItems", pick([0, 1, 2]), 0.15);
    kw("uniqueItems", pick([true, false]), 0.15);
    kw("contains", schema(depth - 1), 0.08);
    if (chance(0.15)) s.anyOf = [schema(depth - 1), schema(depth - 1)];
    if (chance(0.1)) s.oneOf = [schema(depth - 1), schema(depth - 1)];
    if (chance(0.12)) s.allOf = [schema(depth - 1), schema(depth - 1)];
    if (chance(0.08)) s.not = schema(depth - 1);
    if (chance(0.1)) {
      s.if = schema(depth - 1);
      if (chance(0.8)) s.then = schema(depth - 1);
      if (chance(0.5)) s.else = schema(depth - 1);
    }
    // the shapes normalize.ts rewrites since issue 34, near their edges
    if (chance(0.06))
      s.not = { [pick(["minLength", "maxLength", "minItems", "maxItems", "minProperties"])]: pick([0, 1, 2]) };
    if (chance(0.06))
      s.dependentSchemas = { a: pick([{ required: ["b"] }, { required: ["b", "k"] }, schema(depth - 1)]) };
    if (chance(0.06)) {
      s.if = { required: [pick(NAMES)] };
      s.then = { required: [pick(NAMES)] };
      if (chance(0.3)) s.else = schema(depth - 1);
    }
    if (chance(0.06)) {
      s.contains = chance(0.5)
        ? (s.items ?? { type: "string" })
        : pick([{ const: "a" }, { enum: ["b"] }, { type: "string" }]);
      kw("minContains", pick([0, 1, 2]), 0.3);
      kw("maxContains", pick([1, 2]), 0.5);
    }
    if (chance(0.08))
      // patterns that match declared names (a, b, k), others (z, ab), or both (issue 45)
      s.patternProperties = { [pick(["^a$", "^a", "^[ab]$", "^[kz]$", "b$"])]: schema(depth - 1) };
    if (chance(0.06)) {
      // a condition on a required property with a finite set of values, as a chain or with an else
      s.type = "object";
      s.properties = { ...(s.properties as object), k: { enum: ["a", "b", "ab"] } };
      s.required = [...new Set([...strings(s.required), "k"])];
      const cond = () => ({ properties: { k: { enum: pick([["a"], ["b"], ["ab"], ["a", "b"], ["b", "ab"]]) } } });
      const branch = () => pick([{ required: ["a"] }, { required: ["b"] }, { maxProperties: 1 }, schema(depth - 1)]);
      s.if = cond();
      s.then = branch();
      s.else = chance(0.5) ? { if: cond(), then: branch() } : branch();
    }
  }
  return s;
}

function value(depth: number): unknown {
  const kind = pick(["string", "number", "bool", "null", "array", "object", "string", "number"]);
  if (kind === "string") return pick(STRINGS);
  if (kind === "number") return pick(NUMBERS);
  if (kind === "bool") return chance(0.5);
  if (kind === "null" || depth === 0) return null;
  if (kind === "array") return Array.from({ length: Math.floor(rnd() * 3) }, () => value(depth - 1));
  const out: Record<string, unknown> = {};
  for (const n of NAMES) if (chance(0.45)) out[n] = value(depth - 1);
  // often one of the values a condition on k names (the conditions normalize.ts reorders)
  if ("k" in out && chance(0.6)) out.k = pick(["a", "b", "ab"]);
  if (chance(0.1)) out.z = value(depth - 1);
  return out;
}

const POOL: unknown[] = [
  ...STRINGS,
  ...NUMBERS,
  true,
  false,
  null,
  [],
  {},
  ...Array.from({ length: 400 }, () => value(3)),
  // objects whose k is a value the conditions on k name, with and without the other fields
  ...["a", "b", "ab"].flatMap((k) => [{ k }, { k, a: "a" }, { k, b: 1 }, { k, a: "ab", b: "b" }, { k, a: [] }]),
];

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv, ["date-time"]);
const validators = new Map<string, ValidateFunction>();
function validatorOf(s: unknown): ValidateFunction {
  const key = JSON.stringify(s);
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(typeof s === "boolean" ? s : (s as object));
    validators.set(key, v);
  }
  return v;
}
const accepts = (s: unknown, v: unknown) => validatorOf(s)(v) === true;

/** normalize applied to every node, bottom-up. */
const normalizeDeep = (s: unknown) => mapSchema(s, (node) => normalize(node));

const SCHEMAS = Array.from({ length: 500 }, () => schema(2));

describe("soundness on random schemas (seeded)", () => {
  it("the normalizer keeps the values every schema accepts", () => {
    const wrong: unknown[] = [];
    for (const s of SCHEMAS) {
      const n = normalizeDeep(s);
      for (const v of POOL) if (accepts(s, v) !== accepts(n, v)) wrong.push({ schema: s, normalized: n, value: v });
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });

  it("the prover never proves an inclusion a value contradicts", () => {
    const wrong: unknown[] = [];
    let proven = 0;
    for (let i = 0; i < 4000; i++) {
      const a = pick(SCHEMAS);
      // Half the pairs are a schema against a small edit of itself, where inclusions are common.
      const b = chance(0.5) ? pick(SCHEMAS) : { ...(typeof a === "object" ? a : {}), ...(schema(1) as object) };
      if (!proveSubset(a, b, SAME_SIDE)) continue;
      proven++;
      for (const v of POOL) if (accepts(a, v) && !accepts(b, v)) wrong.push({ sub: a, sup: b, value: v });
    }
    expect(wrong.slice(0, 3)).toEqual([]);
    // The check must have something to check.
    expect(proven).toBeGreaterThan(200);
  });

  it("the pattern comparison agrees with every string it is tried on", () => {
    const strings = [...STRINGS, "", "aa", "abab", "aab", "123", "b\n", "\nab", "cc", "é", "a1", "abcde"];
    const wrong: string[] = [];
    // with and without a length window: inside one, only strings of a length in it count
    const windows = [undefined, { min: 0, max: 2 }, { min: 1, max: 3 }, { min: 2, max: Infinity }];
    let decided = 0;
    for (const p of [...PATTERNS, "^\\p{L}+$", "^[^\\P{Ll}]{1,3}$"])
      for (const q of [...PATTERNS, "^\\p{L}*$"])
        for (const w of windows) {
          const r = comparePatterns(p, q, w);
          if (r !== "unknown") decided++;
          for (const s of strings) {
            const length = [...s].length;
            if (w && (length < w.min || length > w.max)) continue;
            const inP = new RegExp(p, "u").test(s);
            const inQ = new RegExp(q, "u").test(s);
            if ((r === "equal" || r === "subset") && inQ && !inP) wrong.push(`${p} ${r} ${q}: "${s}"`);
            if ((r === "equal" || r === "superset") && inP && !inQ) wrong.push(`${p} ${r} ${q}: "${s}"`);
          }
        }
    expect(wrong).toEqual([]);
    expect(decided).toBeGreaterThan(300);
  });

  it("a request edit the diff does not call breaking refuses no value the base accepted", () => {
    const expand = { before: (m: Record<string, unknown>) => m, after: (m: Record<string, unknown>) => m };
    const missed: unknown[] = [];
    let judged = 0;
    for (let i = 0; i < 1500; i++) {
      const before = pick(SCHEMAS);
      const after = chance(0.5)
        ? pick(SCHEMAS)
        : typeof before === "object"
          ? { ...before, ...(schema(1) as object) }
          : schema(2);
      const breaking = compareSchemas(before, after, "request", expand).some((f) => ruleLevel(f.rule) === "breaking");
      if (breaking) continue;
      judged++;
      const lost = POOL.find((v) => accepts(before, v) && !accepts(after, v));
      if (lost !== undefined) missed.push({ before, after, value: lost });
    }
    expect(missed.slice(0, 3)).toEqual([]);
    expect(judged).toBeGreaterThan(100);
  });

  it("never crashes: every keyword with odd values, wherever it sits, gives findings with rules", () => {
    const expand = { before: (m: Record<string, unknown>) => m, after: (m: Record<string, unknown>) => m };
    const keywords = [
      ...["type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties"],
      ...["items", "prefixItems", "contains", "minContains", "maxContains", "propertyNames", "not", "if", "then"],
      ...["else", "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties", "allOf"],
      ...["anyOf", "oneOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
      ...["minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "minProperties"],
      ...["maxProperties", "default", "description", "title", "$comment", "x-mnote-limit", "x-mnote-truncate"],
      ...["x-mnote-initialValue", "x-mnote-runtimeSupport", "x-mnote-filledBy", "x-unknown", "notAKeyword"],
    ];
    const odd = [null, "x", "(", -1, 0.5, 0, [], [null], {}, { a: 1 }, true, false, { $ref: "#/nowhere" }];
    const places = [
      (k: string, v: unknown) => ({ type: "string", [k]: v }),
      (k: string, v: unknown) => ({ anyOf: [{ [k]: v }, { type: "integer" }] }),
      (k: string, v: unknown) => ({ allOf: [{ [k]: v }] }),
      (k: string, v: unknown) => ({ not: { [k]: v } }),
      (k: string, v: unknown) => ({ if: { [k]: v }, then: { [k]: v } }),
      (k: string, v: unknown) => ({ type: "object", properties: { a: { [k]: v } } }),
    ];
    let judged = 0;
    for (const k of keywords)
      for (const v of odd)
        for (const place of places)
          for (const [before, after] of [
            [place(k, v), {}],
            [{}, place(k, v)],
            [place(k, v), place(k, pick(odd))],
          ])
            for (const direction of ["request", "response"] as const) {
              const findings = compareSchemas(before, after, direction, expand);
              for (const f of findings) expect(typeof ruleLevel(f.rule)).toBe("string");
              judged++;
            }
    expect(judged).toBeGreaterThan(5000);
  });
});
