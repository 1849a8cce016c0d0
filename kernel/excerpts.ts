/**
 * The first words of blocks, for the person who approves a change (DiffOp excerpts in
 * contract/envelope/results.schema.json): at most EXCERPT_BLOCKS blocks with text, each at most
 * EXCERPT_CHARS characters (code points), cut at a word when one ends late enough, marked with "…".
 */
export const EXCERPT_BLOCKS = 3;
export const EXCERPT_CHARS = 40;

/** One block's first words, or undefined when it has no text (a divider). */
export function excerpt(text: string): string | undefined {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return undefined;
  const chars = [...flat];
  if (chars.length <= EXCERPT_CHARS) return flat;
  let cut = chars.slice(0, EXCERPT_CHARS).join("");
  const space = cut.lastIndexOf(" ");
  // a word boundary in the second half keeps whole words; text without spaces (Chinese) is cut as is
  if (space >= EXCERPT_CHARS / 2) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/** The excerpts of the first blocks with text. */
export function excerpts(blocks: ReadonlyArray<{ text: string }>): string[] {
  const out: string[] = [];
  for (const block of blocks) {
    const e = excerpt(block.text);
    if (e !== undefined) out.push(e);
    if (out.length === EXCERPT_BLOCKS) break;
  }
  return out;
}
