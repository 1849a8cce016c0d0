/** The change table (cases.ts) against diffContracts, and the table's coverage of rules.ts. */
import { diffContracts } from "../../diff";
import { RULES, type RuleId } from "../../diff/rules";
import { DIRECTED_KINDS, REQUEST_ONLY_KINDS, directedRule } from "../../diff/judge/keyword-rules";
import { CASES, type Expected } from "./cases";
import { SEMANTIC_ROWS } from "./semantic-cases";
import { modelWith } from "./harness";

/** A grouped change stands for each of its places. */
const summary = (changes: ReturnType<typeof diffContracts>["changes"]): Expected[] =>
  changes.flatMap((c) =>
    (c.occurrences ?? [{ subject: c.subject, pointer: c.pointer }]).map((o): Expected => [
      c.rule,
      c.level,
      o.subject,
      o.pointer,
    ]),
  );

const sorted = (list: readonly Expected[]) => [...list].sort((a, b) => (a.join("\0") < b.join("\0") ? -1 : 1));

describe("the change table", () => {
  it("has at least 30 cases with unique names, and with the semantic table at least 150", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(CASES.length + SEMANTIC_ROWS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  describe.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    it("reports exactly the expected rules, levels, subjects and pointers", () => {
      const report = diffContracts(modelWith(c.before ?? []), modelWith(c.after));
      expect(sorted(summary(report.changes))).toEqual(sorted(c.expect));
    });

    if (c.reverse) {
      const reverse = c.reverse;
      it("reports the inverse when the sides are swapped", () => {
        const report = diffContracts(modelWith(c.after), modelWith(c.before ?? []));
        expect(sorted(summary(report.changes))).toEqual(sorted(reverse));
      });
    }
  });

  it("covers every rule in rules.ts", () => {
    const seen = new Set<RuleId>();
    for (const c of CASES) for (const [rule] of [...c.expect, ...(c.reverse ?? [])]) seen.add(rule);
    const missing = RULES.map((r) => r.id).filter((id) => !seen.has(id));
    expect(missing).toEqual([]);
  });

  it("tests every schema rule in both directions (request and response)", () => {
    const directions = new Map<string, Set<string>>();
    for (const c of CASES) {
      for (const [rule] of [...c.expect, ...(c.reverse ?? [])]) {
        const m = /^(request|response)-(.*)$/.exec(rule);
        if (m) directions.set(m[2]!, (directions.get(m[2]!) ?? new Set()).add(m[1]!));
      }
    }
    // option-wired/unwired and filled-by-changed exist for requests only: in a response those facts are annotations.
    const oneSided = [...REQUEST_ONLY_KINDS, "unproven-narrowing", "unproven-widening"];
    const incomplete = [...directions]
      .filter(([kind, dirs]) => !oneSided.includes(kind) && dirs.size !== 2)
      .map(([kind]) => kind);
    expect(incomplete).toEqual([]);
  });
});

describe("the rule table", () => {
  it("has unique ids, each with a level and a summary", () => {
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    for (const r of RULES) {
      expect(["breaking", "warning", "safe"]).toContain(r.level);
      expect(r.summary.length).toBeGreaterThan(10);
    }
  });

  it("has a rule for every kind of schema change in each direction the comparer can emit", () => {
    for (const kind of DIRECTED_KINDS) {
      expect(() => directedRule("request", kind)).not.toThrow();
      if (!REQUEST_ONLY_KINDS.has(kind)) expect(() => directedRule("response", kind)).not.toThrow();
    }
  });

  it("judges stricter requests and looser responses as breaking", () => {
    const level = (id: string) => RULES.find((r) => r.id === id)!.level;
    expect([level("request-required-added"), level("response-required-removed")]).toEqual(["breaking", "breaking"]);
    expect([level("request-enum-widened"), level("response-enum-narrowed")]).toEqual(["safe", "safe"]);
    expect([level("request-enum-narrowed"), level("response-enum-widened")]).toEqual(["breaking", "breaking"]);
  });
});
