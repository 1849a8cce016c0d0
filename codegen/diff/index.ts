/**
 * Breaking-change detection between two contract versions: the pure API behind `mnote-tools diff`.
 * Both sides are ContractModels from buildModel, so both were validated the same way.
 */
import type { ContractModel } from "../model";
import type { Level } from "./rules";
import type { Change, DiffReport } from "./types";
import { diffSide } from "./side";
import { compareTools } from "./compare-tools";
import { compareEnvelope } from "./compare-envelope";
import { compareKernel } from "./compare-kernel";
import { compareCapabilities, compareErrors } from "./compare-catalogs";
import { compareManifest } from "./compare-manifest";
import { verdictFor } from "./version";

export type { Change, DiffReport, Verdict, Direction } from "./types";
export { RULES, type Level, type RuleId } from "./rules";

const LEVEL_ORDER: Record<Level, number> = { breaking: 0, warning: 1, safe: 2 };

export function diffContracts(base: ContractModel, head: ContractModel): DiffReport {
  const b = diffSide(base);
  const h = diffSide(head);
  const changes = [...compareManifest(base, head), ...compareTools(b, h), ...compareKernel(b, h), ...compareEnvelope(b, h), ...compareErrors(base, head), ...compareCapabilities(base, head)].sort(
    byReportOrder,
  );
  const counts: Record<Level, number> = { breaking: 0, warning: 0, safe: 0 };
  for (const c of changes) counts[c.level] += 1;
  return {
    name: head.name,
    base: { version: base.version },
    head: { version: head.version },
    counts,
    changes,
    verdict: verdictFor(base.version, head.version, counts),
  };
}

function byReportOrder(x: Change, y: Change): number {
  return LEVEL_ORDER[x.level] - LEVEL_ORDER[y.level] || cmp(x.subject, y.subject) || cmp(x.pointer, y.pointer) || cmp(x.rule, y.rule);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
