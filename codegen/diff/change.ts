/** Builds Change records: the level always comes from the rule table, never from the caller. */
import { ruleLevel, type RuleId } from "./rules";
import type { Change } from "./types";
import type { SchemaFinding } from "./compare-schemas";

export interface Place {
  file: string;
  filePointer: string;
}

export function change(
  rule: RuleId,
  subject: string,
  pointer: string,
  place: Place,
  message: string,
  before?: unknown,
  after?: unknown,
): Change {
  const out: Change = {
    rule,
    level: ruleLevel(rule),
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
export function fromFinding(f: SchemaFinding, subject: string, fallback: Place): Change {
  const place = f.origin ? { file: f.origin.file, filePointer: f.origin.pointer } : fallback;
  return change(f.rule, subject, f.pointer, place, f.message, f.before, f.after);
}
