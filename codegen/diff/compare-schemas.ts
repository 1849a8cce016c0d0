/**
 * Compares two inlined schemas keyword by keyword and says, for each difference, whether it makes
 * the schema stricter or looser. The direction turns that into a rule: stricter breaks callers of
 * a request, looser breaks readers of a response. A keyword without a rule here is reported as
 * unknown-keyword, never skipped.
 */
import { joinPointer } from "../../common/json-pointer";
import { isPlainObject } from "../support/schema-walk";
import type { RuleId } from "./rules";
import type { Direction } from "./types";
import { omitKeys, originOf, type Origin } from "./inline";
import { matchVariants } from "./match-variants";
import { canonical, sameJson, show } from "./json";
import { ANNOTATIONS, directedRule, judgeKeyword, type DirectedKind } from "./keyword-rules";

export interface SchemaFinding {
  rule: RuleId;
  pointer: string;
  origin: Origin | undefined;
  message: string;
  before?: unknown;
  after?: unknown;
}

/** Turn a catalog marker ({$ref}) of each side back into its schema. */
export interface Expanders {
  before(marker: Record<string, unknown>): Record<string, unknown>;
  after(marker: Record<string, unknown>): Record<string, unknown>;
}

type Schema = Record<string, unknown>;

const VARIANT_KEYS = ["anyOf", "oneOf"] as const;
/** Handled by their own comparison before the keyword loop. */
const STRUCTURAL = new Set(["type", "enum", "const", "properties", "required", "additionalProperties", "items", "allOf", "anyOf", "oneOf"]);
const MAX_DEPTH = 64;

export function compareSchemas(before: unknown, after: unknown, direction: Direction, expand: Expanders, pointer = ""): SchemaFinding[] {
  const comparer = new SchemaComparer(direction, expand);
  comparer.compare(before, after, pointer, 0);
  return comparer.findings;
}

class SchemaComparer {
  readonly findings: SchemaFinding[] = [];

  constructor(
    private readonly direction: Direction,
    private readonly expand: Expanders,
  ) {}

  compare(before: unknown, after: unknown, pointer: string, depth: number): void {
    let b = asSchema(before);
    let a = asSchema(after);
    if (sameJson(b, a)) return;
    if (depth > MAX_DEPTH) {
      this.emit("unknown-keyword", pointer, where(b, a), "nested too deep to compare: review by hand");
      return;
    }
    if (typeof b.$ref === "string" || typeof a.$ref === "string") {
      if (b.$ref !== a.$ref) {
        // A catalog reference on one side only, or to another catalog: compare what they stand for.
        this.compare(typeof b.$ref === "string" ? this.expand.before(b) : b, typeof a.$ref === "string" ? this.expand.after(a) : a, pointer, depth + 1);
        return;
      }
      b = omitKeys(b, ["$ref"]);
      a = omitKeys(a, ["$ref"]);
    }
    [b, a] = this.compareVariantKeywords(b, a, pointer, depth);
    this.compareType(b, a, pointer);
    this.compareValues(b, a, pointer);
    this.compareProperties(b, a, pointer, depth);
    this.compareAdditionalProperties(b, a, pointer, depth);
    if ("items" in b || "items" in a) this.compare(b.items, a.items, joinPointer(pointer, "items"), depth + 1);
    this.compareList(b.allOf, a.allOf, joinPointer(pointer, "allOf"), depth, "constraint-tightened", "constraint-loosened", b, a);
    for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) {
      if (!STRUCTURAL.has(key) && !sameJson(b[key], a[key])) this.compareKeyword(key, b, a, pointer);
    }
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
    if (bKey && aKey && bKey !== aKey) this.emit("unknown-keyword", joinPointer(pointer, aKey), originOf(a, aKey), `${bKey} became ${aKey}: review by hand`);
    if (bKey && aKey) {
      this.compareList(b[bKey], a[aKey], joinPointer(pointer, key), depth, "variant-added", "variant-removed", b, a);
      return [b, a];
    }
    const plainIsBefore = !bKey;
    const plain = plainIsBefore ? b : a;
    const listSide = plainIsBefore ? a : b;
    const hoisted = Object.keys(plain).filter((k) => k in listSide && !VARIANT_KEYS.includes(k as (typeof VARIANT_KEYS)[number]));
    const top = omitKeys(
      plain,
      Object.keys(plain).filter((k) => !hoisted.includes(k)),
    );
    const core = omitKeys(plain, hoisted);
    const fill = { plainIsBefore, keys: hoisted.filter((k) => k === "description" || ANNOTATIONS.has(k)) };
    const list = listSide[key];
    if (plainIsBefore) this.compareList([core], list, joinPointer(pointer, key), depth, "variant-added", "variant-removed", b, a, fill);
    else this.compareList(list, [core], joinPointer(pointer, key), depth, "variant-added", "variant-removed", b, a, fill);
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
      this.directed(removed, joinPointer(pointer, i), originOf(bList[i]) ?? originOf(b), `alternative removed: ${show(bList[i])}`, bList[i], undefined);
    }
    for (const j of match.added) {
      this.directed(added, joinPointer(pointer, j), originOf(aList[j]) ?? originOf(a), `alternative added: ${show(aList[j])}`, undefined, aList[j]);
    }
  }

  private compareType(b: Schema, a: Schema, pointer: string): void {
    // With an enum or const on either side the allowed values say it all (compareValues), and a
    // type added next to an enum of strings narrows nothing.
    if (allowedValues(b) || allowedValues(a)) return;
    const bt = typeSet(b.type);
    const at = typeSet(a.type);
    if (canonical(bt?.slice().sort()) === canonical(at?.slice().sort())) return;
    const at_ = joinPointer(pointer, "type");
    const origin = where(b, a, "type");
    const removed = bt === null ? ["(any)"] : at === null ? [] : bt.filter((t) => !coversType(at, t));
    const added = at === null ? ["(any)"] : bt === null ? [] : at.filter((t) => !coversType(bt, t));
    if (removed.length > 0) this.directed("type-narrowed", at_, origin, `type ${show(b.type)} -> ${show(a.type)}: no longer accepts ${removed.join(", ")}`, b.type, a.type);
    if (added.length > 0) this.directed("type-widened", at_, origin, `type ${show(b.type)} -> ${show(a.type)}: now also ${added.join(", ")}`, b.type, a.type);
  }

  /** enum and const as one set of allowed values (no set: any value). */
  private compareValues(b: Schema, a: Schema, pointer: string): void {
    const bv = allowedValues(b);
    const av = allowedValues(a);
    if (!bv && !av) return;
    const key = (av ?? bv)!.key;
    const at = joinPointer(pointer, key);
    const origin = where(b, a, key);
    if (!bv) return this.directed("enum-narrowed", at, origin, `now limited to ${show(av!.values)}`, undefined, a[key]);
    if (!av) return this.directed("enum-widened", at, origin, `no longer limited to ${show(bv.values)}`, b[bv.key], undefined);
    const removed = bv.values.filter((v) => !av.values.some((w) => sameJson(v, w)));
    const added = av.values.filter((v) => !bv.values.some((w) => sameJson(v, w)));
    if (removed.length > 0) this.directed("enum-narrowed", at, origin, `value(s) removed: ${removed.map((v) => show(v)).join(", ")}`, b[bv.key], a[av.key]);
    if (added.length > 0) this.directed("enum-widened", at, origin, `value(s) added: ${added.map((v) => show(v)).join(", ")}`, b[bv.key], a[av.key]);
  }

  private compareProperties(b: Schema, a: Schema, pointer: string, depth: number): void {
    const bp = isPlainObject(b.properties) ? b.properties : {};
    const ap = isPlainObject(a.properties) ? a.properties : {};
    const bReq = new Set(strings(b.required));
    const aReq = new Set(strings(a.required));
    const has = (map: Schema, name: string) => Object.prototype.hasOwnProperty.call(map, name);
    for (const name of [...new Set([...Object.keys(bp), ...Object.keys(ap)])].sort()) {
      const at = joinPointer(pointer, "properties", name);
      if (!has(ap, name)) this.directed("property-removed", at, originOf(bp[name]) ?? originOf(b, "properties"), `field "${name}" removed`, bp[name], undefined);
      else if (!has(bp, name)) {
        const required = aReq.has(name);
        const kind = required && this.direction === "request" ? "required-added" : "property-added";
        this.directed(kind, at, originOf(ap[name]) ?? originOf(a, "properties"), `new ${required ? "required" : "optional"} field "${name}"`, undefined, ap[name]);
      } else this.compare(bp[name], ap[name], at, depth + 1);
    }
    for (const name of [...new Set([...bReq, ...aReq])].sort()) {
      if (bReq.has(name) === aReq.has(name)) continue;
      const at = joinPointer(pointer, "properties", name);
      // A field that came or went with its requiredness was reported above.
      if (bReq.has(name) && !(has(bp, name) && !has(ap, name))) {
        this.directed("required-removed", at, where(b, a, "required"), `"${name}" is no longer required`, true, false);
      }
      if (aReq.has(name) && !(has(ap, name) && !has(bp, name))) {
        this.directed("required-added", at, where(b, a, "required"), `"${name}" is now required`, false, true);
      }
    }
  }

  private compareAdditionalProperties(b: Schema, a: Schema, pointer: string, depth: number): void {
    const bv = b.additionalProperties;
    const av = a.additionalProperties;
    if (sameJson(bv, av)) return;
    const at = joinPointer(pointer, "additionalProperties");
    const origin = where(b, a, "additionalProperties");
    if (av === false) this.directed("additional-properties-closed", at, origin, "additionalProperties turned off: keys not listed in properties are refused", bv, av);
    else if (bv === false) this.directed("additional-properties-opened", at, origin, "additionalProperties turned on: keys not listed in properties are allowed", bv, av);
    else this.compare(bv, av, at, depth + 1);
  }

  private compareKeyword(key: string, b: Schema, a: Schema, pointer: string): void {
    const [bv, av] = [b[key], a[key]];
    const judgement = judgeKeyword(key, bv, av, this.direction);
    if (!judgement) return;
    const at = joinPointer(pointer, key);
    const origin = where(b, a, key);
    if ("kind" in judgement) return this.directed(judgement.kind, at, origin, `${key} ${show(bv)} -> ${show(av)}`, bv, av);
    const message = judgement.rule === "description-changed" ? "description changed" : `${key} ${show(bv)} -> ${show(av)}`;
    this.emit(judgement.rule, at, origin, judgement.note ? `${message}: ${judgement.note}` : message, bv, av);
  }

  private directed(kind: DirectedKind, pointer: string, origin: Origin | undefined, message: string, before?: unknown, after?: unknown): void {
    this.emit(directedRule(this.direction, kind), pointer, origin, message, before, after);
  }

  private emit(rule: RuleId, pointer: string, origin: Origin | undefined, message: string, before?: unknown, after?: unknown): void {
    const finding: SchemaFinding = { rule, pointer, origin, message };
    if (before !== undefined) finding.before = before;
    if (after !== undefined) finding.after = after;
    this.findings.push(finding);
  }
}

function asSchema(value: unknown): Schema {
  if (isPlainObject(value)) return value;
  // true (and a missing subschema) allows anything; false allows nothing.
  return value === false ? { not: {} } : {};
}

/** Where a keyword is written: the head's copy when it has one, else the base's. */
function where(b: Schema, a: Schema, key?: string): Origin | undefined {
  if (key === undefined) return originOf(a) ?? originOf(b);
  return (key in a ? originOf(a, key) : undefined) ?? originOf(b, key) ?? originOf(a, key);
}

function typeSet(type: unknown): string[] | null {
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : null;
}

function coversType(types: readonly string[], type: string): boolean {
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/** enum/const values that also pass the schema's type: the others can never be valid. */
function allowedValues(s: Schema): { key: "const" | "enum"; values: unknown[] } | null {
  const found = "const" in s ? { key: "const" as const, values: [s.const] } : Array.isArray(s.enum) ? { key: "enum" as const, values: s.enum } : null;
  const types = typeSet(s.type);
  if (!found || types === null) return found;
  return { key: found.key, values: found.values.filter((v) => coversType(types, jsonType(v))) };
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
