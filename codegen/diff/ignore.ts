/**
 * The ignore file (contract-releases/diff-ignore.json by default): known changes a team accepted,
 * each with a reason and an expiry date. A matching change is still reported, marked ignored, and
 * does not count towards the verdict. An expired entry fails the run, so an exception cannot
 * outlive its review; an entry that matches nothing is reported as stale.
 */
import { existsSync, readFileSync } from "node:fs";
import { isRuleId } from "./rules";
import type { Change } from "./types";

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

export class IgnoreFileError extends Error {
  override readonly name = "IgnoreFileError";
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Reads and checks the file; a missing file is no entries. */
export function readIgnoreFile(path: string): IgnoreEntry[] {
  if (!existsSync(path)) return [];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new IgnoreFileError(`${path}: not JSON: ${(e as Error).message}`);
  }
  const list = (json as { ignore?: unknown })?.ignore;
  if (!Array.isArray(list))
    throw new IgnoreFileError(`${path}: expected {"ignore": [ {rule, tool, pointer, reason, expires}, … ]}`);
  return list.map((e, i) => {
    const entry = e as Partial<IgnoreEntry>;
    const where = `${path}: ignore[${i}]`;
    for (const key of ["rule", "tool", "pointer", "reason", "expires"] as const) {
      if (typeof entry[key] !== "string") throw new IgnoreFileError(`${where}: "${key}" must be a string`);
    }
    if (!isRuleId(entry.rule!))
      throw new IgnoreFileError(`${where}: no rule "${entry.rule}" (see docs/CONTRACT-DIFF.md)`);
    if (!DATE.test(entry.expires!) || Number.isNaN(Date.parse(entry.expires!)))
      throw new IgnoreFileError(`${where}: expires must be a date YYYY-MM-DD, not "${entry.expires}"`);
    if (entry.reason!.trim() === "") throw new IgnoreFileError(`${where}: a reason is required`);
    return entry as IgnoreEntry;
  });
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
