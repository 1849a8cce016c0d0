/**
 * The round-5 table (round5-cases.ts) against diffContracts: per row, the worst level per direction
 * must be the one written in the row, and nothing else may be reported; beside each row, ajv (draft
 * 2020-12, as the runtime validates) must agree: a row with no change accepts and refuses the same
 * values on both sides (its probes, and random JSON values), a row with a witness accepts it on one
 * side only. Per edit row, exactly the rules listed, with the example calls an approval change names.
 */
import Ajv2020 from "ajv/dist/2020";
import fc from "fast-check";
import { diffContracts } from "../../diff";
import { resolveSeverities } from "../../diff/judge/severity";
import { formatMarkdown } from "../../diff/report/report";
import { formatSarif } from "../../diff/report/sarif";
import { modelWith, set } from "./harness";
import { CLASSES, ROUND5_EDITS, ROUND5_ROWS, type Round5Row } from "./round5-cases";
import { verdicts } from "./table-verdicts";

const COMMON = "../model/common.schema.json#/$defs/";

/** The row's two sides as self-contained schemas for ajv (the common definitions as local $defs). */
function validators(row: Round5Row): [(v: unknown) => boolean, (v: unknown) => boolean] {
  const ajv = new Ajv2020({ strict: false });
  const compile = (schema: unknown, defs: Record<string, unknown> = {}) => {
    const local = (x: unknown) => JSON.parse(JSON.stringify(x).split(COMMON).join("#/$defs/")) as unknown;
    const root = typeof schema === "boolean" ? { allOf: [schema] } : (local(schema) as Record<string, unknown>);
    const validate = ajv.compile({ ...root, $defs: local(defs) });
    return (v: unknown) => validate(v);
  };
  return [compile(row.before, row.defs?.before), compile(row.after, row.defs?.after)];
}

describe("the round-5 table", () => {
  const all = [...ROUND5_ROWS, ...ROUND5_EDITS];

  it("has rows for every class of the issue, with unique names, each with an edit that must be found", () => {
    for (const cls of CLASSES) {
      const rows = all.filter((r) => r.cls === cls);
      expect(rows.length).toBeGreaterThanOrEqual(3);
      const found = rows.some((r) =>
        "expect" in r ? r.expect.some(([, level]) => level !== "safe") : r.request !== "none" || r.response !== "none",
      );
      expect(found).toBe(true);
    }
    expect(new Set(all.map((r) => r.name)).size).toBe(all.length);
  });

  describe.each(CLASSES.map((c) => [c] as const))("%s", (cls) => {
    const rows = ROUND5_ROWS.filter((r) => r.cls === cls);
    if (rows.length > 0)
      it.each(rows.map((r) => [r.name, r] as const))("%s", (_name, row) => {
        expect(verdicts(row)).toEqual({ request: row.request, response: row.response, others: [] });
        const [before, after] = validators(row);
        if (row.request === "none" && row.response === "none") {
          expect(row.probes?.length ?? 0).toBeGreaterThan(0);
          for (const v of row.probes ?? []) expect([v, before(v)]).toEqual([v, after(v)]);
          fc.assert(
            fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => before(v) === after(v)),
            { numRuns: 300, seed: 45 },
          );
        }
        if (row.witness !== undefined) expect(before(row.witness)).not.toBe(after(row.witness));
      });
    const edits = ROUND5_EDITS.filter((r) => r.cls === cls);
    if (edits.length > 0)
      it.each(edits.map((r) => [r.name, r] as const))("%s", (_name, row) => {
        const report = diffContracts(modelWith(row.before ?? []), modelWith(row.after));
        const found = [...new Set(report.changes.map((c) => `${c.rule} ${c.level}`))].sort();
        expect(found).toEqual(row.expect.map(([rule, level]) => `${rule} ${level}`).sort());
        for (const words of row.messages ?? [])
          expect(report.changes.map((c) => c.message).join("\n")).toContain(words);
      });
  });
});

describe("the kernel as an audience", () => {
  const narrowed = [
    set("kernel/access.check.command.json", "/$defs/Result/properties/result/properties/granted/minItems", 1),
  ];
  const labels = { base: "contract-releases/1.0.0", head: "contract" };

  it("names the audience: kernels for the kernel-reply rule, the runtime for the response rule at the same place", () => {
    const report = diffContracts(modelWith([]), modelWith(narrowed));
    const byRule = new Map(report.changes.map((c) => [c.rule, c]));
    expect(byRule.get("kernel-reply-narrowed")).toMatchObject({
      subject: "kernel:access.check",
      pointer: "/result/properties/result/properties/granted/minItems",
      categories: ["kernel"],
      audiences: ["kernels"],
      severity: "error",
    });
    expect(byRule.get("response-constraint-tightened")).toMatchObject({ audiences: ["runtimes"], severity: "info" });
    expect(report.verdict.ok).toBe(false);

    const sarif = JSON.parse(formatSarif(report, labels)) as {
      runs: Array<{
        results: Array<{ ruleId: string; message: { text: string }; properties: { audiences: string[] } }>;
      }>;
    };
    const result = sarif.runs[0]!.results.find((r) => r.ruleId === "kernel-reply-narrowed")!;
    expect(result.properties.audiences).toEqual(["kernels"]);
    expect(result.message.text).toMatch(/\(for kernels\)$/);
    const markdown = formatMarkdown(report, labels);
    expect(markdown).toContain("| rule | for | where | change | file |");
    expect(markdown).toMatch(/\| `kernel-reply-narrowed` \| kernels \| kernel:access\.check /);
  });

  it("takes its severity from the severity file, like every rule", () => {
    const warnOnly = resolveSeverities({ rules: { "kernel-reply-narrowed": "warn" } });
    const report = diffContracts(modelWith([]), modelWith(narrowed), { severities: warnOnly });
    expect(report.changes.find((c) => c.rule === "kernel-reply-narrowed")?.severity).toBe("warn");
    expect(report.verdict.ok).toBe(true);
    const off = resolveSeverities({ except: ["kernel"] });
    expect(diffContracts(modelWith([]), modelWith(narrowed), { severities: off }).changes).toEqual([]);
  });
});
