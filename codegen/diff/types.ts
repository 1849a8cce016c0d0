/** What a diff produces: plain data, the same for the human and the JSON report. */
import type { Level, RuleId } from "./rules";

/** A request is written by callers and read by the runtime; a response the other way round. */
export type Direction = "request" | "response";

export interface Change {
  rule: RuleId;
  level: Level;
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
  /** Set when an entry of the ignore file matched: the change is reported but does not count. */
  ignored?: { reason: string; expires: string };
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
  counts: Record<Level, number>;
  changes: Change[];
  verdict: Verdict;
}
