/** Page body rules of the reference kernel: block ids, append/replace, and bodySummary. */
import type * as T from "../generated/types";
import { randomId } from "../common/ids";

export type StoredBlock = T.ContentBlock;

/** How many characters of plain text bodySummary keeps before "...". */
export const BODY_SUMMARY_LENGTH = 200;

/** The body after a save: given ids are kept when free, others are assigned. */
export function planBody(current: readonly StoredBlock[], content: readonly T.ContentBlockInput[], mode: "replace" | "append"): StoredBlock[] {
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

/** The body's plain text, blocks joined by newlines, cut to 200 characters with "..." when cut. */
export function bodySummary(blocks: readonly StoredBlock[]): string {
  const text = blocks
    .map((b) => b.text)
    .filter((t) => t.length > 0)
    .join("\n");
  const chars = [...text];
  return chars.length > BODY_SUMMARY_LENGTH ? chars.slice(0, BODY_SUMMARY_LENGTH).join("") + "..." : text;
}
