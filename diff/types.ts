/** What a diff produces: plain data, the same for the human and the JSON report. */
import type { Category, Level, RuleId } from "./rules";
import type { Audience } from "./audience";

/**
 * What a run does with a change (severity.ts): error fails the run without a new major version,
 * warn only with --fail-on warning, info is reported, off is not. Here, beside Change, so that
 * severity.ts and this file do not import each other.
 */
export type Severity = "error" | "warn" | "info" | "off";

/** A request is written by callers and read by the runtime; a response the other way round. */
export type Direction = "request" | "response";

export interface Change {
  rule: RuleId;
  /** What the change does (fixed per rule). */
  level: Level;
  /** What the run does with it: from the severity file, by default error for breaking, warn, info for safe. */
  severity: Severity;
  /** Which compatibility it concerns: wire, source, model, kernel. */
  categories: Category[];
  /** Who it breaks or concerns (judge/audience.ts): callers, runtimes, kernels, plugin code, the model. */
  audiences: Audience[];
  /**
   * A stable id of the finding: the rule and where the edit is (the contract file and JSON pointer
   * for schema findings, the subject and pointer for the others), hashed. Independent of line
   * numbers, of how many places it reaches and of the order of the report.
   */
  fingerprint: string;
  /** The tool's canonical name, or "envelope", "errors", "capabilities", "contract". */
  subject: string;
  /** JSON pointer relative to the subject (for a tool: into its inlined /args or /result). */
  pointer: string;
  /** The contract file that holds what changed (the base's file when it was removed). */
  file: string;
  /** Where in that file. */
  filePointer: string;
  message: string;
  before?: unknown;
  after?: unknown;
  /** How many places this one edit changed (1 unless grouped). */
  count: number;
  /** Every place, when more than one (the first is subject/pointer above). */
  occurrences?: Array<{ subject: string; pointer: string }>;
  /** 1-based line and column of filePointer in the head's file (the base's when the file is gone). */
  line?: number;
  column?: number;
  /** Set when file, line and column are the base's: the head has no such file (a removed tool or command). */
  inBase?: true;
  /** Set when an entry of the ignore file matched: the change is reported but does not count. */
  ignored?: { reason: string; expires: string };
  /** With a baseline report: true when the baseline does not have this fingerprint. */
  new?: boolean;
}

export interface Verdict {
  /** false: breaking changes without a new major version (the CLI exits 1). */
  ok: boolean;
  /** The version the head needs, when it is not ok. */
  requiredVersion: string | null;
  message: string;
}

export interface DiffReport {
  name: string;
  base: { version: string };
  head: { version: string };
  /** Changes reported (not ignored), by level. */
  counts: Record<Level, number>;
  /** The same changes by severity: errors fail the run without a new major version. */
  severities: Record<Exclude<Severity, "off">, number>;
  /** The categories judged (all four unless the severity file or --category chose fewer). */
  categories: Category[];
  changes: Change[];
  verdict: Verdict;
  /** With --baseline: how the changes compare with a previous report. */
  baseline?: BaselineSummary;
}

export interface BaselineSummary {
  source: string;
  new: number;
  unchanged: number;
  /** Findings of the baseline that this run no longer reports. */
  resolved: Array<{ fingerprint: string; rule: string; subject: string; pointer: string }>;
}
