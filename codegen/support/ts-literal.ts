/** Plain data as a TypeScript literal, indented to sit at a given depth. */
export function tsLiteral(value: unknown, depth = 0): string {
  const text = JSON.stringify(value, null, 2);
  // at depth 0 there is nothing to indent: the providers' literal alone is some 10 MB at 200 tools,
  // and a pass replacing each line break by itself cost a third of what stringifying it did
  return depth === 0 ? text : text.replaceAll("\n", "\n" + "  ".repeat(depth));
}

/** A string as a TypeScript string literal. */
export function tsString(value: string): string {
  return JSON.stringify(value);
}
