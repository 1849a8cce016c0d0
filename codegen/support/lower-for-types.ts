/**
 * Rewrites a bundle of schemas so that json-schema-to-typescript states every rule TypeScript can
 * state. That generator reads properties, required, enum, const, anyOf/oneOf/allOf and boolean
 * schemas, but ignores if/then/else, not, dependentRequired, minProperties and `required` names
 * that have no sibling `properties` entry. Left alone, those rules would exist in the validators
 * and not in the types, and a compiler would pass values the runtime refuses.
 *
 * Each rewrite replaces a rule with an equivalent union or intersection (never a narrower one):
 * - `required` names without a `properties` entry get an `unknown` entry, so an intersection with
 *   the object that declares them makes them required (the per-effect rule: write tools require
 *   idempotencyKey and dryRun);
 * - `if`/`then`/`else` whose `if` tests one property (const or enum, with or without `required`,
 *   or its presence alone) becomes a union of the cases: the values (or the presence) that match,
 *   with `then`, and the rest of the property's finite domain (or its absence), with `else`;
 *   a list of such rules in `allOf` becomes their intersection (discriminated blocks);
 * - `not: {required: [k]}` and a `false` property become `k?: never`;
 * - `dependentRequired` becomes "absent, or present with its companions";
 * - `minProperties: 1` on an object with known properties becomes "at least one of them";
 * - a schema of annotations only (`{description}`: any value) becomes `unknown` (the generator
 *   would read it as an open object, narrower than what the validator accepts).
 * A conditional this cannot rewrite exactly is widened, never dropped into a narrower type:
 * `if/then/else` becomes `then | else`, and `if/then` without `else` says nothing. The rules
 * TypeScript cannot say at all (lengths, patterns, formats, ranges, item counts, uniqueness) are
 * listed in docs/TYPES.md.
 */
import type { JsonSchema } from "../model";
import { isPlainObject, mapSchema } from "./schema-walk";

type Defs = Record<string, JsonSchema>;

/** The bundle with every definition rewritten; $refs are "#/$defs/<Name>" inside the bundle. */
export function lowerForTypes(input: Defs): Defs {
  const defs = closeNarrowedOpenObjects(input);
  const out: Defs = {};
  for (const [name, schema] of Object.entries(defs)) {
    // A node that is nothing but a conditional waits for its parent, which knows the property's
    // domain (allOf [{if, then, else}, ...]); a definition that is one is lowered on its own.
    const lowered = mapSchema(schema, (node) =>
      isAnnotationOnly(node) ? { ...node, tsType: "unknown" } : isPureConditional(node) ? node : lowerNode(node, defs),
    ) as JsonSchema;
    out[name] = isPureConditional(lowered) ? lowerNode(lowered, defs) : lowered;
  }
  return out;
}

const ANNOTATION_KEYS = [
  "description",
  "$comment",
  "title",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
];

/** A schema that constrains nothing but says something: any value is valid. */
function isAnnotationOnly(node: Record<string, unknown>): boolean {
  const keys = Object.keys(node);
  return keys.length > 0 && keys.every((k) => ANNOTATION_KEYS.includes(k));
}

const CONDITIONAL_KEYS = ["if", "then", "else", "description", "$comment", "title"];

function isPureConditional(node: Record<string, unknown>): boolean {
  return node.if !== undefined && Object.keys(node).every((k) => CONDITIONAL_KEYS.includes(k));
}

/**
 * An open object property ({type: "object"}, any members) that another definition narrows through
 * allOf [{$ref}, {properties: {p: …}}] (the envelope's args, narrowed to each tool's Args) becomes
 * TypeScript's `object`: as an index signature it would admit any member in the intersection, so
 * a misspelt argument would compile; as `object` the narrowed type is closed and still assignable
 * to the open one.
 */
function closeNarrowedOpenObjects(defs: Defs): Defs {
  const narrowed = new Map<string, Set<string>>();
  const note = (node: Record<string, unknown>): Record<string, unknown> => {
    if (!Array.isArray(node.allOf)) return node;
    const refs = node.allOf
      .filter((e) => isPlainObject(e) && typeof e.$ref === "string" && e.$ref.startsWith("#/$defs/"))
      .map((e) => ((e as JsonSchema).$ref as string).slice(8));
    for (const e of node.allOf) {
      if (!isPlainObject(e) || !isPlainObject(e.properties)) continue;
      for (const r of refs)
        for (const p of Object.keys(e.properties)) (narrowed.get(r) ?? narrowed.set(r, new Set()).get(r)!).add(p);
    }
    return node;
  };
  for (const schema of Object.values(defs)) mapSchema(schema, note);
  const out: Defs = { ...defs };
  for (const [name, props] of narrowed) {
    const def = out[name];
    if (!def || !isPlainObject(def.properties)) continue;
    const properties = { ...def.properties };
    for (const p of props) {
      const sub = properties[p];
      if (isPlainObject(sub) && isOpenObject(sub))
        properties[p] = {
          ...(typeof sub.description === "string" ? { description: sub.description } : {}),
          tsType: "object",
        };
    }
    out[name] = { ...def, properties };
  }
  return out;
}

function isOpenObject(s: Record<string, unknown>): boolean {
  const constraining = Object.keys(s).filter(
    (k) => !["description", "$comment", "type", "additionalProperties", "default", "examples"].includes(k),
  );
  return (
    s.type === "object" &&
    constraining.length === 0 &&
    (s.additionalProperties === undefined || s.additionalProperties === true)
  );
}

const NEVER: JsonSchema = { tsType: "never" };
const ANY: JsonSchema = {};

function lowerNode(input: JsonSchema, defs: Defs): JsonSchema {
  const node: JsonSchema = { ...input };
  const parts: JsonSchema[] = [];
  const properties = (): Record<string, unknown> =>
    (node.properties = { ...(isPlainObject(node.properties) ? node.properties : {}) });

  // `false` properties: the generator already reads them as never; `required` names it cannot see.
  if (Array.isArray(node.required)) {
    const props = isPlainObject(node.properties) ? node.properties : {};
    const missing = (node.required as string[]).filter((k) => !(k in props));
    if (missing.length > 0) {
      const p = properties();
      for (const k of missing) p[k] = ANY;
    }
  }

  if (isPlainObject(node.not)) {
    // not {required: [k]}, or not {anyOf: [{required: [a]}, {required: [b]}]}: none of them may be present
    const forbidden =
      Array.isArray(node.not.anyOf) && Object.keys(node.not).length === 1
        ? node.not.anyOf.map(singleRequired)
        : [singleRequired(node.not)];
    if (forbidden.every((k): k is string => k !== null)) {
      for (const k of forbidden) properties()[k] = NEVER;
      delete node.not;
    }
  }

  if (isPlainObject(node.dependentRequired)) {
    for (const [k, companions] of Object.entries(node.dependentRequired as Record<string, string[]>)) {
      const present: JsonSchema = {
        type: "object",
        required: [k, ...companions],
        properties: Object.fromEntries([k, ...companions].map((c) => [c, ANY])),
      };
      parts.push({ anyOf: [{ type: "object", properties: { [k]: NEVER } }, present] });
    }
    delete node.dependentRequired;
  }

  if (node.minProperties === 1 && node.additionalProperties === false) {
    const known = Object.keys(objectProperties(node, defs) ?? {});
    if (known.length > 0)
      parts.push({ anyOf: known.map((k) => ({ type: "object", required: [k], properties: { [k]: ANY } })) });
  } else if (node.minProperties === 1 && !isPlainObject(node.properties) && Array.isArray(node.allOf)) {
    // a $ref with the narrowing beside it ({allOf: [{$ref}], minProperties: 1}): the target's keys
    const known = Object.keys(objectProperties(node, defs) ?? {});
    if (known.length > 0 && closedTarget(node, defs))
      parts.push({ anyOf: known.map((k) => ({ type: "object", required: [k], properties: { [k]: ANY } })) });
  }

  // Conditionals: the node's own, and every allOf entry that is nothing but a conditional.
  const conditionals: JsonSchema[] = [];
  if (node.if !== undefined) {
    conditionals.push({ if: node.if, then: node.then, else: node.else });
    delete node.if;
    delete node.then;
    delete node.else;
  }
  if (Array.isArray(node.allOf)) {
    const rest: unknown[] = [];
    for (const entry of node.allOf) {
      if (
        isPlainObject(entry) &&
        entry.if !== undefined &&
        Object.keys(entry).every((k) => ["if", "then", "else", "description", "$comment"].includes(k))
      )
        conditionals.push(entry);
      else rest.push(entry);
    }
    if (rest.length > 0) node.allOf = rest;
    else delete node.allOf;
  }
  for (const c of conditionals) {
    const lowered = lowerConditional(c, node, defs);
    if (lowered) parts.push(lowered);
  }

  return regroup(node, parts);
}

/** The one name a `{required: [k]}` schema asks for, or null for any other schema. */
function singleRequired(schema: unknown): string | null {
  if (!isPlainObject(schema)) return null;
  const req = schema.required;
  // (its own lowering may have given the required name an `unknown` entry already)
  const onlyRequired = Object.entries(schema).every(
    ([k, v]) =>
      k === "required" ||
      (k === "properties" &&
        isPlainObject(v) &&
        Object.values(v).every((p) => isPlainObject(p) && Object.keys(p).length === 0)),
  );
  return onlyRequired && Array.isArray(req) && req.length === 1 && typeof req[0] === "string" ? req[0] : null;
}

/** One if/then/else as a union of its cases, or null when it says nothing a type can hold. */
function lowerConditional(c: JsonSchema, node: JsonSchema, defs: Defs): JsonSchema | null {
  const thenS = isPlainObject(c.then) ? (c.then as JsonSchema) : c.then === false ? null : undefined;
  const elseS = isPlainObject(c.else) ? (c.else as JsonSchema) : c.else === false ? null : undefined;
  const test = propertyTest(c.if);
  const branch = (guard: JsonSchema, body: JsonSchema | null | undefined): JsonSchema | null => {
    if (body === null) return null; // `false`: this case admits nothing
    return body === undefined ? guard : { allOf: [guard, body] };
  };
  if (test) {
    const cases: (JsonSchema | null)[] = [];
    const absentMatches = test.values !== null && !test.required; // a properties-only test holds when the property is missing
    if (test.values === null) {
      cases.push(branch({ type: "object", required: [test.key], properties: { [test.key]: ANY } }, thenS));
      cases.push(branch({ type: "object", properties: { [test.key]: NEVER } }, elseS));
    } else {
      const domain = propertyDomain(node, test.key, defs);
      if (domain) {
        const matching = domain.filter((v) => test.values!.some((t) => JSON.stringify(t) === JSON.stringify(v)));
        const others = domain.filter((v) => !matching.some((m) => JSON.stringify(m) === JSON.stringify(v)));
        if (matching.length > 0)
          cases.push(
            branch({ type: "object", required: [test.key], properties: { [test.key]: valuesSchema(matching) } }, thenS),
          );
        if (others.length > 0)
          cases.push(
            branch({ type: "object", required: [test.key], properties: { [test.key]: valuesSchema(others) } }, elseS),
          );
        if (!requiredBy(node, test.key, defs))
          cases.push(branch({ type: "object", properties: { [test.key]: NEVER } }, absentMatches ? thenS : elseS));
      } else return widened(thenS, elseS);
    }
    const kept = cases.filter((x): x is JsonSchema => x !== null);
    return kept.length === 0 ? NEVER : { anyOf: kept };
  }
  return widened(thenS, elseS);
}

/** then | else: every value the conditional admits satisfies one of them. */
function widened(thenS: JsonSchema | null | undefined, elseS: JsonSchema | null | undefined): JsonSchema | null {
  if (thenS === undefined || elseS === undefined) return null;
  const kept = [thenS, elseS].filter((x): x is JsonSchema => x !== null);
  return kept.length === 0 ? NEVER : { anyOf: kept };
}

/** An `if` that looks at one property: its allowed values (null: only its presence), and whether it must be there. */
function propertyTest(ifS: unknown): { key: string; values: unknown[] | null; required: boolean } | null {
  if (!isPlainObject(ifS)) return null;
  const keys = Object.keys(ifS).filter((k) => k !== "type" || ifS.type === "object");
  const props = isPlainObject(ifS.properties) ? ifS.properties : undefined;
  const req = Array.isArray(ifS.required) ? (ifS.required as string[]) : [];
  if (keys.some((k) => !["properties", "required", "type"].includes(k))) return null;
  if (!props) return req.length === 1 ? { key: req[0]!, values: null, required: true } : null;
  const names = Object.keys(props);
  if (names.length !== 1 || req.some((r) => r !== names[0])) return null;
  const sub = props[names[0]!];
  if (!isPlainObject(sub)) return null;
  const subKeys = Object.keys(sub).filter((k) => k !== "description" && k !== "$comment");
  let values: unknown[] | null = null;
  if (subKeys.length === 1 && subKeys[0] === "const") values = [sub.const];
  if (subKeys.length === 1 && subKeys[0] === "enum" && Array.isArray(sub.enum)) values = sub.enum;
  if (!values) return null;
  return { key: names[0]!, values, required: req.length === 1 };
}

/** The finite set of values a property may take under this node (enum or const, through $refs), or null. */
function propertyDomain(node: JsonSchema, key: string, defs: Defs): unknown[] | null {
  const prop = objectProperties(node, defs)?.[key];
  return prop === undefined ? null : finiteValues(prop, defs, 0);
}

function finiteValues(schema: unknown, defs: Defs, depth: number): unknown[] | null {
  if (!isPlainObject(schema) || depth > 16) return null;
  if (schema.const !== undefined) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  const target = refTarget(schema, defs);
  if (target) return finiteValues(target, defs, depth + 1);
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return finiteValues(schema.allOf[0], defs, depth + 1);
  return null;
}

/** The properties an object node declares, itself or through the $refs in its allOf. */
function objectProperties(node: JsonSchema, defs: Defs, depth = 0): Record<string, unknown> | null {
  if (depth > 16) return null;
  const own = isPlainObject(node.properties) ? node.properties : null;
  const fromRefs: Record<string, unknown> = {};
  const follow = [
    refTarget(node, defs),
    ...(Array.isArray(node.allOf)
      ? node.allOf.map((e) => (isPlainObject(e) ? (refTarget(e, defs) ?? e) : undefined))
      : []),
  ];
  for (const t of follow) if (isPlainObject(t)) Object.assign(fromRefs, objectProperties(t, defs, depth + 1) ?? {});
  const merged = { ...fromRefs, ...(own ?? {}) };
  return Object.keys(merged).length > 0 ? merged : null;
}

/** Whether a node names a closed object through the $ref in its allOf. */
function closedTarget(node: JsonSchema, defs: Defs): boolean {
  return (node.allOf as unknown[]).some((e) => isPlainObject(e) && refTarget(e, defs)?.additionalProperties === false);
}

function requiredBy(node: JsonSchema, key: string, defs: Defs, depth = 0): boolean {
  if (depth > 16) return false;
  if (Array.isArray(node.required) && node.required.includes(key)) return true;
  const target = refTarget(node, defs);
  if (target && requiredBy(target, key, defs, depth + 1)) return true;
  return (
    Array.isArray(node.allOf) &&
    node.allOf.some((e) => isPlainObject(e) && requiredBy(refTarget(e, defs) ?? e, key, defs, depth + 1))
  );
}

function refTarget(schema: Record<string, unknown>, defs: Defs): JsonSchema | undefined {
  if (typeof schema.$ref !== "string" || !schema.$ref.startsWith("#/$defs/")) return undefined;
  return defs[schema.$ref.slice("#/$defs/".length)];
}

function valuesSchema(values: unknown[]): JsonSchema {
  return values.length === 1 ? { const: values[0] } : { enum: values };
}

/**
 * A node that mixes its own object keywords with unions becomes allOf [own, ...unions]: the
 * generator would otherwise split it into numbered types (Foo1, Foo2).
 */
function regroup(node: JsonSchema, parts: JsonSchema[]): JsonSchema {
  const hasOwn = isPlainObject(node.properties) || node.type === "object";
  const unions = ["anyOf", "oneOf"].filter((k) => Array.isArray(node[k]));
  if (parts.length === 0 && !(hasOwn && (unions.length > 0 || Array.isArray(node.allOf)))) return node;
  const own: JsonSchema = { ...node };
  const out: JsonSchema = {};
  if (typeof node.title === "string") out.title = node.title;
  if (typeof node.description === "string") out.description = node.description;
  delete own.title;
  delete own.description;
  const allOf: unknown[] = [];
  for (const k of unions) {
    allOf.push({ [k]: own[k] });
    delete own[k];
  }
  const ownAllOf = Array.isArray(own.allOf) ? own.allOf : [];
  delete own.allOf;
  const ownEmpty = Object.keys(own).every((k) => ["minProperties", "$comment", "default", "examples"].includes(k));
  out.allOf = [...(ownEmpty ? [] : [own]), ...ownAllOf, ...allOf, ...parts];
  return out;
}
