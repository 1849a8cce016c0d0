/** Page body rules of the reference kernel: block ids, append/replace, no-op saves and bodySummary. */
import type * as T from "../generated/types";
import { randomId } from "../common/ids";

export type StoredBlock = T.ContentBlock;

/** The one statement that stores a page's block: the seed and page.body.save write the same row. */
export const INSERT_BLOCK_SQL =
  "INSERT INTO blocks (page_id, position, id, type, text, level, checked, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

/** A block as INSERT_BLOCK_SQL's values, in its order (SQLite has no boolean: 1, 0, or null when absent). */
export function blockRow(pageId: string, position: number, b: StoredBlock): unknown[] {
  const checked = b.checked === undefined ? null : b.checked ? 1 : 0;
  return [pageId, position, b.id, b.type, b.text, b.level ?? null, checked, b.language ?? null];
}

/** The body after a save: given ids are kept when free, others are assigned. */
export function planBody(
  current: readonly StoredBlock[],
  content: readonly T.ContentBlockInput[],
  mode: "replace" | "append",
): StoredBlock[] {
  const kept = mode === "append" ? [...current] : [];
  const taken = new Set(kept.map((b) => b.id));
  const added = content.map((input) => {
    let id = input.id;
    if (id === undefined || taken.has(id)) {
      do id = randomId("blk", 5);
      while (taken.has(id));
    }
    taken.add(id);
    const block: StoredBlock = { id, type: input.type, text: input.text };
    if (input.level !== undefined) block.level = input.level;
    if (input.checked !== undefined) block.checked = input.checked;
    if (input.language !== undefined) block.language = input.language;
    return block;
  });
  return [...kept, ...added];
}

/**
 * True when the save would leave the body as it is: an append of nothing, or a replace with the
 * same blocks in the same order (an input without an id matches any id; one with an id only
 * that id). Such a save changes nothing and so does not bump the revision.
 */
export function leavesBodyAsIs(
  current: readonly StoredBlock[],
  content: readonly T.ContentBlockInput[],
  mode: "replace" | "append",
): boolean {
  if (mode === "append") return content.length === 0;
  return (
    content.length === current.length &&
    content.every((input, i) => {
      const block = current[i]!;
      return (
        (input.id === undefined || input.id === block.id) &&
        input.type === block.type &&
        input.text === block.text &&
        input.level === block.level &&
        input.checked === block.checked &&
        input.language === block.language
      );
    })
  );
}

/** The body's plain text, blocks joined by newlines, cut to cut.length characters with cut.marker when cut. */
export function bodySummary(
  blocks: readonly StoredBlock[],
  cut: { readonly length: number; readonly marker: string },
): string {
  const text = blocks
    .map((b) => b.text)
    .filter((t) => t.length > 0)
    .join("\n");
  const chars = [...text];
  return chars.length > cut.length ? chars.slice(0, cut.length).join("") + cut.marker : text;
}
