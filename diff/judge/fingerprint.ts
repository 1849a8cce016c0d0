/**
 * Stable fingerprints for findings, so a pull-request comment can say what is new since the last
 * run (`--baseline <previous JSON report>`), and SARIF consumers can track a result across runs.
 *
 * A fingerprint hashes the rule and where the edit is: for schema findings the contract file and
 * the JSON pointer in it (where a user edits, the same place that groups one edit's findings into
 * one change), for the others (tools, kernel commands, catalogs, facts) the subject and pointer
 * (a tool name, an error code: stable when a catalog is reordered). It does not depend on line
 * numbers, on the order of the report or of the keys in a file, or on how many places an edit
 * reaches. Two findings that would share one are told apart by their messages.
 */
import { ruleDef } from "../rules";
import type { BaselineSummary, Change } from "../types";

const VERSION = "mnote-diff/v1";

/**
 * 128 bits of four FNV-1a hashes with different offsets, as hex: stable across runs and machines,
 * and cheap (a fingerprint names a finding; it guards nothing, so it needs no cryptographic hash).
 */
function hash(parts: readonly string[]): string {
  const text = parts.join("\0");
  let out = "";
  for (const offset of [0x811c9dc5, 0x050c5d1f, 0x1b873593, 0x2f0ba1e3]) {
    let h = offset;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    out += (h >>> 0).toString(16).padStart(8, "0");
  }
  return out;
}

/** The change's anchor: the contract file and pointer for schema findings, else subject and pointer. */
function anchor(c: Pick<Change, "rule" | "subject" | "pointer" | "file" | "filePointer">): string {
  return ruleDef(c.rule).area === "schema" ? `${c.file}#${c.filePointer}` : `${c.subject}#${c.pointer}`;
}

/** Sets the fingerprint of every change (in place, on changes the diff just built). */
export function fingerprintChanges(changes: Change[]): Change[] {
  const base = changes.map((c) => hash([VERSION, c.rule, anchor(c)]));
  const seen = new Map<string, number>();
  for (const fp of base) seen.set(fp, (seen.get(fp) ?? 0) + 1);
  changes.forEach((c, i) => {
    c.fingerprint = seen.get(base[i]!)! > 1 ? hash([base[i]!, c.message]) : base[i]!;
  });
  return changes;
}

/** A previous JSON report, reduced to what a comparison needs. */
export interface Baseline {
  source: string;
  findings: Array<{ fingerprint: string; rule: string; subject: string; pointer: string }>;
}

/** Marks each change new (its fingerprint is not in the baseline) or not, and lists what the baseline had that is gone. */
export function compareWithBaseline(
  changes: readonly Change[],
  baseline: Baseline,
): { changes: Change[]; summary: BaselineSummary } {
  const before = new Set(baseline.findings.map((f) => f.fingerprint));
  const now = new Set(changes.map((c) => c.fingerprint));
  const marked = changes.map((c) => ({ ...c, new: !before.has(c.fingerprint) }));
  const counted = marked.filter((c) => !c.ignored);
  return {
    changes: marked,
    summary: {
      source: baseline.source,
      new: counted.filter((c) => c.new).length,
      unchanged: counted.filter((c) => !c.new).length,
      resolved: baseline.findings.filter((f) => !now.has(f.fingerprint)),
    },
  };
}
