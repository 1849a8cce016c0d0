/**
 * The values a top-level args field can hold, as far as an approval condition can tell them apart:
 * a condition compares a field with one JSON scalar, so what matters is which scalars the field's
 * schema admits (its enum, const or type) and whether it may be left out (not required). Read from
 * the inlined Args of a tool; anything the reader does not follow (allOf, a marker) admits every
 * value of its type, which can only add cells, never hide one.
 */
import { isPlainObject } from "../../codegen/support/schema-walk";
import { accepts } from "./accepts";

export type JsonType = "string" | "integer" | "number" | "boolean" | "null" | "object" | "array";
const ALL_TYPES: readonly JsonType[] = ["string", "integer", "number", "boolean", "null", "object", "array"];

export interface FieldDomain {
  /** The values the field may hold: a finite list (enum, const, boolean, null) or every value of these types. */
  values: { finite: readonly unknown[] } | { types: readonly JsonType[] };
  /** Whether a call may leave the field out (then it counts as its default). */
  absent: boolean;
  /**
   * The field's schemas (one per side): a value one of them surely refuses (below a minimum,
   * against a pattern) is no value of the field. A value the evaluator cannot decide counts as held.
   */
  schemas?: readonly unknown[];
}

/** What a condition's value (a JSON scalar) is, as a JSON Schema type. */
export function typeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

function admits(types: readonly JsonType[], value: unknown): boolean {
  const t = typeOf(value);
  return types.includes(t) || (t === "integer" && types.includes("number"));
}

function typesOf(schema: Record<string, unknown>): JsonType[] {
  const t = schema.type;
  if (typeof t === "string") return ALL_TYPES.includes(t as JsonType) ? [t as JsonType] : [];
  if (Array.isArray(t)) return ALL_TYPES.filter((x) => t.includes(x));
  return [...ALL_TYPES];
}

/** The domain of one field of an inlined Args schema. */
export function fieldDomain(args: unknown, field: string): FieldDomain {
  if (!isPlainObject(args)) return { values: { types: ALL_TYPES }, absent: true };
  const required = Array.isArray(args.required) && args.required.includes(field);
  const properties = isPlainObject(args.properties) ? args.properties : {};
  const own = Object.prototype.hasOwnProperty.call(properties, field) ? properties[field] : undefined;
  const schema = own ?? args.additionalProperties ?? true;
  if (schema === false) return { values: { finite: [] }, absent: !required };
  if (!isPlainObject(schema)) return { values: { types: ALL_TYPES }, absent: !required };
  const types = typesOf(schema);
  let finite: unknown[] | undefined;
  if (Array.isArray(schema.enum)) finite = schema.enum;
  if (Object.prototype.hasOwnProperty.call(schema, "const")) finite = [schema.const];
  if (!finite && types.every((t) => t === "boolean" || t === "null"))
    finite = [...(types.includes("boolean") ? [true, false] : []), ...(types.includes("null") ? [null] : [])];
  return {
    values: finite ? { finite: finite.filter((v) => admits(types, v)) } : { types },
    absent: !required,
    schemas: [schema],
  };
}

/** What a field may hold on both sides: only a call valid before and after has a level to compare. */
export function intersect(a: FieldDomain, b: FieldDomain): FieldDomain {
  const schemas = [...(a.schemas ?? []), ...(b.schemas ?? [])];
  return { ...intersectValues(a, b), schemas };
}

function intersectValues(a: FieldDomain, b: FieldDomain): FieldDomain {
  const absent = a.absent && b.absent;
  const av = a.values;
  const bv = b.values;
  if ("finite" in av && "finite" in bv)
    return { values: { finite: av.finite.filter((v) => bv.finite.some((w) => sameScalar(v, w))) }, absent };
  if ("finite" in av) return { values: { finite: av.finite.filter((v) => holds(b, v)) }, absent };
  if ("finite" in bv) return { values: { finite: bv.finite.filter((v) => holds(a, v)) }, absent };
  const has = (types: readonly JsonType[], t: JsonType) =>
    types.includes(t) || (t === "integer" && types.includes("number"));
  return { values: { types: ALL_TYPES.filter((t) => has(av.types, t) && has(bv.types, t)) }, absent };
}

export function sameScalar(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "object" && a !== null && JSON.stringify(a) === JSON.stringify(b));
}

function sample(t: JsonType): unknown {
  return { string: "", integer: 0, number: 0.5, boolean: true, null: null, object: {}, array: [] }[t];
}

/** Whether the domain admits this value. */
export function holds(domain: FieldDomain, value: unknown): boolean {
  const v = domain.values;
  const listed = "finite" in v ? v.finite.some((w) => sameScalar(w, value)) : admits(v.types, value);
  return listed && (domain.schemas ?? []).every((s) => accepts(s, value, () => undefined) !== false);
}

/** How many unnamed candidates "any other value" tries before it gives up (a pattern may refuse them). */
const OTHER_TRIES = 64;

/**
 * A value of the domain that none of `named` equals, or undefined when every value is named: the
 * one representative of "any other value" (they all give the same level, no condition names them).
 */
export function otherValue(domain: FieldDomain, named: readonly unknown[]): unknown {
  const v = domain.values;
  const unnamed = (x: unknown) => !named.some((n) => sameScalar(n, x)) && holds(domain, x);
  if ("finite" in v) return v.finite.find(unnamed);
  for (const t of v.types) {
    if (t === "string" || t === "integer" || t === "number") {
      for (let i = 0; i < OTHER_TRIES; i++) {
        const text = i === 0 ? "" : i % 2 === 1 ? "x".repeat((i + 1) / 2) : `x${i}`;
        const x = t === "string" ? text : t === "number" ? i + 0.5 : i;
        if (unnamed(x)) return x;
      }
      // none of the tries passes the field's schema: assume some other value exists (a cell more, never one less)
      return t === "string" ? `x${OTHER_TRIES}` : OTHER_TRIES;
    }
    const x = sample(t);
    if (t === "boolean") {
      if (unnamed(true)) return true;
      if (unnamed(false)) return false;
    } else if (unnamed(x)) return x;
  }
  return undefined;
}
