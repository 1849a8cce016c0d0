/**
 * The round-3 table (round3-cases.ts) against diffContracts: per row, the worst level the diff
 * reports for the request tool and for the response tool must be the one written in the row, and
 * nothing else may be reported. The bar of issue 22: no miss, no false breaking verdict, no crash,
 * for every class of the issue.
 */
import { diffContracts } from "../../diff";
import { modelWith } from "./harness";
import { CLASSES, ROUND3_EDITS, ROUND3_ROWS } from "./round3-cases";
import { verdicts } from "./table-verdicts";

describe("the round-3 table", () => {
  const all = [...ROUND3_ROWS, ...ROUND3_EDITS];

  it("has rows for every class of the issue, with unique names", () => {
    for (const cls of CLASSES) expect(all.filter((r) => r.cls === cls).length).toBeGreaterThanOrEqual(3);
    expect(new Set(all.map((r) => r.name)).size).toBe(all.length);
  });

  it("has, in every class of the issue, edits that must be found (breaking) and, for the precision classes, edits that must not (none)", () => {
    const breaks = (r: (typeof all)[number]) =>
      "expect" in r ? r.expect.some(([, level]) => level === "breaking") : [r.request, r.response].includes("breaking");
    for (const cls of CLASSES) {
      const rows = all.filter((r) => r.cls === cls);
      expect(rows.some(breaks)).toBe(true);
      if (
        [
          "regex",
          "integers",
          "redundant",
          "unions",
          "conditionals",
          "mixed-unions",
          "ref-siblings",
          "recursion",
        ].includes(cls)
      )
        expect(ROUND3_ROWS.some((r) => r.cls === cls && r.request === "none" && r.response === "none")).toBe(true);
    }
  });

  describe.each(CLASSES.map((c) => [c] as const))("%s", (cls) => {
    const rows = ROUND3_ROWS.filter((r) => r.cls === cls);
    if (rows.length > 0)
      it.each(rows.map((r) => [r.name, r] as const))("%s", (_name, row) => {
        expect(verdicts(row)).toEqual({ request: row.request, response: row.response, others: [] });
      });
    const edits = ROUND3_EDITS.filter((r) => r.cls === cls);
    if (edits.length > 0)
      it.each(edits.map((r) => [r.name, r] as const))("%s", (_name, row) => {
        const report = diffContracts(modelWith(row.before ?? []), modelWith(row.after));
        const found = [...new Set(report.changes.map((c) => `${c.rule} ${c.level}`))].sort();
        expect(found).toEqual(row.expect.map(([rule, level]) => `${rule} ${level}`).sort());
      });
  });
});
