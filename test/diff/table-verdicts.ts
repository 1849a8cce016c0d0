/**
 * How a table row (round3-cases.ts, round4-cases.ts) is judged: `before` and `after` go into a
 * tool's Args (request) and a tool's Result (response) as a field "probe", and the worst level the
 * diff reports for each tool is the row's verdict in that direction (for callers: the kernel-reply
 * rules, which judge kernels, are left out); anything reported elsewhere is listed in `others`
 * (which must stay empty).
 */
import { diffContracts } from "../../diff";
import { compareSchemas } from "../../diff/compare/compare-schemas";
import { ruleLevel, type Level } from "../../diff/rules";
import { set, modelWith, type Edit } from "./harness";
import type { Verdict } from "./semantic-cases";

export const REQUEST_TOOL = "mnote.page.update_title";
export const RESPONSE_TOOL = "mnote.page.get";
const ORDER: Verdict[] = ["none", "safe", "warning", "breaking"];

export interface ProbeRow {
  before: unknown;
  after: unknown;
  /** Definitions in model/common.schema.json, per side. */
  defs?: { before?: Record<string, unknown>; after?: Record<string, unknown> };
  /** Compare the two schemas directly (keywords the contract refuses). */
  direct?: boolean;
}

export function worst(levels: Level[]): Verdict {
  return levels.reduce<Verdict>((w, l) => (ORDER.indexOf(l) > ORDER.indexOf(w) ? l : w), "none");
}

function side(schema: unknown, defs: Record<string, unknown> = {}): Edit[] {
  return [
    ...Object.entries(defs).map(([name, def]) => set("model/common.schema.json", `/$defs/${name}`, def)),
    set("tools/page.update_title.tool.json", "/$defs/Args/properties/probe", schema),
    set("tools/page.get.tool.json", "/$defs/Result/properties/probe", schema),
  ];
}

export function verdicts(row: ProbeRow): { request: Verdict; response: Verdict; others: string[] } {
  if (row.direct) {
    const expand = { before: (m: Record<string, unknown>) => m, after: (m: Record<string, unknown>) => m };
    const direct = (direction: "request" | "response") =>
      worst(compareSchemas(row.before, row.after, direction, expand).map((f) => ruleLevel(f.rule)));
    return { request: direct("request"), response: direct("response"), others: [] };
  }
  const report = diffContracts(
    modelWith(side(row.before, row.defs?.before)),
    modelWith(side(row.after, row.defs?.after)),
  );
  // the rows judge callers: the kernel-reply rules (page.get's Result is also what its kernel
  // command replies with) judge kernels, and are tested by the round-5 table's kernel rows
  const levels = (tool: string) =>
    report.changes
      .filter((c) => !c.rule.startsWith("kernel-reply-"))
      .filter((c) => (c.occurrences ?? [c]).some((o) => o.subject === tool))
      .map((c) => c.level);
  return {
    request: worst(levels(REQUEST_TOOL)),
    response: worst(levels(RESPONSE_TOOL)),
    others: report.changes.filter((c) => ![REQUEST_TOOL, RESPONSE_TOOL].includes(c.subject)).map((c) => c.rule),
  };
}
