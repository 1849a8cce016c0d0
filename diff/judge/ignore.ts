/**
 * The ignore file (contract-releases/diff-ignore.json by default): known changes a team accepted,
 * each with a reason and an expiry date. A matching change is still reported, marked ignored, and
 * does not count towards the verdict. An expired entry fails the run, so an exception cannot
 * outlive its review; an entry that matches nothing is reported as stale.
 */
import type { Change } from "../types";
import { readConfigFile } from "../load/config-files";

export interface IgnoreEntry {
  rule: string;
  /** The change's subject: a tool name, "kernel:<command>", "envelope", "errors", … */
  tool: string;
  /** The change's pointer (relative to the subject). */
  pointer: string;
  reason: string;
  /** YYYY-MM-DD: the last day the entry applies. */
  expires: string;
}

/**
 * Reads the file and validates it against codegen/diff-ignore.schema.json (a known rule, a reason,
 * a real calendar date, nothing else) before using it; a missing file is no entries. A bad file
 * is a DiffConfigError naming the file, the entry and the problem.
 */
export function readIgnoreFile(path: string, required = false): IgnoreEntry[] {
  const json = readConfigFile(path, "ignore", required) as { ignore: IgnoreEntry[] } | undefined;
  return json?.ignore ?? [];
}

export interface IgnoreOutcome {
  changes: Change[];
  expired: IgnoreEntry[];
  unused: IgnoreEntry[];
}

/** today: YYYY-MM-DD (UTC). An entry applies through its expiry day. */
export function applyIgnores(
  changes: readonly Change[],
  entries: readonly IgnoreEntry[],
  today: string,
): IgnoreOutcome {
  const expired = entries.filter((e) => e.expires < today);
  const live = entries.filter((e) => e.expires >= today);
  const used = new Set<IgnoreEntry>();
  const out = changes.map((c) => {
    const places = c.occurrences ?? [{ subject: c.subject, pointer: c.pointer }];
    const entry = live.find(
      (e) => e.rule === c.rule && places.some((p) => p.subject === e.tool && p.pointer === e.pointer),
    );
    if (!entry) return c;
    used.add(entry);
    return { ...c, ignored: { reason: entry.reason, expires: entry.expires } };
  });
  return { changes: out, expired, unused: live.filter((e) => !used.has(e)) };
}
