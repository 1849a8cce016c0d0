/** Builds Change records: the level and categories always come from the rule table, never from the caller. */
import { ruleCategories, ruleLevel, type RuleId } from "../rules";
import { DEFAULT_LEVEL_SEVERITY } from "../judge/severity";
import { audiencesOf } from "../audience";
import type { Change } from "../types";
import type { SchemaFinding } from "./compare-schemas";

export interface Place {
  file: string;
  filePointer: string;
}

/** Where a finding fired: the JSON envelopes and tools (wire) or the kernel's side of the contract. */
export type Surface = "wire" | "kernel";

export function change(
  rule: RuleId,
  subject: string,
  pointer: string,
  place: Place,
  message: string,
  before?: unknown,
  after?: unknown,
  surface: Surface = "wire",
): Change {
  const level = ruleLevel(rule);
  const categories = ruleCategories(rule, surface);
  const out: Change = {
    rule,
    level,
    severity: DEFAULT_LEVEL_SEVERITY[level],
    categories,
    audiences: audiencesOf(rule, categories, surface),
    fingerprint: "",
    subject,
    pointer,
    file: place.file,
    filePointer: place.filePointer,
    message,
    count: 1,
  };
  if (before !== undefined) out.before = before;
  if (after !== undefined) out.after = after;
  return out;
}

/** fallback: where the schema's root lives, for a finding on a node the comparer made up ({} for "absent"). */
export function fromFinding(f: SchemaFinding, subject: string, fallback: Place, surface: Surface): Change {
  const place = f.origin ? { file: f.origin.file, filePointer: f.origin.pointer } : fallback;
  return change(f.rule, subject, f.pointer, place, f.message, f.before, f.after, surface);
}
