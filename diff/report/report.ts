/**
 * The renderings of a DiffReport: for people (human), machines (json), pull-request comments
 * (markdown), GitHub workflow annotations (github), test dashboards (junit), and release notes
 * (changelog). Ignored changes are shown as such and never counted.
 */
import type { Level } from "../rules";
import type { Change, DiffReport } from "../types";
import { DEFAULT_LEVEL_SEVERITY } from "../judge/severity";
import { formatSarif } from "./sarif";
import { baseNote, where, type ReportLabels } from "./report-place";

export type { ReportLabels } from "./report-place";

export const FORMATS = ["human", "json", "markdown", "github", "junit", "sarif"] as const;
export type Format = (typeof FORMATS)[number];

const LEVELS: readonly Level[] = ["breaking", "warning", "safe"];

/** "[new] " with a baseline, and the severity when the severity file moved it from its level's default. */
const marks = (c: Change) =>
  `${c.new ? "[new] " : ""}${c.severity !== DEFAULT_LEVEL_SEVERITY[c.level] ? `[severity ${c.severity}] ` : ""}`;
const times = (c: Change) =>
  c.count > 1 ? ` (×${c.count}: ${c.occurrences!.map((o) => `${o.subject} ${o.pointer || "(root)"}`).join(", ")})` : "";

export function formatReport(format: Format, report: DiffReport, labels: ReportLabels): string {
  switch (format) {
    case "json":
      return formatJson(report, labels);
    case "markdown":
      return formatMarkdown(report, labels);
    case "github":
      return formatGithub(report, labels);
    case "junit":
      return formatJunit(report, labels);
    case "sarif":
      return formatSarif(report, labels);
    default:
      return formatHuman(report, labels);
  }
}

export function formatHuman(report: DiffReport, labels: ReportLabels): string {
  const lines = [
    `${report.name}: base ${report.base.version} (${labels.base}) -> head ${report.head.version} (${labels.head})`,
  ];
  for (const level of LEVELS) {
    const changes = report.changes.filter((c) => c.level === level && !c.ignored);
    if (changes.length === 0) continue;
    lines.push("", `${level} (${changes.length})`);
    for (const c of changes) {
      lines.push(
        `  ${marks(c)}${c.rule}  ${c.subject}  ${c.pointer || "(root)"}${c.count > 1 ? `  (and ${c.count - 1} more place(s))` : ""}`,
      );
      lines.push(`      ${c.message}  [${where(c)}]`);
      if (c.count > 1)
        for (const o of c.occurrences!.slice(1)) lines.push(`      also: ${o.subject}  ${o.pointer || "(root)"}`);
    }
  }
  const ignored = report.changes.filter((c) => c.ignored);
  if (ignored.length > 0) {
    lines.push("", `ignored (${ignored.length})`);
    for (const c of ignored)
      lines.push(
        `  ${c.rule}  ${c.subject}  ${c.pointer || "(root)"}  until ${c.ignored!.expires}: ${c.ignored!.reason}`,
      );
  }
  const b = report.baseline;
  if (b)
    lines.push(
      "",
      `since ${b.source}: ${b.new} new, ${b.unchanged} unchanged, ${b.resolved.length} resolved` +
        b.resolved.map((r) => `\n  resolved: ${r.rule}  ${r.subject}  ${r.pointer || "(root)"}`).join(""),
    );
  lines.push("", `${report.verdict.ok ? "OK" : "FAIL"}: ${report.verdict.message}`);
  return lines.join("\n") + "\n";
}

export function formatJson(report: DiffReport, labels: ReportLabels): string {
  return (
    JSON.stringify(
      { ...report, base: { ...report.base, source: labels.base }, head: { ...report.head, source: labels.head } },
      null,
      2,
    ) + "\n"
  );
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function formatMarkdown(report: DiffReport, labels: ReportLabels): string {
  const lines = [
    `### Contract diff: ${report.name} ${report.base.version} → ${report.head.version}`,
    "",
    `${report.verdict.ok ? "✅" : "❌"} ${report.verdict.message}`,
  ];
  const b = report.baseline;
  if (b)
    lines.push(
      "",
      `Since the last run (${b.source}): **${b.new} new**, ${b.unchanged} unchanged, ${b.resolved.length} resolved.`,
    );
  for (const level of LEVELS) {
    const changes = report.changes.filter((c) => c.level === level && !c.ignored);
    if (changes.length === 0) continue;
    lines.push(
      "",
      `#### ${level} (${changes.length})`,
      "",
      "| rule | for | where | change | file |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const c of changes)
      lines.push(
        `| ${c.new ? "🆕 " : ""}\`${c.rule}\` | ${cell(c.audiences.join(", "))} | ${cell(`${c.subject} ${c.pointer || "(root)"}`)} | ${cell(c.message + times(c))} | \`${cell(`${labels.head}/${where(c)}`)}\` |`,
      );
  }
  const ignored = report.changes.filter((c) => c.ignored);
  if (ignored.length > 0) {
    lines.push(
      "",
      `#### ignored (${ignored.length})`,
      "",
      "| rule | where | until | reason |",
      "| --- | --- | --- | --- |",
    );
    for (const c of ignored)
      lines.push(
        `| \`${c.rule}\` | ${cell(`${c.subject} ${c.pointer || "(root)"}`)} | ${c.ignored!.expires} | ${cell(c.ignored!.reason)} |`,
      );
  }
  return lines.join("\n") + "\n";
}

/** GitHub workflow commands: https://docs.github.com/actions/reference/workflow-commands-for-github-actions */
export function formatGithub(report: DiffReport, labels: ReportLabels): string {
  const esc = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const prop = (s: string) => esc(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const command: Record<Change["severity"], string> = {
    error: "error",
    warn: "warning",
    info: "notice",
    off: "notice",
  };
  const lines: string[] = [];
  for (const c of report.changes.filter((c) => !c.ignored)) {
    // a file only the base has is no file of the checkout: the annotation names it in its text
    const props = [
      ...(c.inBase
        ? []
        : [`file=${prop(`${labels.head}/${c.file}`)}`, ...(c.line ? [`line=${c.line}`, `col=${c.column}`] : [])]),
      `title=${prop(`${c.rule} (${c.level})`)}`,
    ];
    lines.push(
      `::${command[c.severity]} ${props.join(",")}::${esc(`${c.subject} ${c.pointer || "(root)"}: ${c.message}${times(c)}${baseNote(c)}`)}`,
    );
  }
  lines.push(`${report.verdict.ok ? "OK" : "FAIL"}: ${report.verdict.message}`);
  return lines.join("\n") + "\n";
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** One test case per change; errors (and, with failOn warning, warnings) are failures. */
export function formatJunit(
  report: DiffReport,
  labels: ReportLabels,
  failOn: "breaking" | "warning" = "breaking",
): string {
  const fails = (c: Change) =>
    !c.ignored && (c.severity === "error" || (failOn === "warning" && c.severity === "warn"));
  const failures = report.changes.filter(fails).length;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="mnote contract diff" tests="${report.changes.length}" failures="${failures}">`,
    `  <testsuite name="${xml(`${report.name} ${report.base.version} -> ${report.head.version}`)}" tests="${report.changes.length}" failures="${failures}" skipped="${report.changes.filter((c) => c.ignored).length}">`,
  ];
  for (const c of report.changes) {
    lines.push(
      `    <testcase classname="${xml(c.subject)}" name="${xml(`${c.rule} ${c.pointer || "(root)"}`)}" file="${xml(`${labels.head}/${c.file}`)}"${c.line ? ` line="${c.line}"` : ""}>`,
    );
    if (c.ignored)
      lines.push(`      <skipped message="${xml(`ignored until ${c.ignored.expires}: ${c.ignored.reason}`)}"/>`);
    else if (fails(c))
      lines.push(
        `      <failure type="${c.level}" message="${xml(c.message)}">${xml(`${where(c)}${times(c)}`)}</failure>`,
      );
    else lines.push(`      <system-out>${xml(`${c.level}: ${c.message}`)}</system-out>`);
    lines.push(`    </testcase>`);
  }
  lines.push(`  </testsuite>`, `</testsuites>`);
  return lines.join("\n") + "\n";
}

/** A Markdown section for CHANGELOG.md: what a release changes, in words, breaking first. */
export function formatChangelog(report: DiffReport): string {
  const titles: Record<Level, string> = {
    breaking: "Breaking changes",
    warning: "Changes to review",
    safe: "Additions and relaxations",
  };
  const lines = [
    `## ${report.name} ${report.head.version}`,
    "",
    `Compared with ${report.base.version}: ${report.verdict.message}.`,
  ];
  for (const level of LEVELS) {
    const changes = report.changes.filter((c) => c.level === level && !c.ignored);
    if (changes.length === 0) continue;
    lines.push("", `### ${titles[level]}`, "");
    for (const c of changes)
      lines.push(
        `- **${c.subject}**${c.pointer ? ` \`${c.pointer}\`` : ""}: ${c.message}${c.count > 1 ? ` (${c.count} places)` : ""} (\`${c.rule}\`)`,
      );
  }
  if (report.changes.length === 0) lines.push("", "No changes to the contract.");
  return lines.join("\n") + "\n";
}
