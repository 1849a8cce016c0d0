/**
 * What every report format says about where a change is: the labels of the two sides, and the
 * file, line and pointer of a change. Its own file so that report.ts and sarif.ts both read it
 * without importing each other.
 */
import type { Change } from "../types";

export interface ReportLabels {
  base: string;
  /** The head contract folder as given (relative to the working directory): file paths are joined to it. */
  head: string;
}

/** `tools/x.tool.json:4:5#/pointer`, or `base: …` when the file exists only in the base (a removed tool). */
export function where(c: Change): string {
  return `${c.inBase ? "base: " : ""}${c.file}${c.line ? `:${c.line}:${c.column}` : ""}#${c.filePointer}`;
}

/** For formats that name a head file: ` (in the base's tools/x.tool.json:4; the head has no such file)`. */
export function baseNote(c: Change): string {
  return c.inBase ? ` (in the base's ${c.file}${c.line ? `:${c.line}` : ""}; the head has no such file)` : "";
}
