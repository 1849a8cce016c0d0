/**
 * Regular expressions every provider can read. JSON Schema `pattern` is ECMA-262 (ajv compiles it
 * with the "u" flag); llama.cpp's JSON-schema-to-grammar converter copies character classes into
 * GBNF verbatim and literal escapes too, so a shorthand such as `\S`, `\d` or a group `(?:...)`
 * breaks the grammar. This module rewrites a pattern into the same language without those
 * features, or says why it cannot (then generation fails: a pattern is never dropped).
 */

/** ECMA-262 WhiteSpace and LineTerminator: exactly what `\s` matches, as GBNF-readable escapes. */
export const WHITESPACE_CLASS_BODY =
  "\\x09\\x0A\\x0B\\x0C\\x0D\\x20\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF";

const POSITIVE: Record<string, string> = { d: "0-9", w: "A-Za-z0-9_", s: WHITESPACE_CLASS_BODY };
const NEGATIVE: Record<string, string> = { D: "d", W: "w", S: "s" };

/** Escapes GBNF accepts (inside a class and in a literal), besides an escaped metacharacter. */
const GBNF_ESCAPE = /^\\(?:[trn\\\][\-^"/.*+?(){}|$]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})/;

export class PatternNotLowerable extends Error {}

/**
 * The pattern with shorthand classes spelt out and `(?:` groups made plain groups: the same
 * strings match. Throws PatternNotLowerable for lookarounds, backreferences, word boundaries,
 * named groups, and negated shorthands inside a class (no set difference to write them with).
 */
export function portablePattern(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) throw new PatternNotLowerable("a trailing backslash");
      if (next in POSITIVE) {
        out += inClass ? POSITIVE[next] : `[${POSITIVE[next]}]`;
      } else if (next in NEGATIVE) {
        if (inClass) throw new PatternNotLowerable(`\\${next} inside a character class`);
        out += `[^${POSITIVE[NEGATIVE[next]!]}]`;
      } else if (/[bB]/.test(next) && !inClass) {
        throw new PatternNotLowerable(`the word boundary \\${next}`);
      } else if (/[1-9k]/.test(next)) {
        throw new PatternNotLowerable(`the backreference \\${next}`);
      } else if (/[pP]/.test(next)) {
        throw new PatternNotLowerable(`the Unicode property escape \\${next}`);
      } else {
        const escape = pattern.slice(i).match(GBNF_ESCAPE)?.[0];
        if (!escape) throw new PatternNotLowerable(`the escape \\${next}`);
        out += escape;
        i += escape.length - 2;
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // a leading ] or ^] belongs to the class
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") throw new PatternNotLowerable("a ] right after [ (ambiguous between engines)");
      continue;
    }
    if (c === "(" && pattern[i + 1] === "?") {
      if (pattern[i + 2] === ":") {
        out += "(";
        i += 2;
        continue;
      }
      throw new PatternNotLowerable(`the group (?${pattern[i + 2] ?? ""}`);
    }
    out += c;
  }
  if (inClass) throw new PatternNotLowerable("an unclosed character class");
  return out;
}

/** What llama.cpp's converter cannot turn into a grammar, or undefined when it can. */
export function llamaCppPatternProblem(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const escape = pattern.slice(i).match(GBNF_ESCAPE)?.[0];
      if (!escape) return `the escape ${pattern.slice(i, i + 2)}`;
      i += escape.length - 1;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(" && pattern[i + 1] === "?") return `the group (?${pattern[i + 2] ?? ""}`;
  }
  return undefined;
}
