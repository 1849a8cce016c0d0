/**
 * The report as SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format), for code
 * scanning dashboards: one run, the tool's rules with their metadata (level, categories, default
 * severity), and one result per change with its severity, a physical location (the contract file,
 * line and column, as the other formats give it), a logical one (subject and pointer), the stable
 * fingerprint as partialFingerprints, the baseline state when a baseline was given, and ignored
 * changes as externally suppressed results with their reason.
 */
import { RULES } from "../rules";
import { DEFAULT_LEVEL_SEVERITY, type Severity } from "../judge/severity";
import type { Change, DiffReport } from "../types";
import { baseNote, type ReportLabels } from "./report-place";

const SARIF_LEVEL: Record<Severity, "error" | "warning" | "note" | "none"> = {
  error: "error",
  warn: "warning",
  info: "note",
  off: "none",
};

/** The key of our fingerprints in partialFingerprints: a name and a version of how they are computed. */
export const FINGERPRINT_KEY = "mnoteContractDiff/v1";

const RULE_INDEX = new Map<string, number>(RULES.map((r, i) => [r.id, i]));

export function formatSarif(report: DiffReport, labels: ReportLabels): string {
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "mnote-tools diff",
            informationUri: "https://mnote.dev/contract/",
            rules: RULES.map((r) => ({
              id: r.id,
              name: pascal(r.id),
              shortDescription: { text: r.summary },
              fullDescription: { text: `${r.summary} (level: ${r.level})` },
              defaultConfiguration: { level: SARIF_LEVEL[DEFAULT_LEVEL_SEVERITY[r.level]] },
              help: { text: `${r.summary} Rules, categories and severities: docs/CONTRACT-DIFF.md.` },
              properties: { level: r.level, area: r.area, tags: r.categories.filter((c) => c !== "surface") },
            })),
          },
        },
        columnKind: "utf16CodeUnits",
        results: report.changes.map((c) => result(c, labels)),
        properties: {
          contract: report.name,
          base: { version: report.base.version, source: labels.base },
          head: { version: report.head.version, source: labels.head },
          categories: report.categories,
          verdict: report.verdict,
        },
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
}

function result(c: Change, labels: ReportLabels): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ruleId: c.rule,
    ruleIndex: RULE_INDEX.get(c.rule),
    level: SARIF_LEVEL[c.severity],
    message: {
      text: `${c.subject} ${c.pointer || "(root)"}: ${c.message}${baseNote(c)} (for ${c.audiences.join(", ")})`,
    },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: encodeURI(`${labels.head}/${c.file}`.replace(/\\/g, "/")) },
          ...(c.line ? { region: { startLine: c.line, startColumn: c.column ?? 1 } } : {}),
        },
        logicalLocations: [{ fullyQualifiedName: `${c.subject}#${c.pointer}`, kind: "member" }],
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: c.fingerprint },
    properties: {
      level: c.level,
      severity: c.severity,
      subject: c.subject,
      pointer: c.pointer,
      file: c.file,
      filePointer: c.filePointer,
      count: c.count,
      tags: c.categories,
      audiences: c.audiences,
      ...(c.occurrences ? { occurrences: c.occurrences } : {}),
    },
  };
  if (c.occurrences && c.occurrences.length > 1)
    out.relatedLocations = c.occurrences.slice(1).map((o, i) => ({
      id: i + 1,
      logicalLocations: [{ fullyQualifiedName: `${o.subject}#${o.pointer}`, kind: "member" }],
    }));
  if (c.new !== undefined) out.baselineState = c.new ? "new" : "unchanged";
  if (c.ignored)
    out.suppressions = [
      { kind: "external", status: "accepted", justification: `${c.ignored.reason} (until ${c.ignored.expires})` },
    ];
  return out;
}

/** "request-enum-narrowed" -> "RequestEnumNarrowed": SARIF's rule name. */
function pascal(id: string): string {
  return id
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}
