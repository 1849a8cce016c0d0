/** The two renderings of a DiffReport: for people (grouped by level) and for machines (JSON). */
import type { Level } from "./rules";
import type { DiffReport } from "./types";

export interface ReportLabels {
  base: string;
  head: string;
}

const LEVELS: readonly Level[] = ["breaking", "warning", "safe"];

export function formatHuman(report: DiffReport, labels: ReportLabels): string {
  const lines = [`${report.name}: base ${report.base.version} (${labels.base}) -> head ${report.head.version} (${labels.head})`];
  for (const level of LEVELS) {
    const changes = report.changes.filter((c) => c.level === level);
    if (changes.length === 0) continue;
    lines.push("", `${level} (${changes.length})`);
    for (const c of changes) {
      lines.push(`  ${c.rule}  ${c.subject}  ${c.pointer || "(root)"}`);
      lines.push(`      ${c.message}  [${c.file}#${c.filePointer}]`);
    }
  }
  lines.push("", `${report.verdict.ok ? "OK" : "FAIL"}: ${report.verdict.message}`);
  return lines.join("\n") + "\n";
}

export function formatJson(report: DiffReport, labels: ReportLabels): string {
  return JSON.stringify({ ...report, base: { ...report.base, source: labels.base }, head: { ...report.head, source: labels.head } }, null, 2) + "\n";
}
