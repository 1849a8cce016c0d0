/**
 * The semantic table (semantic-cases.ts) against diffContracts: for each row, the worst level the
 * diff reports in each direction must be the one written in the row. That is the bar: no
 * missed breaking change, no breaking flag on an edit that changes no valid payload, no crash.
 */
import { diffContracts } from "../../diff";
import { compareSchemas } from "../../diff/compare/compare-schemas";
import { ruleLevel } from "../../diff/rules";
import type { Level } from "../../diff/rules";
import { set, modelWith, type Edit } from "./harness";
import { SEMANTIC_ROWS, type Verdict } from "./semantic-cases";

const REQUEST_TOOL = "mnote.page.update_title";
const RESPONSE_TOOL = "mnote.page.get";
const ORDER: Verdict[] = ["none", "safe", "warning", "breaking"];

function place(schema: unknown): Edit[] {
  return [
    set("tools/page.update_title.tool.json", "/$defs/Args/properties/probe", schema),
    set("tools/page.get.tool.json", "/$defs/Result/properties/probe", schema),
  ];
}

/** Keywords the contract's own validation refuses (see contract/README.md). */
function usesRefusedKeyword(schema: unknown): boolean {
  return /"(prefixItems|unevaluatedProperties|unevaluatedItems)"/.test(JSON.stringify(schema) ?? "");
}

function worst(levels: Level[]): Verdict {
  return levels.reduce<Verdict>((w, l) => (ORDER.indexOf(l) > ORDER.indexOf(w) ? l : w), "none");
}

describe("the semantic table", () => {
  it("has at least 100 rows with unique names", () => {
    expect(SEMANTIC_ROWS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(SEMANTIC_ROWS.map((r) => r[0])).size).toBe(SEMANTIC_ROWS.length);
  });

  it.each(SEMANTIC_ROWS.map((r) => [r[0], r] as const))("%s", (_name, [, before, after, request, response]) => {
    if (usesRefusedKeyword(before) || usesRefusedKeyword(after)) {
      const expand = { before: (m: Record<string, unknown>) => m, after: (m: Record<string, unknown>) => m };
      const direct = (direction: "request" | "response") =>
        worst(compareSchemas(before, after, direction, expand).map((f) => ruleLevel(f.rule)));
      expect({ request: direct("request"), response: direct("response") }).toEqual({ request, response });
      return;
    }
    const report = diffContracts(modelWith(place(before)), modelWith(place(after)));
    // the rows judge callers: the kernel-reply rules (page.get's Result is also what its kernel
    // command replies with) judge kernels, and are tested by the change and round-5 tables
    const levels = (tool: string) =>
      report.changes
        .filter((c) => !c.rule.startsWith("kernel-reply-"))
        .filter((c) => (c.occurrences ?? [c]).some((o) => o.subject === tool))
        .map((c) => c.level);
    const others = report.changes.filter((c) => ![REQUEST_TOOL, RESPONSE_TOOL].includes(c.subject));
    expect({
      request: worst(levels(REQUEST_TOOL)),
      response: worst(levels(RESPONSE_TOOL)),
      others: others.map((c) => c.rule),
    }).toEqual({ request, response, others: [] });
  });
});
