/**
 * Rewrites an inlined schema node into one canonical spelling before it is compared, so that two
 * schemas that accept the same values compare equal even when they are written differently. Each
 * rewrite is a named rule, one small function, applied in the order of RULES until none changes
 * the node (like json-schema-to-typescript's normalizer):
 *
 * - trivial keywords go (`additionalProperties: true`, `minLength: 0`, `uniqueItems: false`, a
 *   `then` without an `if`, …), and type-specific keywords of types the node does not allow;
 * - allOf members without conflicting keywords are merged into their parent (bounds: the tighter;
 *   required: the union; properties: the union when the names are disjoint), never splitting the
 *   keywords a validator reads together (properties/additionalProperties, items/prefixItems,
 *   contains/minContains, if/then/else);
 * - `const: x` is `enum: [x]`; an anyOf/oneOf of only value lists is one enum;
 * - unions are flattened (an anyOf inside an anyOf), alternatives that accept nothing or that
 *   another alternative already covers are dropped, and a union of one is its alternative;
 * - `anyOf: [X, {type: "null"}]` is X with "null" added to its type;
 * - integers: `number` with a whole `multipleOf` is `integer`, `multipleOf: 1` on an integer goes,
 *   exclusive and fractional bounds become the inclusive whole bound one step inside;
 * - redundant constraints go: `uniqueItems` with `maxItems` 1, `maxProperties` or `propertyNames`
 *   that a closed object implies, `minProperties` its required fields imply, a `dependentRequired`
 *   on an already-required property, a `then`/`else` that the node itself already requires, an
 *   if/then/else whose branches are the same.
 *
 * Nothing here loses a constraint: a rewrite that cannot be proven exact is not made. Every rewrite
 * keeps the node's origin (inline.ts), so a finding still points at the file a user edits.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { adoptOrigins, omitKeys, originOf, setKeyOrigin } from "./inline";
import { canonical, sameJson } from "./json";
import {
  ANNOTATIONS,
  TYPE_KEYWORDS,
  allowsKind,
  isAnnotation,
  isEverything,
  isNothing,
  isMarker,
  matchesType,
  strings,
  typeSet,
  type Schema,
} from "./schema-facts";
import { accepts } from "./accepts";
import { proveSubset, type ProofSides } from "./subset";

type Rule = (s: Schema) => Schema;

/** The rules, in the order they run; each returns its input unchanged when it does not apply. */
export const NORMALIZER_RULES: ReadonlyArray<readonly [name: string, rule: Rule]> = [
  ["trivial keywords go", dropTrivial],
  ["a $ref alone in an allOf is the $ref", refInAllOf],
  ["allOf members merge into their parent", flattenAllOf],
  ["const is a one-value enum", constToEnum],
  ["a union of values is an enum", valueListsToEnum],
  ["anyOf and oneOf together: the oneOf is an allOf member", separateUnions],
  ["nested unions are flattened", flattenUnions],
  ["alternatives another one covers go", dropSubsumedAlternatives],
  ["a union of one is its alternative", singleAlternative],
  ["anyOf [X, null] is X with null in its type", nullableToType],
  ["a number with a whole multipleOf is an integer", integralNumbers],
  ["integer bounds are inclusive and whole", integerBounds],
  ["keywords of types the node does not allow go", dropVacuousKeywords],
  ["uniqueItems with at most one item goes", uniqueItemsRedundant],
  ["what a closed object or its required fields imply goes", objectImplied],
  [
    "if {required: [k]} then {required: […]} and dependentSchemas of only required are dependentRequired",
    toDependentRequired,
  ],
  ["dependentRequired on a required property is required", dependentRequiredImplied],
  ["not {minLength: n} is maxLength n - 1 on a string (and the like for items, properties)", negatedBound],
  ["contains that every item passes is a bound on the item count", containsImplied],
  ["maxContains 1 of one value under uniqueItems goes", uniqueContains],
  ["if {not: X} is if X with the branches swapped", negatedCondition],
  ["if: true is its then, if: false its else", constantCondition],
  ["a branch the node already requires goes", conditionalImplied],
  ["disjoint conditions on a required property are in one order", canonicalConditions],
];

const memo = new WeakMap<Schema, Schema>();

/** The canonical spelling of one node (not of its subschemas: the comparer normalizes as it descends). */
/** For rewrites inside one side (the normalizer): markers are compared by name. */
export const SAME_SIDE: ProofSides = { normalize: (schema) => normalize(schema), sameSide: true };

export function normalize(input: Schema): Schema {
  const known = memo.get(input);
  if (known) return known;
  let s = input;
  for (let pass = 0; pass < 4; pass++) {
    const before = s;
    for (const [, rule] of NORMALIZER_RULES) s = rule(s);
    if (s === before) break;
  }
  memo.set(input, s);
  memo.set(s, s);
  return s;
}

/** Which keyword a value list came from before normalize made it an enum (for the pointer users see). */
const CONST_SOURCE = new WeakMap<Schema, string>();

/** "const" when the node's enum was written as a const, else "enum". */
export function enumKeyword(s: Schema): string {
  return CONST_SOURCE.get(s) ?? "enum";
}

/** A copy without some keywords and with others set, keeping the node's origin and its const source. */
function derive(s: Schema, drop: readonly string[], set: Schema = {}): Schema {
  const out = omitKeys(s, drop);
  for (const [k, v] of Object.entries(set)) out[k] = v;
  const source = CONST_SOURCE.get(s);
  if (source) CONST_SOURCE.set(out, source);
  return out;
}

/** Keywords a validator reads together: a member holding one of them is never merged into a parent holding another. */
const KEYWORD_GROUPS: ReadonlyArray<readonly string[]> = [
  ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"],
  ["prefixItems", "items", "unevaluatedItems"],
  ["contains", "minContains", "maxContains"],
  ["if", "then", "else"],
];
const LOWER = ["minLength", "minItems", "minProperties", "minContains", "minimum"];
const UPPER = ["maxLength", "maxItems", "maxProperties", "maxContains", "maximum"];

// ---- trivial keywords

const EVERYTHING_WHEN_TRUE = [
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "unevaluatedItems",
  "propertyNames",
];

function dropTrivial(s: Schema): Schema {
  // An empty value list: nothing passes (one spelling of "nothing": {not: {}}).
  if (Array.isArray(s.enum) && s.enum.length === 0)
    return derive(
      s,
      Object.keys(s).filter((k) => !isAnnotation(k)),
      { not: {} },
    );
  const drop: string[] = [];
  const set: Schema = {};
  for (const k of EVERYTHING_WHEN_TRUE) if (k in s && isEverything(s[k])) drop.push(k);
  for (const k of ["minLength", "minItems", "minProperties"]) if (s[k] === 0) drop.push(k);
  if (s.uniqueItems === false) drop.push("uniqueItems");
  if (s.minContains === 1 && "contains" in s) drop.push("minContains");
  if (!("contains" in s)) for (const k of ["minContains", "maxContains"]) if (k in s) drop.push(k);
  for (const k of ["required", "allOf"]) if (Array.isArray(s[k]) && (s[k] as unknown[]).length === 0) drop.push(k);
  for (const k of ["properties", "patternProperties"])
    if (isPlainObject(s[k]) && Object.keys(s[k]).length === 0) drop.push(k);
  if ("not" in s && isNothing(s.not)) drop.push("not");
  if (!("if" in s)) for (const k of ["then", "else"]) if (k in s) drop.push(k);
  for (const k of ["then", "else"]) if (k in s && isEverything(s[k])) drop.push(k);
  if ("if" in s && !("then" in s && !drop.includes("then")) && !("else" in s && !drop.includes("else")))
    drop.push("if");
  if (isPlainObject(s.dependentRequired)) {
    const entries = Object.entries(s.dependentRequired).filter(([, names]) => strings(names).length > 0);
    if (entries.length !== Object.keys(s.dependentRequired).length) {
      if (entries.length === 0) drop.push("dependentRequired");
      else set.dependentRequired = Object.fromEntries(entries);
    }
  }
  if (isPlainObject(s.dependentSchemas)) {
    const entries = Object.entries(s.dependentSchemas).filter(([, sub]) => !isEverything(sub));
    if (entries.length !== Object.keys(s.dependentSchemas).length) {
      if (entries.length === 0) drop.push("dependentSchemas");
      else set.dependentSchemas = Object.fromEntries(entries);
    }
  }
  if (drop.length === 0 && Object.keys(set).length === 0) return s;
  return derive(s, drop, set);
}

// ---- allOf

/** Merges the allOf members that can be merged exactly; the rest stay in allOf. */
/**
 * `{allOf: [{$ref: X}]}` with only annotations beside it is `{$ref: X}` (with them): a conjunction
 * of one is its member, and a recursive definition wrapped so is the same use of it.
 */
export function refInAllOf(s: Schema): Schema {
  if (!Array.isArray(s.allOf) || s.allOf.length !== 1 || "$ref" in s) return s;
  const member = s.allOf[0];
  if (!isMarker(member) || !Object.keys(member).every((k) => k === "$ref" || isAnnotation(k))) return s;
  if (!Object.keys(s).every((k) => k === "allOf" || (isAnnotation(k) && !(k in member)))) return s;
  return derive(s, ["allOf"], member);
}

function flattenAllOf(s: Schema): Schema {
  if (!Array.isArray(s.allOf)) return s;
  let out = derive(s, ["allOf"]);
  const rest: unknown[] = [];
  let changed = false;
  const members: unknown[] = [];
  // allOf inside allOf (with nothing else beside it) is one list.
  for (const m of s.allOf) {
    if (isPlainObject(m) && Array.isArray(m.allOf) && Object.keys(m).every((k) => k === "allOf" || isAnnotation(k))) {
      members.push(...m.allOf);
      changed = true;
    } else members.push(m);
  }
  for (const member of members) {
    if (isEverything(member)) {
      changed = true;
      continue;
    }
    const normal = isPlainObject(member) ? normalize(member) : null;
    const merged = normal ? mergeInto(out, normal) : null;
    if (merged) {
      adoptOrigins(
        merged,
        normal,
        Object.keys(normal!).filter((k) => !(k in out) || !sameJson(out[k], normal![k])),
      );
      out = merged;
      changed = true;
    } else rest.push(member);
  }
  if (!changed) return s;
  if (rest.length > 0) out.allOf = rest;
  return out;
}

/** parent ∧ member as one schema, or null when that cannot be written without allOf. */
export function mergeInto(parent: Schema, member: Schema): Schema | null {
  if (typeof member.$ref === "string" || typeof parent.$ref === "string") return null;
  // One union per node (separateUnions): an anyOf and a oneOf stay apart.
  const unions = (s: Schema) => ["anyOf", "oneOf"].filter((k) => k in s);
  if (unions(member).length > 0 && unions(parent).some((k) => !unions(member).includes(k))) return null;
  for (const group of KEYWORD_GROUPS) {
    const inMember = group.filter((k) => k in member);
    const inParent = group.filter((k) => k in parent);
    if (inMember.length === 0 || inParent.length === 0) continue;
    // The same keywords with the same values: nothing to merge. Only properties of disjoint
    // names merge across the group (below), when neither side has a rule for other keys.
    const same = inMember.every((k) => k in parent && sameJson(parent[k], member[k]));
    const onlyProperties = inMember.length === 1 && inMember[0] === "properties" && inParent.length === 1;
    if (!same && !onlyProperties) return null;
  }
  const out = derive(parent, []);
  for (const [k, v] of Object.entries(member)) {
    if (!(k in out) || sameJson(out[k], v)) {
      out[k] = v;
      continue;
    }
    if (isAnnotation(k)) continue;
    if (LOWER.includes(k) && typeof v === "number" && typeof out[k] === "number") out[k] = Math.max(out[k], v);
    else if (UPPER.includes(k) && typeof v === "number" && typeof out[k] === "number") out[k] = Math.min(out[k], v);
    else if (k === "required" && Array.isArray(v) && Array.isArray(out[k]))
      out[k] = [...new Set([...strings(out[k]), ...strings(v)])];
    else if (k === "properties" && isPlainObject(v) && isPlainObject(out[k])) {
      const mine = out[k] as Schema;
      if (Object.keys(v).some((n) => n in mine)) return null;
      out[k] = { ...mine, ...v };
    } else if (k === "type") {
      const a = typeSet(out.type) ?? [];
      const b = typeSet(v) ?? [];
      const both = a.filter((t) => b.includes(t) || (t === "integer" && b.includes("number")));
      for (const t of b) if (t === "integer" && a.includes("number") && !both.includes(t)) both.push(t);
      // No type in common: no value passes both.
      if (both.length === 0)
        return derive(
          parent,
          Object.keys(parent).filter((key) => !isAnnotation(key)),
          { not: {} },
        );
      out.type = both.length === 1 ? both[0] : both;
    } else if (k === "enum" && Array.isArray(v) && Array.isArray(out[k])) {
      out[k] = (out[k] as unknown[]).filter((x) => (v as unknown[]).some((y) => sameJson(x, y)));
    } else return null;
  }
  return out;
}

// ---- value lists

function constToEnum(s: Schema): Schema {
  if (!("const" in s)) return s;
  // const and enum together: only the const can be valid, and only if the enum has it.
  const values = Array.isArray(s.enum) ? (s.enum.some((v) => sameJson(v, s.const)) ? [s.const] : []) : [s.const];
  const out = derive(s, ["const"], { enum: values });
  CONST_SOURCE.set(out, "const");
  return out;
}

/** The values an alternative stands for, when it is nothing but a list of values. */
function valueList(alt: unknown): unknown[] | null {
  if (!isPlainObject(alt)) return null;
  const keys = Object.keys(alt).filter((k) => !isAnnotation(k) || k === "default");
  if (keys.length === 1 && keys[0] === "const") return [alt.const];
  if (keys.length === 1 && keys[0] === "enum" && Array.isArray(alt.enum)) return alt.enum;
  if (keys.length === 1 && keys[0] === "type" && alt.type === "null") return [null];
  if (keys.length === 2 && keys.includes("type") && (keys.includes("enum") || keys.includes("const"))) {
    const values = "const" in alt ? [alt.const] : Array.isArray(alt.enum) ? alt.enum : null;
    const types = typeSet(alt.type);
    if (!values || !types) return null;
    return values.filter((v) => types.some((t) => matchesType(t, v)));
  }
  return null;
}

function valueListsToEnum(s: Schema): Schema {
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (!Array.isArray(list) || list.length === 0 || "enum" in s) continue;
    const lists = list.map(valueList);
    if (lists.some((l) => l === null)) continue;
    const values: unknown[] = [];
    let overlap = false;
    for (const l of lists as unknown[][]) {
      for (const v of l) {
        if (values.some((w) => sameJson(v, w))) overlap = true;
        else values.push(v);
      }
    }
    // A oneOf whose alternatives share a value refuses that value: not a plain enum.
    if (key === "oneOf" && overlap) continue;
    const out = derive(s, [key], { enum: values });
    setKeyOrigin(out, "enum", originOf(s, key));
    return out;
  }
  return s;
}

// ---- unions

/** A node with both anyOf and oneOf holds both: the oneOf moves into allOf, so each node has one union. */
function separateUnions(s: Schema): Schema {
  if (!Array.isArray(s.anyOf) || !Array.isArray(s.oneOf)) return s;
  return derive(s, ["oneOf"], { allOf: [...(Array.isArray(s.allOf) ? s.allOf : []), { oneOf: s.oneOf }] });
}

/** anyOf inside anyOf is one list; alternatives that accept nothing go; one that accepts everything makes the union true. */
function flattenUnions(s: Schema): Schema {
  let out = s;
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = out[key];
    if (!Array.isArray(list)) continue;
    const flat: unknown[] = [];
    let changed = false;
    for (const alt of list) {
      const inner = isPlainObject(alt) ? alt[key] : undefined;
      // anyOf [A, anyOf [B, C]] is anyOf [A, B, C]; a oneOf inside a oneOf is not (a value in B and C).
      if (
        key === "anyOf" &&
        Array.isArray(inner) &&
        Object.keys(alt as Schema).every((k) => k === key || isAnnotation(k))
      ) {
        flat.push(...inner);
        changed = true;
      } else if (isNothing(alt)) changed = true;
      else if (key === "anyOf" && flat.some((f) => canonical(f) === canonical(alt))) changed = true;
      else flat.push(alt);
    }
    if (key === "anyOf" && flat.some((alt) => isEverything(alt))) {
      out = derive(out, [key]);
      continue;
    }
    if (flat.length === 0) {
      // No alternative can match: the node accepts nothing.
      out = derive(out, [key], { not: {} });
      continue;
    }
    if (changed) out = derive(out, [], { [key]: flat });
  }
  return out;
}

/** An anyOf alternative that another one accepts entirely adds nothing (A ∨ B is B when A ⊆ B). */
function dropSubsumedAlternatives(s: Schema): Schema {
  const list = s.anyOf;
  if (!Array.isArray(list) || list.length < 2 || list.length > 16) return s;
  const keep = list.map(() => true);
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < list.length && keep[i]; j++) {
      if (i === j || !keep[j]) continue;
      if (proveSubset(list[i], list[j], SAME_SIDE)) keep[i] = false;
    }
  }
  if (keep.every(Boolean)) return s;
  return derive(s, [], { anyOf: list.filter((_, i) => keep[i]) });
}

/** anyOf/oneOf of one alternative is that alternative, merged into the node when that is exact. */
function singleAlternative(s: Schema): Schema {
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (!Array.isArray(list) || list.length !== 1) continue;
    const alt = list[0];
    const rest = derive(s, [key]);
    if (isEverything(alt)) return rest;
    if (!isPlainObject(alt)) continue;
    const merged = mergeInto(rest, normalize(alt));
    if (merged) {
      adoptOrigins(merged, alt, Object.keys(alt));
      return merged;
    }
    return derive(s, [key], { allOf: [...(Array.isArray(s.allOf) ? s.allOf : []), alt] });
  }
  return s;
}

/** Keywords that apply to one JSON type only: adding "null" to the type leaves them exact. */
const TYPE_SPECIFIC = new Set<string>([
  "type",
  ...TYPE_KEYWORDS.string,
  ...TYPE_KEYWORDS.number,
  ...TYPE_KEYWORDS.object,
  ...TYPE_KEYWORDS.array,
  "description",
  "default",
  ...ANNOTATIONS,
]);

function nullableToType(s: Schema): Schema {
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = s[key];
    if (!Array.isArray(list) || list.length !== 2) continue;
    const nullIndex = list.findIndex(
      (alt) =>
        isPlainObject(alt) &&
        alt.type === "null" &&
        Object.keys(alt).every((k) => k === "type" || k === "description" || ANNOTATIONS.has(k)),
    );
    if (nullIndex < 0) continue;
    const other = list[1 - nullIndex];
    if (!isPlainObject(other) || typeof other.type !== "string" || other.type === "null") continue;
    if (!Object.keys(other).every((k) => TYPE_SPECIFIC.has(k) || isAnnotation(k))) continue;
    // The parent's own keywords must not clash with the alternative's.
    const parentKeys = Object.keys(s).filter((k) => k !== key);
    if (parentKeys.some((k) => k in other && !sameJson(s[k], other[k]) && k !== "description" && !ANNOTATIONS.has(k)))
      continue;
    if (parentKeys.some((k) => !TYPE_SPECIFIC.has(k) && !isAnnotation(k))) continue;
    const out = derive(s, [key]);
    const taken = Object.keys(other).filter((k) => !(k in out));
    for (const k of taken) out[k] = other[k];
    out.type = [other.type, "null"];
    adoptOrigins(out, other, taken);
    return out;
  }
  return s;
}

// ---- numbers

/** Whether every whole number is a multiple of m, exactly as a validator computes it (m = 1, 1/2, 1/4, …). */
function dividesOne(m: number): boolean {
  const inverse = 1 / m;
  return Number.isInteger(inverse) && inverse > 0 && (inverse & (inverse - 1)) === 0;
}

function integralNumbers(s: Schema): Schema {
  const types = typeSet(s.type);
  if (!types) return s;
  let out = s;
  // integer is inside number.
  if (types.includes("integer") && types.includes("number")) {
    const rest = types.filter((t) => t !== "integer");
    out = derive(out, [], { type: rest.length === 1 ? rest[0] : rest });
  }
  const now = typeSet(out.type)!;
  const m = out.multipleOf;
  // A multiple of a whole number is a whole number: number with multipleOf k is integer.
  if (typeof m === "number" && Number.isInteger(m) && m > 0 && now.includes("number")) {
    const replaced = now.map((t) => (t === "number" ? "integer" : t));
    out = derive(out, [], { type: replaced.length === 1 ? replaced[0] : replaced });
  }
  const final = typeSet(out.type)!;
  if (
    typeof out.multipleOf === "number" &&
    final.includes("integer") &&
    !final.includes("number") &&
    dividesOne(out.multipleOf)
  )
    out = derive(out, ["multipleOf"]);
  return out;
}

function integerBounds(s: Schema): Schema {
  const types = typeSet(s.type);
  if (!types || !types.includes("integer") || types.includes("number")) return s;
  const keys = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].filter((k) => typeof s[k] === "number");
  if (keys.length === 0) return s;
  // On multiples of a whole step, a bound moves to the nearest multiple inside it.
  const m = s.multipleOf;
  const step = typeof m === "number" && Number.isInteger(m) && m > 0 ? m : 1;
  const up = (x: number) => Math.ceil(x / step) * step;
  const down = (x: number) => Math.floor(x / step) * step;
  const lows: number[] = [];
  const highs: number[] = [];
  if (typeof s.minimum === "number") lows.push(up(s.minimum));
  if (typeof s.exclusiveMinimum === "number") lows.push(down(s.exclusiveMinimum) + step);
  if (typeof s.maximum === "number") highs.push(down(s.maximum));
  if (typeof s.exclusiveMaximum === "number") highs.push(up(s.exclusiveMaximum) - step);
  const set: Schema = {};
  if (lows.length > 0) set.minimum = Math.max(...lows);
  if (highs.length > 0) set.maximum = Math.min(...highs);
  if (keys.every((k) => k in set && set[k] === s[k])) return s;
  return derive(s, keys, set);
}

// ---- redundancy

/** Type-specific keywords of types the node does not allow constrain nothing (format stays: it is judged as an annotation there). */
function dropVacuousKeywords(s: Schema): Schema {
  const types = typeSet(s.type);
  if (!types) return s;
  const drop: string[] = [];
  for (const [kind, keys] of Object.entries(TYPE_KEYWORDS) as Array<[keyof typeof TYPE_KEYWORDS, readonly string[]]>) {
    if (allowsKind(types, kind)) continue;
    for (const k of keys) if (k in s && k !== "format") drop.push(k);
  }
  return drop.length === 0 ? s : derive(s, drop);
}

function uniqueItemsRedundant(s: Schema): Schema {
  if (s.uniqueItems === true && typeof s.maxItems === "number" && s.maxItems <= 1) return derive(s, ["uniqueItems"]);
  return s;
}

/** Whether no key outside `properties` may appear. */
function isClosed(s: Schema): boolean {
  const closedBy = (v: unknown) => v === false || isNothing(v);
  return (
    !("patternProperties" in s) &&
    (closedBy(s.additionalProperties) ||
      (closedBy(s.unevaluatedProperties) && !["allOf", "anyOf", "oneOf", "if", "dependentSchemas"].some((k) => k in s)))
  );
}

/** maxProperties and propertyNames a closed object already implies, minProperties its required fields imply. */
function objectImplied(s: Schema): Schema {
  const drop: string[] = [];
  const required = new Set(strings(s.required));
  if (typeof s.minProperties === "number" && s.minProperties <= required.size) drop.push("minProperties");
  if (isClosed(s)) {
    const props = isPlainObject(s.properties) ? s.properties : {};
    const declared = Object.keys(props).filter((n) => !isNothing(props[n]));
    if (typeof s.maxProperties === "number" && s.maxProperties >= declared.length) drop.push("maxProperties");
    if ("propertyNames" in s && declared.every((n) => accepts(s.propertyNames, n, () => undefined) === true))
      drop.push("propertyNames");
  }
  return drop.length === 0 ? s : derive(s, drop);
}

/** dependentRequired {k: [n]}: n already required adds nothing; k required makes n required. */
function dependentRequiredImplied(s: Schema): Schema {
  if (!isPlainObject(s.dependentRequired)) return s;
  const required = new Set(strings(s.required));
  const kept: Record<string, string[]> = {};
  let changed = false;
  for (const [k, names] of Object.entries(s.dependentRequired)) {
    const list = strings(names);
    const needed = list.filter((n) => !required.has(n));
    if (required.has(k)) {
      for (const n of needed) required.add(n);
      changed = true;
      continue;
    }
    if (needed.length !== list.length) changed = true;
    if (needed.length > 0) kept[k] = needed;
  }
  if (!changed) return s;
  const set: Schema = { required: [...required] };
  return Object.keys(kept).length === 0
    ? derive(s, ["dependentRequired"], set)
    : derive(s, [], { ...set, dependentRequired: kept });
}

/** A subschema that holds only these keywords (and annotations). */
function only(v: unknown, ...keys: string[]): v is Schema {
  return (
    isPlainObject(v) && Object.keys(v).every((k) => keys.includes(k) || isAnnotation(k)) && keys.every((k) => k in v)
  );
}

/**
 * `if: {required: [k]}, then: {required: [n…]}` is `dependentRequired: {k: [n…]}` (an else stays
 * with its if), and
 * so is `dependentSchemas: {k: {required: [n…]}}`: on a non-object all three pass, on an object
 * each says "when k is there, so are n…".
 */
function toDependentRequired(s: Schema): Schema {
  const deps: Record<string, string[]> = {};
  const add = (k: string, names: string[]) => (deps[k] = [...new Set([...(deps[k] ?? []), ...names])].sort());
  if (isPlainObject(s.dependentRequired))
    for (const [k, names] of Object.entries(s.dependentRequired)) add(k, strings(names));
  const drop: string[] = [];
  const sameBranches = "else" in s && canonical(s.then) === canonical(s.else); // no condition at all: conditionalImplied
  if (!sameBranches && only(s.if, "required") && strings(s.if.required).length === 1 && only(s.then, "required")) {
    add(strings(s.if.required)[0]!, strings(s.then.required));
    // an else stays, under the same if: (if k then T else E) is (k ⇒ T) and (if k then {} else E)
    drop.push(...("else" in s ? ["then"] : ["if", "then"]));
  }
  const set: Schema = {};
  if (isPlainObject(s.dependentSchemas)) {
    const rest: Record<string, unknown> = {};
    for (const [k, sub] of Object.entries(s.dependentSchemas)) {
      if (only(sub, "required")) add(k, strings(sub.required));
      else rest[k] = sub;
    }
    if (Object.keys(rest).length !== Object.keys(s.dependentSchemas).length) {
      drop.push("dependentSchemas");
      if (Object.keys(rest).length > 0) set.dependentSchemas = rest;
    }
  }
  if (drop.length === 0) return s;
  return derive(s, drop, { ...set, dependentRequired: deps });
}

/** Per negated lower bound: the upper bound it is, and the type it applies to (and the other way round). */
const NEGATED_BOUNDS: Readonly<Record<string, readonly [bound: string, type: string, step: number]>> = {
  minLength: ["maxLength", "string", -1],
  maxLength: ["minLength", "string", 1],
  minItems: ["maxItems", "array", -1],
  maxItems: ["minItems", "array", 1],
  minProperties: ["maxProperties", "object", -1],
  maxProperties: ["minProperties", "object", 1],
};

/**
 * `not: {minLength: n}`: every non-string passes minLength, so the negation is a string shorter
 * than n: type string and maxLength n - 1. The same for the other count bounds.
 */
function negatedBound(s: Schema): Schema {
  const not = s.not;
  if (!isPlainObject(not)) return s;
  const keys = Object.keys(not).filter((k) => !isAnnotation(k));
  if (keys.length !== 1 || !(keys[0]! in NEGATED_BOUNDS)) return s;
  const n = not[keys[0]!];
  const [bound, type, step] = NEGATED_BOUNDS[keys[0]!]!;
  if (typeof n !== "number" || !Number.isInteger(n) || n + step < 0) return s;
  const types = typeSet(s.type);
  if (types && !types.includes(type)) return s;
  const own = s[bound];
  const value = typeof own !== "number" ? n + step : step < 0 ? Math.min(own, n + step) : Math.max(own, n + step);
  return derive(s, ["not"], { type, [bound]: value });
}

/**
 * contains C where every item passes C (items ⊆ C, no prefixItems): the array holds between
 * minContains (default 1) and maxContains matching items exactly when it holds that many items.
 */
function containsImplied(s: Schema): Schema {
  if (!("contains" in s) || !("items" in s) || "prefixItems" in s || "unevaluatedItems" in s) return s;
  if (!proveSubset(s.items, s.contains, SAME_SIDE)) return s;
  const least = typeof s.minContains === "number" ? s.minContains : 1;
  const set: Schema = {};
  if (least > 0) set.minItems = Math.max(typeof s.minItems === "number" ? s.minItems : 0, least);
  if (typeof s.maxContains === "number")
    set.maxItems = Math.min(typeof s.maxItems === "number" ? s.maxItems : Infinity, s.maxContains);
  return derive(s, ["contains", "minContains", "maxContains"], set);
}

/** Unique items hold one value at most once: maxContains 1 of a single value adds nothing. */
function uniqueContains(s: Schema): Schema {
  if (s.uniqueItems !== true || s.maxContains !== 1 || !isPlainObject(s.contains)) return s;
  const c = s.contains;
  const values: unknown[] = Array.isArray(c.enum) ? c.enum : [];
  const one = only(c, "const") || (only(c, "enum") && values.length === 1);
  return one ? derive(s, ["maxContains"]) : s;
}

// ---- conditionals

/** if {not: X} then A else B is if X then B else A. */
function negatedCondition(s: Schema): Schema {
  const cond = s.if;
  if (!isPlainObject(cond) || !("not" in cond) || !Object.keys(cond).every((k) => k === "not" || isAnnotation(k)))
    return s;
  const out = derive(s, ["if", "then", "else"], { if: cond.not });
  if ("else" in s) out.then = s.else;
  if ("then" in s) out.else = s.then;
  return out;
}

/** `if: true` (every value passes) leaves only the then; `if: false` (none does) only the else. */
function constantCondition(s: Schema): Schema {
  if (!("if" in s) || !(isEverything(s.if) || isNothing(s.if))) return s;
  const branch = isEverything(s.if) ? s.then : s.else;
  const allOf = Array.isArray(s.allOf) ? s.allOf : [];
  return derive(s, ["if", "then", "else"], branch === undefined ? {} : { allOf: [...allOf, branch] });
}

/** A then/else that the node without its conditional already implies changes nothing; equal branches make the if irrelevant. */
function conditionalImplied(s: Schema): Schema {
  if (!("if" in s)) return s;
  const rest = derive(s, ["if", "then", "else"]);
  const drop: string[] = [];
  for (const k of ["then", "else"] as const) if (k in s && proveSubset(rest, s[k], SAME_SIDE)) drop.push(k);
  if (drop.length === 0) {
    if ("then" in s && "else" in s && canonical(s.then) === canonical(s.else))
      return derive(s, ["if", "then", "else"], { allOf: [...(Array.isArray(s.allOf) ? s.allOf : []), s.then] });
    return s;
  }
  const remaining = ["then", "else"].filter((k) => k in s && !drop.includes(k));
  return derive(s, remaining.length === 0 ? ["if", ...drop] : drop);
}

/** The values a condition on property k admits: `{properties: {k: {enum | const}}}` (with `required: [k]` or not). */
function conditionValues(cond: unknown, k: string): unknown[] | null {
  if (!isPlainObject(cond)) return null;
  const keys = Object.keys(cond).filter((key) => !isAnnotation(key));
  if (!keys.includes("properties") || keys.some((key) => key !== "properties" && key !== "required")) return null;
  if ("required" in cond && !(strings(cond.required).length === 1 && strings(cond.required)[0] === k)) return null;
  const props = cond.properties;
  if (!isPlainObject(props) || Object.keys(props).length !== 1 || !(k in props)) return null;
  const p = props[k];
  if (only(p, "const")) return [p.const];
  return only(p, "enum") && Array.isArray(p.enum) ? p.enum : null;
}

/**
 * On a node whose property k is required with a finite set D of values, a condition on k's value
 * (kind = x) splits the objects into disjoint parts, so:
 * - `if k ∈ S then A else B` is `if k ∈ D∖S then B else A`: the smaller value list is the if;
 * - a chain `if k ∈ S1 then A else if k ∈ S2 then B …` with disjoint lists may be in any order:
 *   sorted by value list.
 * Each list becomes its values within D, sorted (the same objects pass).
 */
function canonicalConditions(s: Schema): Schema {
  if (!("if" in s) || !isPlainObject(s.properties)) return s;
  const ifProps = isPlainObject(s.if) && isPlainObject(s.if.properties) ? Object.keys(s.if.properties) : [];
  const k = ifProps.length === 1 ? ifProps[0]! : undefined;
  if (k === undefined || !strings(s.required).includes(k)) return s;
  const domain = conditionValues({ properties: { [k]: s.properties[k] } }, k);
  if (!domain) return s;
  const within = (values: unknown[]) =>
    domain
      .filter((d) => values.some((v) => canonical(v) === canonical(d)))
      .sort((x, y) => (canonical(x) < canonical(y) ? -1 : 1));
  // the chain: (values, branch) per condition, then the last else
  const chain: Array<[unknown[], unknown]> = [];
  let node: unknown = s;
  let last: unknown;
  let hasLast = false;
  for (;;) {
    const values = conditionValues((node as Schema).if, k);
    if (!values || !("then" in (node as Schema))) return s;
    chain.push([within(values), (node as Schema).then]);
    const next = (node as Schema).else;
    if (!("else" in (node as Schema))) break;
    if (only(next, "if", "then") || only(next, "if", "then", "else")) {
      if (conditionValues(next.if, k)) {
        node = next;
        continue;
      }
    }
    last = next;
    hasLast = true;
    break;
  }
  const key = (values: unknown[]) => canonical(values);
  let list = chain;
  if (chain.length === 1 && hasLast) {
    // the complement: the smaller list (then the first in order) is the condition
    const rest = domain.filter((d) => !chain[0]![0].some((v) => canonical(v) === canonical(d)));
    const [values] = chain[0]!;
    const swap = rest.length < values.length || (rest.length === values.length && key(within(rest)) < key(values));
    if (swap) {
      list = [[within(rest), last]];
      last = chain[0]![1];
    }
  } else if (chain.length > 1) {
    const seen = new Set<string>();
    for (const [values] of chain)
      for (const v of values) {
        if (seen.has(canonical(v))) return s; // overlapping conditions: their order matters
        seen.add(canonical(v));
      }
    list = [...chain].sort((x, y) => (key(x[0]) < key(y[0]) ? -1 : key(x[0]) > key(y[0]) ? 1 : 0));
  }
  let out: Schema | undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const [values, then] = list[i]!;
    const conditional: Schema = { if: { properties: { [k]: { enum: values } } }, then };
    if (out) conditional.else = out;
    else if (hasLast) conditional.else = last;
    out = conditional;
  }
  const rebuilt = derive(s, ["if", "then", "else"], out);
  return canonical(rebuilt) === canonical(s) ? s : rebuilt;
}
