/** A TypeScript union of string literals, one per line (never empty: a contract has tools). */
export function literalUnion(names: readonly string[]): string {
  return names.map((n) => `\n  | ${JSON.stringify(n)}`).join("");
}
