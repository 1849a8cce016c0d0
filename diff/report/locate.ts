/**
 * Line and column for each change, in the head's file (the base's when the file is gone, marked
 * inBase so every report says so), as
 * `validate` reports contract errors. A pointer the file does not hold (a keyword normalize
 * made up, a removed node) falls back to its nearest ancestor that exists.
 */
import { parseJsonWithPositions, type Position } from "../../codegen/support/json-source";
import { splitPointer, joinPointer } from "../../common/json-pointer";
import type { SourceFile } from "../../codegen/phases/load";
import type { Change } from "../types";

/** Adds line/column to every change whose file is among the sources (head first, then base). */
export function locateChanges(
  changes: readonly Change[],
  head: readonly SourceFile[],
  base: readonly SourceFile[],
): Change[] {
  const cache = new Map<string, Map<string, Position> | null>();
  const positionsOf = (sources: readonly SourceFile[], tag: string, path: string) => {
    const key = `${tag}:${path}`;
    if (!cache.has(key)) {
      const file = sources.find((f) => f.path === path);
      let positions: Map<string, Position> | null;
      try {
        positions = file ? parseJsonWithPositions(file.text).positions : null;
      } catch {
        positions = null;
      }
      cache.set(key, positions);
    }
    return cache.get(key)!;
  };
  return changes.map((c) => {
    const inHead = positionsOf(head, "head", c.file);
    const positions = inHead ?? positionsOf(base, "base", c.file);
    if (!positions) return c;
    if (!inHead && !head.some((f) => f.path === c.file)) c = { ...c, inBase: true };
    const tokens = splitPointer(c.filePointer);
    for (let n = tokens.length; n >= 0; n--) {
      const at = positions.get(joinPointer("", ...tokens.slice(0, n)));
      if (at) return { ...c, line: at.line, column: at.column };
    }
    return { ...c, line: 1, column: 1 };
  });
}
