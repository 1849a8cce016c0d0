/**
 * Breaking-change detection between two contract versions: the pure API behind `mnote-tools diff`.
 * Both sides are ContractModels from buildModel, so both were validated the same way.
 */
import type { ContractModel } from "../codegen/model";
import { CATEGORIES, type Level } from "./rules";
import type { Change, DiffReport } from "./types";
import { AUDIENCES } from "./audience";
import { diffSide } from "./compare/side";
import { compareTools } from "./compare/compare-tools";
import { compareEnvelope } from "./compare/compare-envelope";
import { compareKernel } from "./compare/compare-kernel";
import { compareCapabilities, compareErrors } from "./compare/compare-catalogs";
import { compareManifest } from "./compare/compare-manifest";
import { compareFacts } from "./compare/compare-facts";
import { fingerprintChanges } from "./judge/fingerprint";
import { applySeverities, resolveSeverities, type SeverityConfig } from "./judge/severity";
import { verdictFor } from "./load/version";

export type { Change, DiffReport, Verdict, Direction } from "./types";
export { RULES, CATEGORIES, type Level, type RuleId, type Category } from "./rules";
export type { Severity, SeverityConfig } from "./judge/severity";

const LEVEL_ORDER: Record<Level, number> = { breaking: 0, warning: 1, safe: 2 };

export interface DiffOptions {
  /** Categories judged and the severity of each rule (default: every category, severity by level). */
  severities?: SeverityConfig;
}

export function diffContracts(base: ContractModel, head: ContractModel, options: DiffOptions = {}): DiffReport {
  const b = diffSide(base);
  const h = diffSide(head);
  const raw = [
    ...compareManifest(base, head),
    ...compareTools(b, h),
    ...compareKernel(b, h),
    ...compareEnvelope(b, h),
    ...compareErrors(base, head),
    ...compareCapabilities(base, head),
    ...compareFacts(base, head),
  ];
  const config = options.severities ?? resolveSeverities();
  const changes = applySeverities(
    fingerprintChanges(groupByCause(oneVerdictPerPointer(raw.sort(byReportOrder)))),
    config,
  );
  return summarize(
    {
      name: head.name,
      base: { version: base.version },
      head: { version: head.version },
      categories: config.categories,
    },
    changes,
  );
}

/** Counts and verdict of a list of changes; ignored changes are listed but not counted. */
export function summarize(
  header: Pick<DiffReport, "name" | "base" | "head" | "categories">,
  changes: Change[],
): DiffReport {
  const counts: Record<Level, number> = { breaking: 0, warning: 0, safe: 0 };
  const severities = { error: 0, warn: 0, info: 0 };
  for (const c of changes) {
    if (c.ignored) continue;
    counts[c.level] += 1;
    if (c.severity !== "off") severities[c.severity] += 1;
  }
  const errorsAreBreaking = changes.every((c) => c.ignored || c.severity !== "error" || c.level === "breaking");
  return {
    ...header,
    counts,
    severities,
    changes,
    verdict: verdictFor(header.base.version, header.head.version, counts, severities.error, errorsAreBreaking),
  };
}

/**
 * The verdict with --fail-on warning: warnings fail the run too, so a run the errors alone would
 * pass says FAIL with the count, one message that matches the exit code.
 */
export function failOnWarnings(report: DiffReport): DiffReport {
  if (!report.verdict.ok || report.severities.warn === 0) return report;
  return {
    ...report,
    verdict: {
      ok: false,
      requiredVersion: null,
      message: `${report.severities.warn} warning(s), and --fail-on warning fails on warnings (${report.verdict.message})`,
    },
  };
}

/**
 * One pointer, one level: when one place got findings of different levels (a type swapped for
 * another is narrowed and widened at once), the worst stays and carries the others' messages.
 * Per audience: what a place does to kernels (the kernel-reply rules) is a verdict of its own,
 * beside what it does to the callers reading the same schema.
 */
export function oneVerdictPerPointer(changes: readonly Change[]): Change[] {
  const worst = new Map<string, Change>();
  const key = (c: Change) => `${c.subject}\0${c.pointer}\0${c.rule.startsWith("kernel-reply-")}`;
  for (const c of changes) {
    const seen = worst.get(key(c));
    if (!seen || LEVEL_ORDER[c.level] < LEVEL_ORDER[seen.level]) worst.set(key(c), c);
  }
  const out: Change[] = [];
  for (const c of changes) {
    const w = worst.get(key(c))!;
    if (c.level === w.level) out.push(c);
    else w.message = `${w.message}; also ${c.message}`;
  }
  return out;
}

/**
 * One finding per cause: the findings one edit produced (same rule, same place in the contract,
 * e.g. a shared $defs entry used by many tools) become one change with a count and the list of
 * places it reaches.
 */
export function groupByCause(changes: readonly Change[]): Change[] {
  const groups = new Map<string, Change>();
  const out: Change[] = [];
  for (const c of changes) {
    const key = `${c.rule}\0${c.file}\0${c.filePointer}`;
    const first = groups.get(key);
    if (!first || c.filePointer === "") {
      groups.set(key, c);
      out.push(c);
      continue;
    }
    first.occurrences ??= [{ subject: first.subject, pointer: first.pointer }];
    first.occurrences.push({ subject: c.subject, pointer: c.pointer });
    first.count = first.occurrences.length;
    // One cause reaching the wire and the kernel is about both.
    first.categories = CATEGORIES.filter((cat) => first.categories.includes(cat) || c.categories.includes(cat));
    first.audiences = AUDIENCES.filter((a) => first.audiences.includes(a) || c.audiences.includes(a));
  }
  return out;
}

function byReportOrder(x: Change, y: Change): number {
  return (
    LEVEL_ORDER[x.level] - LEVEL_ORDER[y.level] ||
    cmp(x.subject, y.subject) ||
    cmp(x.pointer, y.pointer) ||
    cmp(x.rule, y.rule)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
