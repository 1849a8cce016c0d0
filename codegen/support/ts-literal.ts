/** Plain data as a TypeScript literal, indented to sit at a given depth. */
export function tsLiteral(value: unknown, depth = 0): string {
  const pad = "  ".repeat(depth);
  return JSON.stringify(value, null, 2).replace(/\n/g, "\n" + pad);
}

/** A string as a TypeScript string literal. */
export function tsString(value: string): string {
  return JSON.stringify(value);
}
