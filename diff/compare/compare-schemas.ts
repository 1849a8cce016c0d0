/**
 * Compares two inlined schemas keyword by keyword and says, for each difference, whether it makes
 * the schema stricter or looser. The direction turns that into a rule: stricter breaks callers of
 * a request, looser breaks readers of a response. A keyword without a rule here is reported as
 * unknown-keyword, never skipped.
 */
import { joinPointer } from "../../common/json-pointer";
import { isPlainObject } from "../../codegen/support/schema-walk";
import type { RuleId } from "../rules";
import type { Direction } from "../types";
import { omitKeys, originOf, type Origin } from "../normalize/inline";
import { matchVariants } from "./match-variants";
import { canonical, sameJson, show } from "../normalize/json";
import { directedRule, judgeKeyword, type DirectedKind } from "../judge/keyword-rules";
import { isVendorKeyword } from "../../codegen/vendor-keywords";
import { enumKeyword, normalize, refInAllOf } from "../normalize/normalize";
import { accepts } from "../normalize/accepts";
import { comparePatterns } from "../normalize/regex";
import { declaredSchema, matchingPatterns, onlyNames } from "../normalize/object-keys";
import { pairwiseDisjoint, proveEquivalent, proveSubset, type ProofSides } from "../normalize/subset";
import {
  asSchema,
  coversType,
  isAnnotation,
  isEverything,
  isMarker,
  isNothing,
  strings,
  typeSet,
} from "../normalize/schema-facts";

export interface SchemaFinding {
  rule: RuleId;
  /** The direction-free kind the rule was made from (absent for description and annotation findings). */
  kind?: DirectedKind;
  /** Judged from an x-mnote-* fact (what code reads), not from the values a validator accepts: never disproven. */
  fact?: boolean;
  pointer: string;
  origin: Origin | undefined;
  message: string;
  before?: unknown;
  after?: unknown;
}

/** Turn a marker ({$ref}) of each side back into its schema, and say what kind of marker it is. */
export interface Expanders {
  before(marker: Record<string, unknown>): Record<string, unknown>;
  after(marker: Record<string, unknown>): Record<string, unknown>;
  /** Compared on its own (a catalog, Audit, a tool's Args): equal names are equal here. Default: true. */
  isOpaque?(ref: string): boolean;
  /**
   * A recursive definition written the same on both sides, with every recursive definition it
   * reaches: equal names are then equal. Default: true.
   */
  isStable?(ref: string): boolean;
}

type Schema = Record<string, unknown>;

const VARIANT_KEYS = ["anyOf", "oneOf"] as const;
/** Handled by their own comparison before the keyword loop. */
const STRUCTURAL = new Set([
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "items",
  "prefixItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedItems",
  "unevaluatedProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);
const MAX_DEPTH = 64;

/** Named limits and cuts: the keyword that holds their number is judged with the fact, not on its own. */
const LIMIT_KEYWORDS = ["maxItems", "maxLength", "maximum", "maxProperties"];

/**
 * Value-set findings a proof of inclusion shows to be false alarms. In a request, a narrowing is
 * harmless when every value the base accepted is still accepted; in a response, a widening when
 * every value the head may send was allowed before. Findings on conventions (a field removed
 * from a response, an option unwired, a default, a deeper recursion) are never dropped.
 */
const DISPROVABLE: Record<Direction, ReadonlySet<DirectedKind>> = {
  request: new Set([
    "type-narrowed",
    "enum-narrowed",
    "constraint-tightened",
    "constraint-changed",
    "additional-properties-closed",
    "variant-removed",
    "required-added",
    "property-removed",
    "unproven",
  ]),
  response: new Set([
    "type-widened",
    "enum-widened",
    "constraint-loosened",
    "constraint-changed",
    "additional-properties-opened",
    "variant-added",
    "required-removed",
    "unproven",
  ]),
};
/** The value-set findings of the other side, dropped too when the two schemas are proven equivalent. */
const HARMLESS: Record<Direction, ReadonlySet<DirectedKind>> = {
  request: new Set([
    "type-widened",
    "enum-widened",
    "constraint-loosened",
    "additional-properties-opened",
    "variant-added",
    "required-removed",
  ]),
  response: new Set([
    "type-narrowed",
    "enum-narrowed",
    "constraint-tightened",
    "additional-properties-closed",
    "variant-removed",
    "required-added",
  ]),
};

/** Where the comparer is: facts about the node that its parent knows. */
interface NodeContext {
  /** A property required on either side (a default never applies to it). */
  requiredProperty?: boolean;
}

/** Inside `not`, what makes the inner schema looser makes the outer one stricter. */
const NEGATED: Partial<Record<DirectedKind, DirectedKind>> = {
  "type-narrowed": "type-widened",
  "type-widened": "type-narrowed",
  "enum-narrowed": "enum-widened",
  "enum-widened": "enum-narrowed",
  "constraint-tightened": "constraint-loosened",
  "constraint-loosened": "constraint-tightened",
  "constraint-changed": "constraint-changed",
  "additional-properties-closed": "constraint-loosened",
  "additional-properties-opened": "constraint-tightened",
  "variant-added": "constraint-tightened",
  "variant-removed": "constraint-loosened",
  "required-added": "constraint-loosened",
  "required-removed": "constraint-tightened",
  "default-changed": "default-changed",
  unproven: "unproven",
};

export function compareSchemas(
  before: unknown,
  after: unknown,
  direction: Direction,
  expand: Expanders,
  pointer = "",
): SchemaFinding[] {
  const comparer = new SchemaComparer(direction, expand, false, new Set());
  comparer.compare(before, after, pointer, 0);
  return comparer.findings;
}

class SchemaComparer {
  findings: SchemaFinding[] = [];

  constructor(
    private readonly direction: Direction,
    private readonly expand: Expanders,
    /** true inside an odd number of `not`s. */
    private readonly negated: boolean,
    /** Pairs of $refs being compared (recursive definitions): met again, they are assumed equal. */
    private readonly inProgress: Set<string>,
  ) {}

  compare(before: unknown, after: unknown, pointer: string, depth: number, ctx: NodeContext = {}): void {
    // a $ref alone in an allOf is that $ref (a recursive use compared as one)
    const b = refInAllOf(asSchema(before));
    const a = refInAllOf(asSchema(after));
    if (sameJson(b, a) && this.sameMeaning(b)) return;
    if (depth > MAX_DEPTH) {
      this.directed(
        "unproven",
        pointer,
        where(b, a),
        "nested too deep to compare: could not prove the two schemas accept the same values",
      );
      return;
    }
    const start = this.findings.length;
    if (isMarker(b) || isMarker(a)) this.compareMarkers(b, a, pointer, depth, ctx);
    else this.compareNodes(b, a, pointer, depth, ctx);
    if (this.findings.length > start && !this.negated && this.worthProving(b, a, pointer, start))
      this.dropDisproven(start, b, a, pointer);
  }

  /**
   * Where a proof over the whole node can clear findings a keyword-by-keyword walk cannot: a node
   * with a union, a conjunction, a condition or a negation (the walk pairs their parts), and the
   * node a finding was made on. An ancestor without those would only repeat the same proof over
   * a larger tree.
   */
  private worthProving(b: Schema, a: Schema, pointer: string, start: number): boolean {
    const combines = (s: Schema) =>
      "anyOf" in s || "oneOf" in s || "allOf" in s || "if" in s || "not" in s || isMarker(s);
    if (combines(b) || combines(a)) return true;
    const depth = pointer.split("/").length;
    for (let i = start; i < this.findings.length; i++) {
      const f = this.findings[i]!;
      if ((f.pointer === pointer || f.pointer.startsWith(pointer + "/")) && f.pointer.split("/").length <= depth + 2)
        return true;
    }
    return false;
  }

  /**
   * A $ref the inliner kept: a definition compared on its own (same name: only the siblings
   * differ), or a recursive one, compared by structure: both definitions are unfolded, and the pair
   * met again while its comparison is under way is assumed equal (any difference is reported by the
   * comparison already under way). Equal names are equal only when both sides define them alike.
   */
  private compareMarkers(b: Schema, a: Schema, pointer: string, depth: number, ctx: NodeContext): void {
    const opaque = (s: Schema) => isMarker(s) && (this.expand.isOpaque?.(s.$ref) ?? true);
    if (isMarker(b) && isMarker(a) && b.$ref === a.$ref && (opaque(b) || (this.expand.isStable?.(b.$ref) ?? true))) {
      this.compareNodes(omitKeys(b, ["$ref"]), omitKeys(a, ["$ref"]), pointer, depth, ctx);
      return;
    }
    // A leaf (finite in depth) that became a use of a recursive definition: readers meet values
    // nested deeper than the base allowed, of a kind they already handle one level up.
    if (isMarker(a) && !opaque(a) && !isMarker(b) && !this.hasRecursiveMarker(b))
      this.directed(
        "nesting-deepened",
        pointer,
        originOf(a, "$ref") ?? where(b, a),
        `now nests ${a.$ref.slice(a.$ref.indexOf("#") + 1)} again: values may be nested without a bound`,
        undefined,
        a.$ref,
      );
    if (isMarker(b) && !opaque(b) && !isMarker(a) && !this.hasRecursiveMarker(a))
      this.directed(
        "nesting-reduced",
        pointer,
        where(b, a),
        `no longer nests ${b.$ref.slice(b.$ref.indexOf("#") + 1)}: values deeper than this are refused`,
        b.$ref,
        undefined,
      );
    const key = `${this.negated}|${identity(b)}|${identity(a)}`;
    if (this.inProgress.has(key)) return;
    this.inProgress.add(key);
    try {
      this.compare(
        isMarker(b) ? this.expand.before(b) : b,
        isMarker(a) ? this.expand.after(a) : a,
        pointer,
        depth + 1,
        ctx,
      );
    } finally {
      this.inProgress.delete(key);
    }
  }

  /** Equal JSON is equal meaning unless it holds a recursive marker whose definitions differ between the sides. */
  private sameMeaning(s: Schema): boolean {
    const text = canonical(s);
    if (!text.includes('"$ref":')) return true;
    for (const m of text.matchAll(/"\$ref":"((?:[^"\\]|\\.)*)"/g)) {
      const ref = JSON.parse(`"${m[1]}"`) as string;
      if (!(this.expand.isOpaque?.(ref) ?? true) && !(this.expand.isStable?.(ref) ?? true)) return false;
    }
    return true;
  }

  private hasRecursiveMarker(s: Schema): boolean {
    const text = canonical(s);
    if (!text.includes('"$ref":')) return false;
    for (const m of text.matchAll(/"\$ref":"((?:[^"\\]|\\.)*)"/g))
      if (!(this.expand.isOpaque?.(JSON.parse(`"${m[1]}"`) as string) ?? true)) return true;
    return false;
  }

  private compareNodes(before: Schema, after: Schema, pointer: string, depth: number, ctx: NodeContext): void {
    let b = normalize(before);
    let a = normalize(after);
    if (sameJson(b, a) && this.sameMeaning(b)) return;
    // normalized into a $ref (one alone in a nested allOf): compared as the $ref
    if (isMarker(b) || isMarker(a)) return this.compareMarkers(b, a, pointer, depth, ctx);
    if (this.compareNothing(b, a, pointer)) return;
    const skip = factKeywords(b, a);
    if (this.compareValueSets(b, a, pointer)) {
      this.compareLeafKeywords(b, a, pointer, (key) => isAnnotation(key) && !skip.has(key), ctx);
      return;
    }
    [b, a] = this.compareVariantKeywords(b, a, pointer, depth);
    this.compareType(b, a, pointer);
    this.compareNumericBounds(b, a, pointer, skip);
    this.compareProperties(b, a, pointer, depth);
    this.compareAdditionalProperties(b, a, pointer, depth, "additionalProperties");
    this.compareAdditionalProperties(b, a, pointer, depth, "unevaluatedProperties");
    this.compareSchemaMap(b, a, pointer, depth, "patternProperties");
    this.compareSchemaMap(b, a, pointer, depth, "dependentSchemas");
    this.compareDependentRequired(b, a, pointer);
    this.compareItems(b, a, pointer, depth);
    for (const key of ["contains", "propertyNames", "unevaluatedItems"] as const)
      this.compareOptionalSubschema(b, a, pointer, depth, key);
    this.compareNot(b, a, pointer, depth);
    this.compareConditional(b, a, pointer, depth);
    this.compareList(
      b.allOf,
      a.allOf,
      joinPointer(pointer, "allOf"),
      depth,
      "constraint-tightened",
      "constraint-loosened",
      b,
      a,
    );
    this.compareLeafKeywords(b, a, pointer, (key) => !STRUCTURAL.has(key) && !skip.has(key), ctx);
  }

  /**
   * The findings of one node's comparison, checked against a proof over the whole node: a
   * narrowing of a request is dropped when every value the base accepted is still accepted, a
   * widening of a response when every value the head may send was accepted before (subset.ts).
   * When the two schemas accept the same values, the findings of the other side go too.
   */
  private dropDisproven(start: number, before: Schema, after: Schema, pointer: string): void {
    const hurting = DISPROVABLE[this.direction];
    const harmless = HARMLESS[this.direction];
    const mine = this.findings.slice(start);
    const judged = (f: SchemaFinding, kinds: ReadonlySet<DirectedKind>) =>
      !f.fact && f.kind !== undefined && kinds.has(f.kind);
    const anyHurting = mine.some((f) => judged(f, hurting));
    if (!anyHurting && !mine.some((f) => judged(f, harmless))) return;
    const [older, newer] = [this.sides(true), this.sides(false)];
    const narrowerIsAfter = this.direction === "response";
    // request: before ⊆ after; response: after ⊆ before.
    const holds = narrowerIsAfter ? proveSubset(after, before, newer) : proveSubset(before, after, older);
    if (!holds) return;
    const reverse = narrowerIsAfter ? proveSubset(before, after, older) : proveSubset(after, before, newer);
    if (!anyHurting && !reverse) return;
    // Two alternatives paired across a union (a leaf with the recursive node that covers it) may
    // differ by a field although the unions accept the same values: that field is no news either.
    const paired = (f: SchemaFinding) =>
      f.kind === "property-added" && [`${pointer}/anyOf/`, `${pointer}/oneOf/`].some((p) => f.pointer.startsWith(p));
    const drop = (f: SchemaFinding) => judged(f, hurting) || (reverse && (judged(f, harmless) || paired(f)));
    this.findings.splice(start, mine.length, ...mine.filter((f) => !drop(f)));
  }

  /** Proof sides: from the base into the head (fromBase), or the other way round. */
  private sides(fromBase: boolean): ProofSides {
    const e = this.expand;
    return {
      normalize,
      sameSide: false,
      expandSub: fromBase ? (m) => e.before(m) : (m) => e.after(m),
      expandSup: fromBase ? (m) => e.after(m) : (m) => e.before(m),
      isOpaque: (ref) => e.isOpaque?.(ref) ?? true,
    };
  }

  private compareLeafKeywords(
    b: Schema,
    a: Schema,
    pointer: string,
    include: (key: string) => boolean,
    ctx: NodeContext,
  ): void {
    for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
      if (include(key) && !sameJson(b[key], a[key])) this.compareKeyword(key, b, a, pointer, ctx);
    }
  }

  /** false (nothing is valid) on either side: the whole subschema was forbidden or allowed. */
  private compareNothing(b: Schema, a: Schema, pointer: string): boolean {
    const bn = isNothing(b);
    const an = isNothing(a);
    if (!bn && !an) return false;
    if (bn && an) return true;
    if (an)
      this.directed(
        "type-narrowed",
        pointer,
        where(b, a),
        "now false: no value is accepted here any more (a field set to false can no longer be sent)",
        undefined,
        false,
      );
    else
      this.directed(
        "type-widened",
        pointer,
        where(b, a),
        "no longer false: values are accepted here",
        false,
        undefined,
      );
    return true;
  }

  /**
   * enum/const on either side: the schemas are compared as sets of values. A finite side is
   * checked value by value against the other (accepts.ts); what cannot be proven counts as a
   * difference on the side that could hurt. Returns false when neither side is a finite set.
   */
  private compareValueSets(b: Schema, a: Schema, pointer: string): boolean {
    let bv = Array.isArray(b.enum) ? b.enum : null;
    let av = Array.isArray(a.enum) ? a.enum : null;
    if (!bv && !av) return false;
    // A small finite type (boolean, null, a short integer range) on the other side is a list of values too.
    if (!bv) bv = finiteValues(b);
    if (!av) av = finiteValues(a);
    const place = (key: string) => where(b, a, key) ?? where(b, a, "const");
    const inA = (v: unknown) => accepts(a, v, (m) => this.expand.after(m));
    const inB = (v: unknown) => accepts(b, v, (m) => this.expand.before(m));
    const atKey = joinPointer(pointer, Array.isArray(a.enum) ? enumKeyword(a) : enumKeyword(b));
    if (bv && av) {
      const removed = bv.filter((v) => inB(v) === true && inA(v) !== true);
      const added = av.filter((v) => inA(v) === true && inB(v) !== true);
      if (removed.length > 0)
        this.directed(
          "enum-narrowed",
          atKey,
          place("enum"),
          `value(s) removed: ${removed.map((v) => show(v)).join(", ")}`,
          b.enum,
          a.enum,
        );
      if (added.length > 0)
        this.directed(
          "enum-widened",
          atKey,
          place("enum"),
          `value(s) added: ${added.map((v) => show(v)).join(", ")}`,
          b.enum,
          a.enum,
        );
      return true;
    }
    if (bv) {
      // A finite set became a schema: every old value must still pass, and more values now do.
      const lost = bv.filter((v) => inB(v) === true && inA(v) !== true);
      if (lost.length > 0)
        this.directed(
          "enum-narrowed",
          joinPointer(pointer, enumKeyword(b)),
          place("enum"),
          `value(s) no longer accepted: ${lost.map((v) => show(v)).join(", ")}`,
          b.enum,
          undefined,
        );
      this.directed(
        "enum-widened",
        joinPointer(pointer, enumKeyword(b)),
        place("enum"),
        `no longer limited to ${show(bv)}`,
        b.enum,
        undefined,
      );
      return true;
    }
    const gone = av!.filter((v) => inA(v) === true && inB(v) !== true);
    if (gone.length > 0)
      this.directed(
        "enum-widened",
        atKey,
        place("enum"),
        `value(s) not accepted before: ${gone.map((v) => show(v)).join(", ")}`,
        undefined,
        a.enum,
      );
    this.directed("enum-narrowed", atKey, place("enum"), `now limited to ${show(av)}`, undefined, a.enum);
    return true;
  }

  /**
   * anyOf/oneOf: a plain schema on one side is treated as a one-alternative list, so making a field
   * nullable is one added alternative. Keywords the list side also has at its top stay at the top.
   */
  private compareVariantKeywords(b: Schema, a: Schema, pointer: string, depth: number): [Schema, Schema] {
    const bKey = VARIANT_KEYS.find((k) => Array.isArray(b[k]));
    const aKey = VARIANT_KEYS.find((k) => Array.isArray(a[k]));
    if (!bKey && !aKey) return [b, a];
    const key = (aKey ?? bKey)!;
    // oneOf refuses a value two of its alternatives accept; anyOf (and a plain schema) does not.
    // Pairwise disjoint alternatives make them the same.
    const overlaps = (s: Schema, k: string | undefined) => k === "oneOf" && !pairwiseDisjoint(s[k] as unknown[]);
    const [bOverlap, aOverlap] = [overlaps(b, bKey), overlaps(a, aKey)];
    if (aOverlap && !bOverlap)
      this.directed(
        "constraint-tightened",
        joinPointer(pointer, "oneOf"),
        originOf(a, "oneOf"),
        `${bKey ?? "a single schema"} became a oneOf whose alternatives may overlap: a value two of them accept is refused`,
      );
    else if (bOverlap && !aOverlap)
      this.directed(
        "constraint-loosened",
        joinPointer(pointer, aKey ?? "oneOf"),
        originOf(a, aKey ?? "oneOf") ?? originOf(b, "oneOf"),
        `a oneOf whose alternatives may overlap became ${aKey ?? "a single schema"}: a value two of them accept is no longer refused`,
      );
    else if (bOverlap && aOverlap && !sameJson(b.oneOf, a.oneOf))
      this.directed(
        "unproven",
        joinPointer(pointer, "oneOf"),
        originOf(a, "oneOf"),
        "the alternatives of a oneOf that may overlap changed: could not prove which values still match exactly one",
      );
    if (bKey && aKey) {
      this.compareList(b[bKey], a[aKey], joinPointer(pointer, key), depth, "variant-added", "variant-removed", b, a);
      return [b, a];
    }
    const plainIsBefore = !bKey;
    const plain = plainIsBefore ? b : a;
    const listSide = plainIsBefore ? a : b;
    const hoisted = Object.keys(plain).filter(
      (k) => k in listSide && !VARIANT_KEYS.includes(k as (typeof VARIANT_KEYS)[number]),
    );
    const top = omitKeys(
      plain,
      Object.keys(plain).filter((k) => !hoisted.includes(k)),
    );
    const core = omitKeys(plain, hoisted);
    const fill = {
      plainIsBefore,
      keys: hoisted.filter((k) => isAnnotation(k) && k !== "default" && !k.startsWith("x-mnote-")),
    };
    const list = listSide[key];
    if (plainIsBefore)
      this.compareList([core], list, joinPointer(pointer, key), depth, "variant-added", "variant-removed", b, a, fill);
    else
      this.compareList(list, [core], joinPointer(pointer, key), depth, "variant-added", "variant-removed", b, a, fill);
    return plainIsBefore ? [top, a] : [b, top];
  }

  /**
   * fill: annotations the plain side carried outside its one alternative (hoisted above); the
   * alternative it pairs with may repeat them inside, which is not a change.
   */
  private compareList(
    before: unknown,
    after: unknown,
    pointer: string,
    depth: number,
    added: DirectedKind,
    removed: DirectedKind,
    b: Schema,
    a: Schema,
    fill?: { plainIsBefore: boolean; keys: string[] },
  ): void {
    const bList = Array.isArray(before) ? before : [];
    const aList = Array.isArray(after) ? after : [];
    if (bList.length === 0 && aList.length === 0) return;
    const match = matchVariants(bList, aList);
    for (const [i, j] of match.pairs) {
      let [x, y] = [bList[i], aList[j]];
      if (fill && isPlainObject(x) && isPlainObject(y)) {
        const [plain, other] = fill.plainIsBefore ? [x, y] : [y, x];
        const patched = omitKeys(plain, []);
        for (const k of fill.keys) if (!(k in plain) && k in other) patched[k] = other[k];
        if (fill.plainIsBefore) x = patched;
        else y = patched;
      }
      this.compare(x, y, joinPointer(pointer, j), depth + 1);
    }
    for (const i of match.removed) {
      this.directed(
        removed,
        joinPointer(pointer, i),
        originOf(bList[i]) ?? originOf(b),
        `alternative removed: ${show(bList[i])}`,
        bList[i],
        undefined,
      );
    }
    for (const j of match.added) {
      this.directed(
        added,
        joinPointer(pointer, j),
        originOf(aList[j]) ?? originOf(a),
        `alternative added: ${show(aList[j])}`,
        undefined,
        aList[j],
      );
    }
  }

  private compareType(b: Schema, a: Schema, pointer: string): void {
    const bt = typeSet(b.type);
    const at = typeSet(a.type);
    if (canonical(bt?.slice().sort()) === canonical(at?.slice().sort())) return;
    const at_ = joinPointer(pointer, "type");
    const origin = where(b, a, "type");
    const removed = bt === null ? ["(any)"] : at === null ? [] : bt.filter((t) => !coversType(at, t));
    const added = at === null ? ["(any)"] : bt === null ? [] : at.filter((t) => !coversType(bt, t));
    const message = `type ${show(b.type)} -> ${show(a.type)}`;
    if (removed.length > 0 && added.length > 0) {
      // One pointer, one verdict: the side that hurts this direction.
      const kind = this.direction === "request" ? "type-narrowed" : "type-widened";
      this.directed(
        kind,
        at_,
        origin,
        `${message}: no longer accepts ${removed.join(", ")}, now also ${added.join(", ")}`,
        b.type,
        a.type,
      );
      return;
    }
    if (removed.length > 0)
      this.directed(
        "type-narrowed",
        at_,
        origin,
        `${message}: no longer accepts ${removed.join(", ")}`,
        b.type,
        a.type,
      );
    if (added.length > 0)
      this.directed("type-widened", at_, origin, `${message}: now also ${added.join(", ")}`, b.type, a.type);
  }

  /** minimum/exclusiveMinimum (and the maxima) as one bound each, so a rewrite between them is judged by the values it admits. */
  private compareNumericBounds(b: Schema, a: Schema, pointer: string, skip: ReadonlySet<string>): void {
    for (const side of ["lower", "upper"] as const) {
      const keys =
        side === "lower" ? (["minimum", "exclusiveMinimum"] as const) : (["maximum", "exclusiveMaximum"] as const);
      if (keys.every((k) => sameJson(b[k], a[k])) || keys.some((k) => skip.has(k))) continue;
      const bb = bound(b, side);
      const ab = bound(a, side);
      const key = keys.find((k) => k in a) ?? keys.find((k) => k in b)!;
      const at = joinPointer(pointer, key);
      const origin = where(b, a, key);
      const text = `${describeBound(bb)} -> ${describeBound(ab)}`;
      if (bb === "invalid" || ab === "invalid") {
        this.directed("unproven", at, origin, `${text}: not a number, could not prove`);
        continue;
      }
      const order = compareBound(bb, ab, side);
      if (order === 0) continue;
      this.directed(order > 0 ? "constraint-tightened" : "constraint-loosened", at, origin, text, bb?.value, ab?.value);
    }
  }

  /**
   * The schema a property name gets on each side: its own, else the patternProperties it matches,
   * else additionalProperties. So removing a declared field from an open object is a widening
   * (callers may still send it), and declaring one on an open object is a narrowing.
   */
  private compareProperties(b: Schema, a: Schema, pointer: string, depth: number): void {
    const bp = isPlainObject(b.properties) ? b.properties : {};
    const ap = isPlainObject(a.properties) ? a.properties : {};
    const bReq = new Set(strings(b.required));
    const aReq = new Set(strings(a.required));
    const has = (map: Schema, name: string) => Object.prototype.hasOwnProperty.call(map, name);
    for (const name of [...new Set([...Object.keys(bp), ...Object.keys(ap)])].sort()) {
      const at = joinPointer(pointer, "properties", name);
      if (!has(ap, name)) {
        const rest = effectiveSchema(a, name);
        const origin = originOf(bp[name]) ?? originOf(b, "properties");
        // an optional response field: readers handle it absent; only the types lose it
        if (isNothing(asSchema(rest)) && this.direction === "response" && !bReq.has(name) && !this.negated)
          this.emit(
            "optional-response-field-removed",
            at,
            origin,
            `optional field "${name}" removed (breaks code compiled against the types that reads it, not callers on the wire)`,
            bp[name],
          );
        else if (isNothing(asSchema(rest)))
          this.directed("property-removed", at, origin, `field "${name}" removed`, bp[name], undefined);
        else if (isEverything(rest))
          this.directed(
            "property-unlisted",
            at,
            origin,
            `field "${name}" no longer declared; the object still allows it with any value`,
            bp[name],
            undefined,
          );
        else this.compare(declaredSchema(b, name), rest, at, depth + 1);
      } else if (!has(bp, name)) {
        const rest = effectiveSchema(b, name);
        const required = aReq.has(name);
        const origin = originOf(ap[name]) ?? originOf(a, "properties");
        if (isNothing(asSchema(rest))) {
          const kind = required && this.direction === "request" ? "required-added" : "property-added";
          this.directed(
            kind,
            at,
            origin,
            `new ${required ? "required" : "optional"} field "${name}"`,
            undefined,
            ap[name],
          );
        } else this.compare(rest, declaredSchema(a, name), at, depth + 1);
      } else {
        // the patterns matching a declared name apply to it too: compared with it when they differ
        const patterned = canonical(matchingPatterns(b, name)) !== canonical(matchingPatterns(a, name));
        const [bs, as] = patterned ? [declaredSchema(b, name), declaredSchema(a, name)] : [bp[name], ap[name]];
        this.compare(bs, as, at, depth + 1, { requiredProperty: bReq.has(name) || aReq.has(name) });
      }
    }
    for (const name of [...new Set([...bReq, ...aReq])].sort()) {
      if (bReq.has(name) === aReq.has(name)) continue;
      const at = joinPointer(pointer, "properties", name);
      // A field that came or went with its requiredness was reported above.
      if (bReq.has(name) && !(has(bp, name) && !has(ap, name) && isNothing(asSchema(effectiveSchema(a, name))))) {
        this.directed("required-removed", at, where(b, a, "required"), `"${name}" is no longer required`, true, false);
      }
      if (aReq.has(name) && !(has(ap, name) && !has(bp, name) && isNothing(asSchema(effectiveSchema(b, name))))) {
        this.directed("required-added", at, where(b, a, "required"), `"${name}" is now required`, false, true);
      }
    }
  }

  private compareAdditionalProperties(
    b: Schema,
    a: Schema,
    pointer: string,
    depth: number,
    key: "additionalProperties" | "unevaluatedProperties",
  ): void {
    const bv = b[key];
    const av = a[key];
    if (sameJson(bv, av)) return;
    const at = joinPointer(pointer, key);
    const origin = where(b, a, key);
    const closed = (v: unknown) => v === false || (isPlainObject(v) && isNothing(v));
    if (closed(av) && !closed(bv) && isEverything(bv))
      this.directed(
        "additional-properties-closed",
        at,
        origin,
        `${key} turned off: keys not listed in properties are refused`,
        bv,
        av,
      );
    else if (closed(bv) && !closed(av) && isEverything(av))
      this.directed(
        "additional-properties-opened",
        at,
        origin,
        `${key} turned on: keys not listed in properties are allowed`,
        bv,
        av,
      );
    else this.compare(bv, av, at, depth + 1);
  }

  /** patternProperties and dependentSchemas: a new entry constrains more, a removed one less. */
  private compareSchemaMap(
    b: Schema,
    a: Schema,
    pointer: string,
    depth: number,
    key: "patternProperties" | "dependentSchemas",
  ): void {
    const bm = isPlainObject(b[key]) ? (b[key] as Schema) : {};
    let am = isPlainObject(a[key]) ? (a[key] as Schema) : {};
    if (sameJson(bm, am)) return;
    if (key === "patternProperties") am = renameEquivalentPatterns(bm, am);
    const declared = [...new Set([...Object.keys(asSchema(b.properties)), ...Object.keys(asSchema(a.properties))])];
    for (const name of [...new Set([...Object.keys(bm), ...Object.keys(am)])].sort()) {
      const at = joinPointer(pointer, key, name);
      // an entry matching only declared names was judged with them (compareProperties)
      if (key === "patternProperties" && onlyNames(name, declared)) continue;
      if (name in bm && name in am) this.compare(bm[name], am[name], at, depth + 1);
      else if (key === "patternProperties") {
        // Keys a pattern no longer (or newly) covers fall to additionalProperties on the other side.
        if (name in am)
          this.compare("additionalProperties" in b ? b.additionalProperties : true, am[name], at, depth + 1);
        else this.compare(bm[name], "additionalProperties" in a ? a.additionalProperties : true, at, depth + 1);
      } else if (name in am) {
        if (!isEverything(am[name]))
          this.directed(
            "constraint-tightened",
            at,
            originOf(am[name]) ?? where(b, a, key),
            `new ${key} entry ${show(name)}`,
            undefined,
            am[name],
          );
      } else if (!isEverything(bm[name]))
        this.directed(
          "constraint-loosened",
          at,
          originOf(bm[name]) ?? where(b, a, key),
          `${key} entry ${show(name)} removed`,
          bm[name],
          undefined,
        );
    }
  }

  private compareDependentRequired(b: Schema, a: Schema, pointer: string): void {
    const bm = isPlainObject(b.dependentRequired) ? b.dependentRequired : {};
    const am = isPlainObject(a.dependentRequired) ? a.dependentRequired : {};
    if (sameJson(bm, am)) return;
    for (const name of [...new Set([...Object.keys(bm), ...Object.keys(am)])].sort()) {
      const before = strings(bm[name]);
      const after = strings(am[name]);
      const at = joinPointer(pointer, "dependentRequired", name);
      const origin = where(b, a, "dependentRequired");
      const added = after.filter((n) => !before.includes(n));
      const removed = before.filter((n) => !after.includes(n));
      if (added.length > 0 && removed.length > 0) {
        this.directed(
          "constraint-changed",
          at,
          origin,
          `with "${name}", now requires ${show(after)} instead of ${show(before)}`,
          before,
          after,
        );
      } else if (added.length > 0)
        this.directed(
          "constraint-tightened",
          at,
          origin,
          `with "${name}", now also requires ${show(added)}`,
          before,
          after,
        );
      else if (removed.length > 0)
        this.directed(
          "constraint-loosened",
          at,
          origin,
          `with "${name}", no longer requires ${show(removed)}`,
          before,
          after,
        );
    }
  }

  /** items and prefixItems: each position's schema on both sides (a missing one is items, then true). */
  private compareItems(b: Schema, a: Schema, pointer: string, depth: number): void {
    if (sameJson(b.items, a.items) && sameJson(b.prefixItems, a.prefixItems)) return;
    const bp = Array.isArray(b.prefixItems) ? b.prefixItems : [];
    const ap = Array.isArray(a.prefixItems) ? a.prefixItems : [];
    for (let i = 0; i < Math.max(bp.length, ap.length); i++) {
      const x = i < bp.length ? bp[i] : b.items;
      const y = i < ap.length ? ap[i] : a.items;
      this.compare(x, y, joinPointer(pointer, "prefixItems", i), depth + 1);
    }
    if ("items" in b || "items" in a) this.compare(b.items, a.items, joinPointer(pointer, "items"), depth + 1);
  }

  /** contains, propertyNames, unevaluatedItems: absent is true (anything), so one comparison covers adding and removing. */
  private compareOptionalSubschema(
    b: Schema,
    a: Schema,
    pointer: string,
    depth: number,
    key: "contains" | "propertyNames" | "unevaluatedItems",
  ): void {
    if (sameJson(b[key], a[key])) return;
    const at = joinPointer(pointer, key);
    // contains: {} still demands one item; absent demands none.
    if (key === "contains" && "contains" in b !== "contains" in a) {
      const kind = "contains" in a ? "constraint-tightened" : "constraint-loosened";
      this.directed(
        kind,
        at,
        where(b, a, key),
        `contains ${show(b.contains)} -> ${show(a.contains)}`,
        b.contains,
        a.contains,
      );
      return;
    }
    this.compare(b[key], a[key], at, depth + 1);
  }

  /** not: the inner schemas are compared with every verdict turned round. */
  private compareNot(b: Schema, a: Schema, pointer: string, depth: number): void {
    if (sameJson(b.not, a.not)) return;
    const at = joinPointer(pointer, "not");
    if (!("not" in b) || !("not" in a)) {
      const kind = "not" in a ? "constraint-tightened" : "constraint-loosened";
      this.directed(kind, at, where(b, a, "not"), `not ${show(b.not)} -> ${show(a.not)}`, b.not, a.not);
      return;
    }
    const inner = new SchemaComparer(this.direction, this.expand, !this.negated, this.inProgress);
    inner.compare(b.not, a.not, at, depth + 1);
    this.findings.push(...inner.findings);
  }

  /**
   * if/then/else: with the same `if`, then and else are compared like any subschema (a stricter
   * then is stricter for the values it applies to). A changed `if` moves values between the
   * branches: not provable here.
   */
  private compareConditional(b: Schema, a: Schema, pointer: string, depth: number): void {
    if (["if", "then", "else"].every((k) => sameJson(b[k], a[k]))) return;
    const hasIf = (s: Schema) => "if" in s && ("then" in s || "else" in s);
    // The same condition written another way (a const for a one-value enum, …) is the same condition.
    const sameIf = () =>
      (sameJson(b.if, a.if) && this.sameMeaning(asSchema(b.if))) ||
      proveEquivalent(b.if, a.if, this.sides(true), this.sides(false));
    if (hasIf(b) && hasIf(a) && sameIf()) {
      for (const key of ["then", "else"] as const) this.compare(b[key], a[key], joinPointer(pointer, key), depth + 1);
      return;
    }
    if (!hasIf(b) && !hasIf(a)) return;
    const at = joinPointer(pointer, "if");
    const origin = where(b, a, "if") ?? where(b, a, "then");
    if (!hasIf(b))
      this.directed("constraint-tightened", at, origin, "a new if/then/else condition", undefined, {
        if: a.if,
        then: a.then,
        else: a.else,
      });
    else if (!hasIf(a))
      this.directed(
        "constraint-loosened",
        at,
        origin,
        "if/then/else condition removed",
        { if: b.if, then: b.then, else: b.else },
        undefined,
      );
    else
      this.directed(
        "unproven",
        at,
        origin,
        `if ${show(b.if)} -> ${show(a.if)}: could not prove which values change branch`,
        b.if,
        a.if,
      );
  }

  private compareKeyword(key: string, b: Schema, a: Schema, pointer: string, ctx: NodeContext): void {
    const [bv, av] = [b[key], a[key]];
    const judgement = judgeKeyword(key, bv, av, {
      direction: this.direction,
      before: b,
      after: a,
      requiredProperty: ctx.requiredProperty ?? false,
    });
    if (!judgement) return;
    const at = joinPointer(pointer, key);
    const origin = where(b, a, key);
    if ("kind" in judgement) {
      const note = judgement.kind === "unproven" ? ": could not prove the values accepted are the same" : "";
      const before = this.findings.length;
      this.directed(judgement.kind, at, origin, `${key} ${show(bv)} -> ${show(av)}${note}`, bv, av);
      if (isVendorKeyword(key)) for (const f of this.findings.slice(before)) f.fact = true;
      return;
    }
    const message =
      judgement.rule === "description-changed" ? "description changed" : `${key} ${show(bv)} -> ${show(av)}`;
    this.emit(judgement.rule, at, origin, judgement.note ? `${message}: ${judgement.note}` : message, bv, av);
  }

  private directed(
    kind: DirectedKind,
    pointer: string,
    origin: Origin | undefined,
    message: string,
    before?: unknown,
    after?: unknown,
  ): void {
    let k = kind;
    if (this.negated) {
      k = NEGATED[kind] ?? "unproven";
      message = `inside not: ${message}`;
    }
    this.emit(directedRule(this.direction, k), pointer, origin, message, before, after, k);
  }

  private emit(
    rule: RuleId,
    pointer: string,
    origin: Origin | undefined,
    message: string,
    before?: unknown,
    after?: unknown,
    kind?: DirectedKind,
  ): void {
    const finding: SchemaFinding = { rule, pointer, origin, message };
    if (kind !== undefined) finding.kind = kind;
    if (before !== undefined) finding.before = before;
    if (after !== undefined) finding.after = after;
    this.findings.push(finding);
  }
}

type Bound = { value: number; exclusive: boolean } | null | "invalid";

function bound(s: Schema, side: "lower" | "upper"): Bound {
  const [inc, exc] = side === "lower" ? [s.minimum, s.exclusiveMinimum] : [s.maximum, s.exclusiveMaximum];
  if ((inc !== undefined && typeof inc !== "number") || (exc !== undefined && typeof exc !== "number"))
    return "invalid";
  const list: Array<{ value: number; exclusive: boolean }> = [];
  if (typeof inc === "number") list.push({ value: inc, exclusive: false });
  if (typeof exc === "number") list.push({ value: exc, exclusive: true });
  if (list.length === 0) return null;
  return list.reduce((x, y) => (compareBound(x, y, side) > 0 ? y : x));
}

/** > 0: y admits fewer values than x; < 0: more; 0: the same. */
function compareBound(x: Bound, y: Bound, side: "lower" | "upper"): number {
  if (x === "invalid" || y === "invalid") return 0;
  if (x === null && y === null) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  if (x.value !== y.value) return side === "lower" ? Math.sign(y.value - x.value) : Math.sign(x.value - y.value);
  return x.exclusive === y.exclusive ? 0 : y.exclusive ? 1 : -1;
}

function describeBound(x: Bound): string {
  if (x === null) return "(none)";
  if (x === "invalid") return "(not a number)";
  return `${x.exclusive ? "exclusive " : ""}${x.value}`;
}

/** The schema a property name gets when it is not listed in properties. */
function effectiveSchema(s: Schema, name: string): unknown {
  const patterns = isPlainObject(s.patternProperties) ? s.patternProperties : {};
  const matching: unknown[] = [];
  for (const [pattern, sub] of Object.entries(patterns)) {
    try {
      if (new RegExp(pattern, "u").test(name)) matching.push(sub);
    } catch {
      return { not: {} };
    }
  }
  if (matching.length === 1) return matching[0];
  if (matching.length > 1) return { allOf: matching };
  if ("additionalProperties" in s) return s.additionalProperties;
  if ("unevaluatedProperties" in s) return s.unevaluatedProperties;
  return true;
}

/** The values of a schema that can only hold a few (boolean, null, an integer range of up to 256), else null. */
function finiteValues(s: Schema): unknown[] | null {
  const keys = Object.keys(s).filter((k) => !isAnnotation(k));
  const types = typeSet(s.type);
  if (!types || types.length !== 1) return null;
  if (types[0] === "boolean" && keys.length === 1) return [true, false];
  if (types[0] === "null" && keys.length === 1) return [null];
  if (types[0] === "integer" && keys.every((k) => ["type", "minimum", "maximum", "multipleOf"].includes(k))) {
    const min = s.minimum;
    const max = s.maximum;
    if (typeof min !== "number" || typeof max !== "number" || max - min > 256) return null;
    const out: number[] = [];
    for (let v = Math.ceil(min); v <= max; v++)
      if (typeof s.multipleOf !== "number" || Number.isInteger(v / s.multipleOf)) out.push(v);
    return out;
  }
  return null;
}

/** Where a keyword is written: the head's copy when it has one, else the base's. */
function where(b: Schema, a: Schema, key?: string): Origin | undefined {
  if (key === undefined) return originOf(a) ?? originOf(b);
  return (key in a ? originOf(a, key) : undefined) ?? originOf(b, key) ?? originOf(a, key);
}

/** What identifies a node in the pairs being compared: a marker by its name, an inline node by itself. */
const ids = new WeakMap<object, number>();
let nextId = 0;
function identity(node: Schema): string {
  if (isMarker(node)) return `ref:${node.$ref}`;
  let id = ids.get(node);
  if (id === undefined) ids.set(node, (id = nextId++));
  return `#${id}`;
}

/**
 * Keywords whose change the fact they carry judges: the number of a named limit (compared with
 * the contract's facts) and the maxLength of a cut string (judged with its x-mnote-truncate), when
 * both sides carry the same fact.
 */
function factKeywords(b: Schema, a: Schema): Set<string> {
  const out = new Set<string>();
  if (typeof b["x-mnote-limit"] === "string" && b["x-mnote-limit"] === a["x-mnote-limit"]) {
    const key = LIMIT_KEYWORDS.find((k) => typeof b[k] === "number");
    if (key !== undefined && key === LIMIT_KEYWORDS.find((k) => typeof a[k] === "number")) out.add(key);
  }
  if (isPlainObject(b["x-mnote-truncate"]) && isPlainObject(a["x-mnote-truncate"])) out.add("maxLength");
  return out;
}

/**
 * The head's patternProperties with each key whose pattern accepts the same names as a base key
 * renamed to that key, so `^x-` and `^(?:x-)` are one entry, not one removed and one added.
 */
function renameEquivalentPatterns(before: Schema, after: Schema): Schema {
  const out: Schema = {};
  const taken = new Set(Object.keys(after));
  for (const [pattern, schema] of Object.entries(after)) {
    if (pattern in before) {
      out[pattern] = schema;
      continue;
    }
    const same = Object.keys(before).find((p) => !taken.has(p) && comparePatterns(p, pattern) === "equal");
    if (same !== undefined) taken.add(same);
    out[same ?? pattern] = schema;
  }
  return out;
}
