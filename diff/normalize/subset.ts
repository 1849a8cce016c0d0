/**
 * Proves that every value one schema accepts is accepted by another (sub ⊆ sup). The answer is
 * true only when proven; false means "not proven" (maybe false, maybe beyond this prover), so
 * callers may use a true to drop a finding and must never use a false to add one.
 *
 * The proof works on normalized nodes, JSON type by JSON type: a finite side is checked value by
 * value (accepts.ts); otherwise each keyword of sup must be implied by sub's keywords for the types
 * sub allows (a tighter bound, a pattern whose language is inside the other's, a required list
 * that holds it, every property's schema inside the other's, …). Unions: each alternative of sub
 * must be inside sup; sub (or each of its JSON types) inside one alternative of sup. Conjunctions:
 * sub inside each member of sup's allOf. Recursive definitions ($ref markers) are unfolded with the
 * pair being proven assumed to hold (the coinductive rule for recursive types), so a proof ends.
 * A keyword of sup without a rule here makes the proof fail: the safe side.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { accepts } from "./accepts";
import { canonical } from "./json";
import { boundOf, discriminatorPieces, presencePieces, rangePieces } from "./case-split";
import { declaredSchema, matchingPatterns, onlyNames } from "./object-keys";
import { comparePatterns } from "./regex";

/** A pattern no string matches (an empty class). */
const NO_STRING = "[^\\s\\S]";
import {
  TYPE_KEYWORDS,
  allowsKind,
  asSchema,
  assertsFormat,
  coversType,
  isAnnotation,
  isEverything,
  isMarker,
  isNothing,
  strings,
  typeSet,
  type Schema,
} from "./schema-facts";

export interface ProofSides {
  /**
   * The normaliser each side is put through before it is compared. Passed in, not imported: the
   * normaliser itself proves subsets (a redundant alternative, a contains every item passes), so
   * importing it here would make the two files one circle. normalize.ts passes its own.
   */
  normalize: (schema: Schema) => Schema;
  /** Both schemas come from one contract: a marker names the same definition on both. */
  sameSide: boolean;
  /** Turn a marker of sub's side (sup's side) into its definition; absent: markers are compared by name only. */
  expandSub?: (marker: Schema) => Schema;
  expandSup?: (marker: Schema) => Schema;
  /** Whether a marker's definition is compared on its own elsewhere (a catalog): equal names are equal. */
  isOpaque?: (ref: string) => boolean;
}

const MAX_DEPTH = 48;
const ALL_TYPES = ["null", "boolean", "object", "array", "string", "number"];
const KNOWN_GENERIC = new Set([
  "type",
  "enum",
  "const",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
]);
const KNOWN_TYPE_SPECIFIC = new Set(Object.values(TYPE_KEYWORDS).flat());

/** Whether every value `sub` accepts is proven to pass `sup`. */
export function proveSubset(sub: unknown, sup: unknown, sides: ProofSides): boolean {
  return new Prover(sides).prove(sub, sup, 0);
}

/** Both ways: the two schemas accept the same values. */
export function proveEquivalent(a: unknown, b: unknown, sides: ProofSides, reverse: ProofSides): boolean {
  return proveSubset(a, b, sides) && proveSubset(b, a, reverse);
}

const ids = new WeakMap<object, number>();
let nextId = 0;
function identity(node: unknown): string {
  if (isMarker(node)) return `ref:${node.$ref}`;
  // everything is one node however it is spelled (an absent items, {}): the any-JSON definition
  // against {} meets it again at each level
  if (node === undefined || node === true || (isPlainObject(node) && Object.keys(node).length === 0)) return "any";
  if (!isPlainObject(node)) return String(node);
  let id = ids.get(node);
  if (id === undefined) ids.set(node, (id = nextId++));
  return `#${id}`;
}

class Prover {
  private readonly assumed = new Set<string>();

  constructor(private readonly sides: ProofSides) {}

  prove(subIn: unknown, supIn: unknown, depth: number): boolean {
    if (isEverything(supIn) || isNothing(subIn)) return true;
    if (depth > MAX_DEPTH) return false;
    if (isMarker(subIn) || isMarker(supIn)) return this.proveMarkers(subIn, supIn, depth);
    const sub = this.sides.normalize(asSchema(subIn));
    const sup = this.sides.normalize(asSchema(supIn));
    // a node normalized into a $ref (one alone in an allOf) is that $ref
    if (isMarker(sub) || isMarker(sup)) return this.proveMarkers(sub, sup, depth);
    if ((sub === sup || canonical(sub) === canonical(sup)) && (this.sides.sameSide || !hasMarker(sub))) return true;
    // A keyword without a rule here (a vendor extension may even widen, like OpenAPI's nullable):
    // nothing is proven about a node that has one, on either side.
    if (!understood(sub) || !understood(sup)) return false;
    if (isEverything(sup) || isNothing(sub)) return true;
    if (isNothing(sup)) return false;

    // sub's disjunctions: each alternative (with the rest of sub) must be inside sup.
    for (const key of ["anyOf", "oneOf"] as const) {
      if (!Array.isArray(sub[key])) continue;
      const rest = omit(sub, [key]);
      // oneOf accepts fewer values than anyOf: proving the anyOf is enough.
      return sub[key].every((alt) => this.prove(conjunction(rest, alt), sup, depth + 1));
    }
    // sup's conjunctions: sub must be inside each member.
    if (Array.isArray(sup.allOf)) {
      const rest = omit(sup, ["allOf"]);
      return this.prove(sub, rest, depth + 1) && sup.allOf.every((m) => this.prove(sub, m, depth + 1));
    }
    // sub's conjunctions: the rest, or one member with the keywords of the rest it does not
    // interact with (its type, …), may already be inside sup (dropping a conjunct only widens sub).
    if (Array.isArray(sub.allOf)) {
      const rest = omit(sub, ["allOf"]);
      if (this.prove(rest, sup, depth + 1)) return true;
      return sub.allOf.some(
        (m) =>
          isPlainObject(m) &&
          (this.prove(combine(m, rest), sup, depth + 1) || this.prove(combine(rest, m), sup, depth + 1)),
      );
    }
    if ("if" in sup || "if" in sub) return this.proveConditional(sub, sup, depth);
    // sup's not: sub must share no value with what it excludes.
    if ("not" in sup) {
      if (!this.disjoint(sub, sup.not)) return false;
      return this.prove(sub, omit(sup, ["not"]), depth + 1);
    }
    // Finite sub: value by value.
    const values = finiteValues(sub);
    if (values) {
      return values.every((v) => this.accepts(sub, v, "sub") === false || this.accepts(sup, v, "sup") === true);
    }
    if (Array.isArray(sup.enum)) return false;
    // sup's disjunctions: sub inside one alternative (or type by type).
    for (const key of ["anyOf", "oneOf"] as const) {
      if (Array.isArray(sup[key])) return this.proveInUnion(sub, sup, key, depth);
    }
    return this.proveTyped(sub, sup, depth);
  }

  /** Conditionals both hold unchanged cancel out; sub's alone can be dropped (sub only grows). */
  private proveConditional(sub: Schema, sup: Schema, depth: number): boolean {
    const keys = ["if", "then", "else"];
    if ("if" in sup) {
      if ("if" in sub && keys.every((k) => canonical(sub[k]) === canonical(sup[k])) && !hasMarker(pick(sup, keys)))
        return this.prove(omit(sub, keys), omit(sup, keys), depth + 1);
      // inside the if: the then is enough; sharing no value with it: the else
      const rest = omit(sup, keys);
      if (this.prove(sub, sup.if, depth + 1))
        return this.prove(sub, rest, depth + 1) && this.prove(sub, sup.then, depth + 1);
      if (this.disjoint(sub, sup.if)) return this.prove(sub, rest, depth + 1) && this.prove(sub, sup.else, depth + 1);
      // if → then, else → else: being inside both branches is enough.
      return (
        this.prove(sub, omit(sup, keys), depth + 1) &&
        this.prove(sub, sup.then, depth + 1) &&
        this.prove(sub, sup.else, depth + 1)
      );
    }
    const pieces = discriminatorPieces(sub);
    if (pieces) return pieces.every((p) => this.prove(p, sup, depth + 1));
    const rest = omit(sub, keys);
    return (
      this.prove(conjunction(rest, sub.then ?? true), sup, depth + 1) &&
      this.prove(conjunction(rest, sub.else ?? true), sup, depth + 1)
    );
  }

  /** sup's disjunctions: all of sub inside one alternative, or each JSON type of sub inside one. */
  private proveInUnion(sub: Schema, sup: Schema, key: "anyOf" | "oneOf", depth: number): boolean {
    const alts = sup[key] as unknown[];
    if (key === "oneOf" && !pairwiseDisjoint(alts)) return false;
    const rest = omit(sup, [key]);
    if (!this.prove(sub, rest, depth + 1)) return false;
    if (alts.some((alt) => this.prove(sub, alt, depth + 1))) return true;
    const types = typesOf(sub);
    if (types.length >= 2)
      return types.every((t) => alts.some((alt) => this.prove(restrictType(sub, t), alt, depth + 1)));
    // no alternative holds all of sub: cut sub into parts each alternative holds whole or not at all
    const normalized = alts.map((alt) => (isMarker(alt) ? {} : this.sides.normalize(asSchema(alt))));
    const pieces = rangePieces(sub, normalized, this.sides.normalize) ?? presencePieces(sub, normalized);
    return pieces !== null && pieces.every((p) => alts.some((alt) => this.prove(p, alt, depth + 1)));
  }

  /** A marker on either side: equal catalog names are equal; recursive definitions unfold, the pair assumed. */
  private proveMarkers(subIn: unknown, supIn: unknown, depth: number): boolean {
    const sub = asSchema(subIn);
    const sup = asSchema(supIn);
    if (isMarker(sub) && isMarker(sup) && sub.$ref === sup.$ref) {
      if (this.sides.sameSide || this.sides.isOpaque?.(sub.$ref))
        return this.prove(omit(sub, ["$ref"]), omit(sup, ["$ref"]), depth + 1);
    }
    const key = `${identity(sub)}|${identity(sup)}`;
    if (this.assumed.has(key)) return true;
    const open = (node: Schema, expand: ((m: Schema) => Schema) | undefined): Schema | undefined =>
      isMarker(node) ? expand?.(node) : node;
    const subBody = open(sub, this.sides.expandSub);
    const supBody = open(sup, this.sides.expandSup);
    if (!subBody || !supBody) return false;
    this.assumed.add(key);
    try {
      return this.prove(subBody, supBody, depth + 1);
    } finally {
      this.assumed.delete(key);
    }
  }

  private accepts(s: Schema, v: unknown, side: "sub" | "sup"): boolean | undefined {
    const expand = side === "sub" ? this.sides.expandSub : this.sides.expandSup;
    return accepts(s, v, (m) => expand?.(m));
  }

  /** No value passes both: different JSON types, or a value list the other refuses. */
  private disjoint(sub: Schema, excludedIn: unknown): boolean {
    if (isNothing(excludedIn)) return true;
    const excluded = this.sides.normalize(asSchema(excludedIn));
    const subTypes = typesOf(sub);
    const exTypes = typesOf(excluded);
    if (!subTypes.some((t) => exTypes.includes(t) || (t === "number" && exTypes.includes("integer")))) return true;
    if (Array.isArray(excluded.enum) && excluded.enum.every((v) => this.accepts(sub, v, "sub") === false)) return true;
    // objects: a property sub requires whose values the excluded schema's refuse
    if (isPlainObject(excluded.properties) && subTypes.length === 1 && subTypes[0] === "object") {
      const required = strings(sub.required);
      for (const [name, p] of Object.entries(excluded.properties))
        if (required.includes(name) && this.disjoint(this.sides.normalize(asSchema(effective(sub, name))), p))
          return true;
    }
    const values = finiteValues(sub);
    if (
      values &&
      values.every((v) => this.accepts(sub, v, "sub") === false || this.accepts(excluded, v, "sup") === false)
    )
      return true;
    return false;
  }

  /** sub and sup without unions, conjunctions, conditionals or value lists: keyword by keyword, per JSON type. */
  private proveTyped(sub: Schema, sup: Schema, depth: number): boolean {
    const subTypes = typeSet(sub.type);
    const supTypes = typeSet(sup.type);
    const types = subTypes ?? ["null", "boolean", "object", "array", "string", "number"];
    if (supTypes && !types.every((t) => coversType(supTypes, t))) return false;
    if (allowsKind(subTypes, "string") && !this.strings(sub, sup)) return false;
    if (allowsKind(subTypes, "number") && !this.numbers(sub, sup, types)) return false;
    if (allowsKind(subTypes, "object") && !this.objects(sub, sup, depth)) return false;
    if (allowsKind(subTypes, "array") && !this.arrays(sub, sup, depth)) return false;
    return true;
  }

  /**
   * Lengths and patterns together: a pattern of sub bounds its lengths (`^[a-z]{1,5}$` is inside
   * `maxLength: 5`), and sub's lengths bound the strings its pattern is judged on (`maxLength: 10`
   * is inside `^[\s\S]{0,10}$`).
   */
  private strings(sub: Schema, sup: Schema): boolean {
    const window = { min: num(sub.minLength, 0), max: num(sub.maxLength, Infinity) };
    const subPattern = typeof sub.pattern === "string" ? sub.pattern : "";
    const noneOfLengths = (min: number, max: number) =>
      ["equal", "subset"].includes(comparePatterns(NO_STRING, subPattern, { min, max }));
    if (
      typeof sup.minLength === "number" &&
      !(window.min >= sup.minLength) &&
      !noneOfLengths(window.min, sup.minLength - 1)
    )
      return false;
    if (
      typeof sup.maxLength === "number" &&
      !(window.max <= sup.maxLength) &&
      !noneOfLengths(sup.maxLength + 1, window.max)
    )
      return false;
    if (
      typeof sup.pattern === "string" &&
      !["equal", "subset"].includes(comparePatterns(sup.pattern, subPattern, window))
    )
      return false;
    if ("format" in sup && assertsFormat(sup.format) && sub.format !== sup.format) return false;
    return true;
  }

  private numbers(sub: Schema, sup: Schema, types: readonly string[]): boolean {
    const supTypes = typeSet(sup.type);
    const integral =
      !types.includes("number") || (typeof sub.multipleOf === "number" && Number.isInteger(sub.multipleOf));
    if (supTypes && supTypes.includes("integer") && !supTypes.includes("number") && !integral) return false;
    if (!boundInside(sub, sup, "lower") || !boundInside(sub, sup, "upper")) return false;
    const m = sup.multipleOf;
    if (typeof m === "number") {
      const own = sub.multipleOf;
      const ok = (typeof own === "number" && Number.isInteger(own / m)) || (integral && m === 1);
      if (!ok) return false;
    }
    return true;
  }

  private objects(sub: Schema, sup: Schema, depth: number): boolean {
    if ("unevaluatedProperties" in sup || "unevaluatedProperties" in sub) {
      if (canonical(sub.unevaluatedProperties) !== canonical(sup.unevaluatedProperties)) return false;
      if (canonical(Object.keys(asSchema(sub.properties))) !== canonical(Object.keys(asSchema(sup.properties))))
        return false;
    }
    const subProps = isPlainObject(sub.properties) ? sub.properties : {};
    const supProps = isPlainObject(sup.properties) ? sup.properties : {};
    const subRequired = new Set(strings(sub.required));
    for (const name of strings(sup.required)) if (!subRequired.has(name)) return false;
    for (const name of new Set([...Object.keys(subProps), ...Object.keys(supProps)])) {
      const own = effective(sub, name);
      if (isNothing(own)) continue;
      if (!this.prove(own, effective(sup, name), depth + 1)) return false;
    }
    if (!this.otherKeys(sub, sup, depth)) return false;
    if (
      typeof sup.minProperties === "number" &&
      !(Math.max(num(sub.minProperties, 0), subRequired.size) >= sup.minProperties)
    )
      return false;
    if (typeof sup.maxProperties === "number") {
      const bound = closedObject(sub)
        ? Object.keys(subProps).filter((n) => !isNothing(subProps[n])).length
        : num(sub.maxProperties, Infinity);
      if (!(Math.min(bound, num(sub.maxProperties, Infinity)) <= sup.maxProperties)) return false;
    }
    if ("propertyNames" in sup && !isEverything(sup.propertyNames)) {
      const declared = Object.keys(subProps).filter((n) => !isNothing(subProps[n]));
      const byNames =
        closedObject(sub) && declared.every((n) => this.accepts(asSchema(sup.propertyNames), n, "sup") === true);
      if (!byNames && !this.prove(sub.propertyNames, sup.propertyNames, depth + 1)) return false;
    }
    if (isPlainObject(sup.dependentRequired)) {
      const subDeps = isPlainObject(sub.dependentRequired) ? sub.dependentRequired : {};
      for (const [k, names] of Object.entries(sup.dependentRequired)) {
        if (isNothing(effective(sub, k))) continue;
        const has = new Set([...subRequired, ...strings(subDeps[k])]);
        if (!strings(names).every((n) => has.has(n))) return false;
      }
    }
    if (isPlainObject(sup.dependentSchemas)) {
      const subDeps = isPlainObject(sub.dependentSchemas) ? sub.dependentSchemas : {};
      for (const [k, schema] of Object.entries(sup.dependentSchemas)) {
        if (isNothing(effective(sub, k))) continue;
        if (k in subDeps && this.prove(subDeps[k], schema, depth + 1)) continue;
        if (!this.prove(omit(sub, ["dependentSchemas"]), schema, depth + 1)) return false;
      }
    }
    return true;
  }

  /** Keys neither side lists: what sub allows for them must be inside what sup allows. */
  private otherKeys(sub: Schema, sup: Schema, depth: number): boolean {
    // an entry matching only names either side declares never reaches a key listed by neither
    const declared = [...new Set([...Object.keys(asSchema(sub.properties)), ...Object.keys(asSchema(sup.properties))])];
    const reach = (s: Schema) =>
      Object.fromEntries(
        Object.entries(isPlainObject(s.patternProperties) ? s.patternProperties : {}).filter(
          ([p]) => !onlyNames(p, declared),
        ),
      );
    const subPatterns = reach(sub);
    const supPatterns = reach(sup);
    const none = (m: Schema) => Object.keys(m).length === 0;
    if (none(supPatterns) && isEverything(sup.additionalProperties)) return true;
    if (none(subPatterns) && (sub.additionalProperties === false || isNothing(sub.additionalProperties))) return true;
    if (canonical(Object.keys(subPatterns).sort()) !== canonical(Object.keys(supPatterns).sort())) return false;
    for (const p of Object.keys(supPatterns)) if (!this.prove(subPatterns[p], supPatterns[p], depth + 1)) return false;
    return this.prove(sub.additionalProperties, sup.additionalProperties, depth + 1);
  }

  private arrays(sub: Schema, sup: Schema, depth: number): boolean {
    if ("unevaluatedItems" in sup || "unevaluatedItems" in sub) {
      if (canonical(sub.unevaluatedItems) !== canonical(sup.unevaluatedItems)) return false;
    }
    const subPrefix = Array.isArray(sub.prefixItems) ? sub.prefixItems : [];
    const supPrefix = Array.isArray(sup.prefixItems) ? sup.prefixItems : [];
    const maxItems = num(sub.maxItems, Infinity);
    const positions = Math.max(subPrefix.length, supPrefix.length);
    for (let i = 0; i < positions && i < maxItems; i++) {
      const own = i < subPrefix.length ? subPrefix[i] : sub.items;
      const other = i < supPrefix.length ? supPrefix[i] : sup.items;
      if (!isNothing(own) && !this.prove(own, other, depth + 1)) return false;
    }
    if (maxItems > positions && !this.prove(sub.items, sup.items, depth + 1)) {
      // sub's items accept nothing beyond its prefix: no more positions to check.
      if (!(isNothing(sub.items) && subPrefix.length >= positions)) return false;
    }
    if (typeof sup.minItems === "number" && !(num(sub.minItems, 0) >= sup.minItems)) return false;
    if (typeof sup.maxItems === "number") {
      const bound = isNothing(sub.items) ? Math.min(maxItems, subPrefix.length) : maxItems;
      if (!(bound <= sup.maxItems)) return false;
    }
    if (sup.uniqueItems === true && sub.uniqueItems !== true && !(maxItems <= 1)) return false;
    if ("contains" in sup) {
      const min = num(sup.minContains, 1);
      if (min > 0) {
        if (!("contains" in sub) || num(sub.minContains, 1) < min) return false;
        if (!this.prove(sub.contains, sup.contains, depth + 1)) return false;
      }
      if (typeof sup.maxContains === "number") {
        const sameContains = canonical(sub.contains) === canonical(sup.contains) && !hasMarker(sub.contains);
        const bounded =
          maxItems <= sup.maxContains || (sameContains && num(sub.maxContains, Infinity) <= sup.maxContains);
        if (!bounded) return false;
      }
    }
    return true;
  }
}

function understood(s: Schema): boolean {
  for (const key in s) if (!isAnnotation(key) && !KNOWN_GENERIC.has(key) && !KNOWN_TYPE_SPECIFIC.has(key)) return false;
  return true;
}

function num(v: unknown, fallback: number): number {
  return typeof v === "number" ? v : fallback;
}

function omit(s: Schema, keys: readonly string[]): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) if (!keys.includes(k)) out[k] = v;
  return out;
}

function pick(s: Schema, keys: readonly string[]): Schema {
  const out: Schema = {};
  for (const k of keys) if (k in s) out[k] = s[k];
  return out;
}

/** rest ∧ alt as one schema (normalize merges it where exact). */
function conjunction(rest: Schema, alt: unknown): Schema {
  if (isEverything(rest)) return asSchema(alt);
  return mergeFields(rest, alt) ?? { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), alt] };
}

/**
 * rest ∧ alt where alt only names fields (properties, required) rest declares: each field gets
 * both schemas, the required lists join. Exact: alt brings no key rest's additionalProperties or
 * patterns would judge otherwise. Null when alt is not of that shape.
 */
function mergeFields(rest: Schema, alt: unknown): Schema | null {
  if (!isPlainObject(alt)) return null;
  const keys = Object.keys(alt).filter((k) => !isAnnotation(k));
  if (keys.length === 0 || !keys.every((k) => k === "properties" || k === "required")) return null;
  const own = isPlainObject(rest.properties) ? rest.properties : {};
  const added = isPlainObject(alt.properties) ? alt.properties : {};
  if (!Object.keys(added).every((k) => Object.prototype.hasOwnProperty.call(own, k))) return null;
  const properties: Schema = { ...own };
  for (const [k, v] of Object.entries(added)) properties[k] = { allOf: [own[k], v] };
  const required = [...new Set([...strings(rest.required), ...strings(alt.required)])];
  return {
    ...rest,
    ...(Object.keys(added).length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** Keywords a validator reads together (they stay in one schema object or leave it together). */
const GROUPS: ReadonlyArray<readonly string[]> = [
  ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"],
  ["prefixItems", "items", "unevaluatedItems"],
  ["contains", "minContains", "maxContains"],
  ["if", "then", "else"],
];

/**
 * primary with the keywords of other that neither it has nor interact with its own: a schema that
 * accepts at least every value primary ∧ other accepts.
 */
function combine(primary: Schema, other: Schema): Schema {
  const out: Schema = { ...primary };
  for (const [k, v] of Object.entries(other)) {
    if (k in out || k === "allOf" || k === "$ref") continue;
    const group = GROUPS.find((g) => g.includes(k));
    if (group && group.some((g) => g in primary)) continue;
    out[k] = v;
  }
  return out;
}

function hasMarker(s: unknown): boolean {
  return canonical(s).includes('"$ref":');
}

/** The JSON types a node may hold (integer counted as number). */
function typesOf(s: Schema): string[] {
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map((v) => (typeof v === "number" ? "number" : jsonType(v))))];
  const types = typeSet(s.type);
  if (!types) return ALL_TYPES;
  return [...new Set(types.map((t) => (t === "integer" ? "number" : t)))];
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** sub limited to one JSON type (integer stays integer). */
function restrictType(s: Schema, type: string): Schema {
  const types = typeSet(s.type);
  if (type === "number" && types && types.includes("integer") && !types.includes("number"))
    return { ...s, type: "integer" };
  return { ...s, type };
}

/** The values of a schema that can only hold a few: an enum, boolean, null. */
function finiteValues(s: Schema): unknown[] | null {
  if (Array.isArray(s.enum)) return s.enum;
  const types = typeSet(s.type);
  if (!types || types.length === 0) return null;
  if (types.every((t) => t === "boolean" || t === "null"))
    return [...(types.includes("boolean") ? [true, false] : []), ...(types.includes("null") ? [null] : [])];
  return null;
}

/**
 * The schema a property name gets: its own together with the patternProperties it matches (both
 * apply to a declared name), else the patterns it matches, else additionalProperties.
 */
function effective(s: Schema, name: string): unknown {
  const props = isPlainObject(s.properties) ? s.properties : {};
  if (Object.prototype.hasOwnProperty.call(props, name)) return declaredSchema(s, name);
  const matching = matchingPatterns(s, name);
  if (matching === "invalid") return { not: {} };
  if (matching.length === 1) return matching[0];
  if (matching.length > 1) return { allOf: matching };
  return "additionalProperties" in s ? s.additionalProperties : true;
}

function closedObject(s: Schema): boolean {
  return !("patternProperties" in s) && (s.additionalProperties === false || isNothing(s.additionalProperties));
}

/** Whether sub's bound on one side is at least as tight as sup's. */
function boundInside(sub: Schema, sup: Schema, side: "lower" | "upper"): boolean {
  const p = boundOf(sup, side);
  if (p === null) return true;
  const b = boundOf(sub, side);
  if (b === null) return false;
  if (b.value !== p.value) return side === "lower" ? b.value > p.value : b.value < p.value;
  return b.exclusive || !p.exclusive;
}

/** No value passes two of the alternatives: different JSON types, or a required property with different consts. */
export function pairwiseDisjoint(list: readonly unknown[]): boolean {
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) if (!disjointAlternatives(list[i], list[j])) return false;
  return true;
}

function disjointAlternatives(x: unknown, y: unknown): boolean {
  if (!isPlainObject(x) || !isPlainObject(y)) return false;
  const xt = typeSet(x.type);
  const yt = typeSet(y.type);
  if (xt && yt && !xt.some((t) => yt.some((u) => coversType([u], t) || coversType([t], u)))) return true;
  const xp = isPlainObject(x.properties) ? x.properties : {};
  const yp = isPlainObject(y.properties) ? y.properties : {};
  for (const name of strings(x.required).filter((n) => strings(y.required).includes(n))) {
    const a = valuesOf(xp[name]);
    const b = valuesOf(yp[name]);
    if (a && b && !a.some((v) => b.some((w) => canonical(v) === canonical(w)))) return true;
  }
  return false;
}

function valuesOf(s: unknown): unknown[] | null {
  if (!isPlainObject(s)) return null;
  if ("const" in s) return [s.const];
  return Array.isArray(s.enum) ? s.enum : null;
}
