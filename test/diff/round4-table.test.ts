/**
 * The round-4 table (round4-cases.ts) against diffContracts: per row, the worst level per direction
 * must be the one written in the row, and nothing else may be reported; per edit row, exactly the
 * rules listed, with the example calls an approval change names. The bar of issue 34: no miss and
 * no false breaking verdict for every class the held-out edits found.
 */
import { diffContracts } from "../../diff";
import { modelWith } from "./harness";
import { CLASSES, ROUND4_EDITS, ROUND4_ROWS } from "./round4-cases";
import { verdicts } from "./table-verdicts";

describe("the round-4 table", () => {
  const all = [...ROUND4_ROWS, ...ROUND4_EDITS];

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
    const rows = ROUND4_ROWS.filter((r) => r.cls === cls);
    if (rows.length > 0)
      it.each(rows.map((r) => [r.name, r] as const))("%s", (_name, row) => {
        expect(verdicts(row)).toEqual({ request: row.request, response: row.response, others: [] });
      });
    const edits = ROUND4_EDITS.filter((r) => r.cls === cls);
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
