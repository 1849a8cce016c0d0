/**
 * What a property name gets in an object schema, as JSON Schema 2020-12 validates it: a declared
 * name its own schema and every `patternProperties` entry whose pattern matches the name (both
 * apply); a name not declared the patterns it matches, else `additionalProperties` (absent:
 * anything). Shared by the subset proof, the value evaluator and the keyword walk, so the three
 * read an object alike. Patterns are ECMA-262 with the "u" flag, as ajv compiles them; one that
 * does not compile makes the name accept nothing here (the contract's validation refuses it first).
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { patternIncludes } from "./regex";
import type { Schema } from "./schema-facts";

const compiled = new Map<string, RegExp | null>();

function regex(pattern: string): RegExp | null {
  let r = compiled.get(pattern);
  if (r === undefined) {
    try {
      r = new RegExp(pattern, "u");
    } catch {
      r = null;
    }
    compiled.set(pattern, r);
  }
  return r;
}

/** The schemas of the patternProperties entries matching a name, or "invalid" when a pattern does not compile. */
export function matchingPatterns(s: Schema, name: string): unknown[] | "invalid" {
  const patterns = isPlainObject(s.patternProperties) ? s.patternProperties : {};
  const out: unknown[] = [];
  for (const [pattern, sub] of Object.entries(patterns)) {
    const r = regex(pattern);
    if (r === null) return "invalid";
    if (r.test(name)) out.push(sub);
  }
  return out;
}

/** Whether a value's key matches some patternProperties entry (undefined: a pattern does not compile). */
export function matchesSomePattern(s: Schema, name: string): boolean | undefined {
  const m = matchingPatterns(s, name);
  return m === "invalid" ? undefined : m.length > 0;
}

/** A declared name's schema together with the patterns that also apply to it (the declared schema alone when none do). */
export function declaredSchema(s: Schema, name: string): unknown {
  const own = (s.properties as Schema)[name];
  const patterns = matchingPatterns(s, name);
  if (patterns === "invalid") return { not: {} };
  return patterns.length === 0 ? own : { allOf: [own, ...patterns] };
}

/**
 * Whether every name a pattern matches is one of these (declared) names: such an entry constrains
 * only declared properties, which are compared as declared (declaredSchema), never a key that falls
 * to additionalProperties.
 */
export function onlyNames(pattern: string, names: readonly string[]): boolean {
  if (names.length === 0 || regex(pattern) === null) return false;
  const escaped = names.map((n) => n.replace(/[\\^$.*+?()[\]{}|/]/g, (c) => `\\${c}`));
  return patternIncludes(`^(?:${escaped.join("|")})$`, pattern);
}
