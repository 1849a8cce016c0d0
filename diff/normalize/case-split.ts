/**
 * Case splits for the inclusion proof (subset.ts): a schema cut into parts that together accept
 * exactly what it accepts, so that "sub inside a union" can be proven part by part when no single
 * alternative holds all of sub (issue 45): a number range cut at the alternatives' bounds (a range
 * split into adjacent ranges), a closed object cut by which of the alternatives' required fields
 * are present (a minProperties spelled as an anyOf of required sets), and a conditional on a
 * required discriminator cut into its branches (an if/then/else chain spelled as an anyOf).
 * Parts that accept nothing are left out.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { isAnnotation, isNothing, strings, typeSet, type Schema } from "./schema-facts";

export type Bound = { value: number; exclusive: boolean } | null;

/** The tighter of a node's inclusive and exclusive bound on one side. */
export function boundOf(s: Schema, side: "lower" | "upper"): Bound {
  const [inc, exc] = side === "lower" ? [s.minimum, s.exclusiveMinimum] : [s.maximum, s.exclusiveMaximum];
  const list: Array<{ value: number; exclusive: boolean }> = [];
  if (typeof inc === "number") list.push({ value: inc, exclusive: false });
  if (typeof exc === "number") list.push({ value: exc, exclusive: true });
  if (list.length === 0) return null;
  return list.reduce((x, y) => (tighter(y, x, side) ? y : x));
}

function tighter(x: NonNullable<Bound>, than: NonNullable<Bound>, side: "lower" | "upper"): boolean {
  if (x.value === than.value) return x.exclusive && !than.exclusive;
  return side === "lower" ? x.value > than.value : x.value < than.value;
}

/** s with a bound on one side, where it is tighter than its own. */
function withBound(s: Schema, side: "lower" | "upper", bound: Bound): Schema {
  const own = boundOf(s, side);
  if (bound === null || (own !== null && !tighter(bound, own, side))) return s;
  const [inc, exc] = side === "lower" ? ["minimum", "exclusiveMinimum"] : ["maximum", "exclusiveMaximum"];
  const out: Schema = { ...s };
  delete out[inc];
  delete out[exc];
  out[bound.exclusive ? exc : inc] = bound.value;
  return out;
}

function emptyRange(s: Schema): boolean {
  const lo = boundOf(s, "lower");
  const hi = boundOf(s, "upper");
  if (lo === null || hi === null) return false;
  return lo.value > hi.value || (lo.value === hi.value && (lo.exclusive || hi.exclusive));
}

const MAX_CUTS = 16;

/**
 * A numeric sub cut at every bound of the (normalized) alternatives: each part lies on one side of
 * every bound, so an alternative holds it whole or not at all. Null when sub is not only numbers.
 */
export function rangePieces(sub: Schema, alts: readonly Schema[], normalize: (s: Schema) => Schema): Schema[] | null {
  const types = typeSet(sub.type);
  if (!types || types.length === 0 || !types.every((t) => t === "integer" || t === "number")) return null;
  // a cut "below v" parts x < v from x >= v; "above v" parts x <= v from x > v
  const cuts: Array<{ value: number; above: boolean }> = [];
  for (const alt of alts) {
    const lo = boundOf(alt, "lower");
    const hi = boundOf(alt, "upper");
    if (lo) cuts.push({ value: lo.value, above: lo.exclusive });
    if (hi) cuts.push({ value: hi.value, above: !hi.exclusive });
  }
  const sorted = [...new Map(cuts.map((c) => [`${c.value}/${c.above}`, c])).values()].sort(
    (x, y) => x.value - y.value || Number(x.above) - Number(y.above),
  );
  if (sorted.length === 0 || sorted.length > MAX_CUTS) return null;
  const out: Schema[] = [];
  let lower: Bound = null;
  for (let i = 0; i <= sorted.length; i++) {
    const cut = sorted[i];
    const upper: Bound = cut ? { value: cut.value, exclusive: !cut.above } : null;
    const piece = normalize(withBound(withBound(sub, "lower", lower), "upper", upper));
    if (!emptyRange(piece) && !isNothing(piece)) out.push(piece);
    if (cut) lower = { value: cut.value, exclusive: cut.above };
  }
  return out;
}

const MAX_KEYS = 4;

/**
 * A closed object cut by which of the alternatives' required fields it holds: in each part every
 * such field is required or refused, so an alternative requiring fields holds a part whole or not
 * at all. Null when sub is not a closed object or the alternatives name no declared field.
 */
export function presencePieces(sub: Schema, alts: readonly Schema[]): Schema[] | null {
  const props = isPlainObject(sub.properties) ? sub.properties : {};
  const closed =
    !("patternProperties" in sub) && (sub.additionalProperties === false || isNothing(sub.additionalProperties));
  if (!closed || typeSet(sub.type)?.join() !== "object") return null;
  const required = strings(sub.required);
  const keys = [...new Set(alts.flatMap((a) => strings(a.required)))].filter(
    (k) => Object.prototype.hasOwnProperty.call(props, k) && !required.includes(k),
  );
  if (keys.length === 0 || keys.length > MAX_KEYS) return null;
  const out: Schema[] = [];
  for (let mask = 0; mask < 1 << keys.length; mask++) {
    const present = keys.filter((_, i) => mask & (1 << i));
    const properties: Schema = { ...props };
    for (const k of keys) if (!present.includes(k)) properties[k] = false;
    const alive = Object.keys(properties).filter((k) => !isNothing(properties[k]));
    const need = [...required, ...present];
    if (need.some((k) => !alive.includes(k))) continue;
    if (typeof sub.minProperties === "number" && alive.length < sub.minProperties) continue;
    if (typeof sub.maxProperties === "number" && need.length > sub.maxProperties) continue;
    out.push({ ...sub, properties, required: need });
  }
  return out;
}

/** The values a condition admits for property k: `{properties: {k: {enum | const}}}`, or null. */
function conditionValues(cond: unknown): { key: string; values: unknown[] } | null {
  if (!isPlainObject(cond)) return null;
  const keys = Object.keys(cond).filter((k) => !isAnnotation(k));
  if (keys.length !== 1 || keys[0] !== "properties" || !isPlainObject(cond.properties)) return null;
  const entries = Object.entries(cond.properties);
  if (entries.length !== 1 || !isPlainObject(entries[0]![1])) return null;
  const [key, p] = entries[0] as [string, Schema];
  const own = Object.keys(p).filter((k) => !isAnnotation(k));
  if (own.length === 1 && own[0] === "const") return { key, values: [p.const] };
  if (own.length === 1 && own[0] === "enum" && Array.isArray(p.enum)) return { key, values: p.enum };
  return null;
}

/**
 * `if k ∈ S then A else B` on a node that requires k with the finite values D: the part where k is
 * in S∩D with A, and the part where k is in D∖S with B (the else gets what the if refused, which
 * dropping the if loses). Null when the node is not of that shape.
 */
export function discriminatorPieces(sub: Schema): Schema[] | null {
  const cond = conditionValues(sub.if);
  if (!cond) return null;
  const props = isPlainObject(sub.properties) ? sub.properties : {};
  const own = props[cond.key];
  if (!strings(sub.required).includes(cond.key) || !isPlainObject(own) || !Array.isArray(own.enum)) return null;
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const inS = own.enum.filter((v) => cond.values.some((w) => same(v, w)));
  const notS = own.enum.filter((v) => !cond.values.some((w) => same(v, w)));
  const rest: Schema = { ...sub };
  delete rest.if;
  delete rest.then;
  delete rest.else;
  const part = (values: unknown[], branch: unknown): Schema | null => {
    if (values.length === 0) return null;
    const node: Schema = { ...rest, properties: { ...props, [cond.key]: { ...own, enum: values } } };
    if (branch === undefined) return node;
    return { ...node, allOf: [...(Array.isArray(node.allOf) ? node.allOf : []), branch] };
  };
  return [part(inS, sub.then), part(notS, sub.else)].filter((p): p is Schema => p !== null);
}
