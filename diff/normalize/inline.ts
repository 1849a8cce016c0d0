/**
 * Inlines $refs so that a definition moved behind a $ref compares equal to the same schema written
 * in place, and remembers where every inlined node came from (file + pointer) so a change is
 * reported against the file a user would edit.
 *
 * Definitions that the diff compares on their own (the error and capability catalogs, Audit,
 * ToolError) are kept as a marker {$ref: "<path>#<fragment>"}: comparing them again inside every
 * schema that uses them would report one edit many times, and would judge a new error code by the
 * response rules (a widened enum) instead of the catalog's (safe).
 */
import type { SchemaFile } from "../../codegen/model";
import { RefIndex } from "../../codegen/support/refs";
import { isPlainObject } from "../../codegen/support/schema-walk";
import { getAtPointer, joinPointer } from "../../common/json-pointer";
import { canonical } from "./json";
import { isVendorKeyword } from "../../codegen/vendor-keywords";

export interface Origin {
  file: string;
  pointer: string;
}

interface NodeOrigin extends Origin {
  /** Keywords that came from the $ref's siblings, not from its target. */
  siblings?: Map<string, Origin>;
}

const SUBSCHEMA = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
const SUBSCHEMA_MAP = new Set(["properties", "patternProperties", "dependentSchemas"]);
const SUBSCHEMA_LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const DROPPED = new Set(["$defs", "$id", "$schema", "$ref"]);

/** Shared by both sides: nodes are distinct objects, so one map serves both. */
const ORIGINS = new WeakMap<object, NodeOrigin>();

/** Where keyword `key` of an inlined node is written in the contract. */
export function originOf(node: unknown, key?: string): Origin | undefined {
  if (!isPlainObject(node)) return undefined;
  const o = ORIGINS.get(node);
  if (!o) return undefined;
  if (key === undefined) return { file: o.file, pointer: o.pointer };
  return o.siblings?.get(key) ?? { file: o.file, pointer: joinPointer(o.pointer, key) };
}

/** A copy of node without some keywords, keeping its origin. */
export function omitKeys(node: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (!keys.includes(k)) out[k] = v;
  const o = ORIGINS.get(node);
  if (o) ORIGINS.set(out, o);
  return out;
}

/**
 * Records that keywords of `node` were taken from `from` (normalize merging an anyOf alternative
 * or an allOf member into its parent), so findings on them point where they are written.
 */
export function adoptOrigins(node: Record<string, unknown>, from: unknown, keys: readonly string[]): void {
  const own = ORIGINS.get(node);
  if (!own) return;
  const siblings = new Map(own.siblings ?? []);
  for (const key of keys) {
    const origin = originOf(from, key);
    if (origin) siblings.set(key, origin);
  }
  ORIGINS.set(node, { file: own.file, pointer: own.pointer, siblings });
}

/** Records where one keyword of node is written. */
export function setKeyOrigin(node: Record<string, unknown>, key: string, origin: Origin | undefined): void {
  const own = ORIGINS.get(node);
  if (!own || !origin) return;
  ORIGINS.set(node, {
    file: own.file,
    pointer: own.pointer,
    siblings: new Map([...(own.siblings ?? []), [key, origin]]),
  });
}

export class Inliner {
  private readonly refs: RefIndex;
  private readonly pathById = new Map<string, string>();
  private readonly expanded = new Map<string, Record<string, unknown>>();
  private readonly idByPath = new Map<string, string>();

  /** opaque: definitions kept as markers, as "<path>#/$defs/<Name>". */
  constructor(
    files: readonly SchemaFile[],
    private readonly baseUri: string,
    private readonly opaque: ReadonlySet<string>,
  ) {
    this.refs = new RefIndex(files);
    for (const f of files) {
      this.pathById.set(f.id, f.path);
      this.idByPath.set(f.path, f.id);
    }
  }

  /** The schema at pointer in a contract file, inlined; undefined when the file or pointer is missing. */
  at(path: string, pointer: string): unknown {
    const id = this.idByPath.get(path);
    if (id === undefined) return undefined;
    const schema = getAtPointer(this.refs.resolve(id, id).schema, pointer);
    return schema === undefined ? undefined : this.node(schema, id, pointer, []);
  }

  /** The definition behind a marker, inlined (its own markers stay markers). */
  expand(marker: Record<string, unknown>): Record<string, unknown> {
    // One body per marker: a proof that unfolds a recursion meets the same nodes again, and knows
    // them by identity (subset.ts assumes a pair it is already proving), so it can close.
    const key = canonical(marker);
    const known = this.expanded.get(key);
    if (known) return known;
    const ref = marker.$ref as string;
    const target = this.refs.resolve(ref, this.baseUri);
    const body = this.node(target.schema, target.fileId, this.fragment(target.ref), [target.ref]);
    const siblings = omitKeys(marker, ["$ref"]);
    const out = this.merge(body, siblings);
    this.expanded.set(key, out);
    return out;
  }

  private node(schema: unknown, fileId: string, pointer: string, stack: readonly string[]): unknown {
    if (!isPlainObject(schema)) return schema;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key)) continue;
      const at = joinPointer(pointer, key);
      if (SUBSCHEMA.has(key)) out[key] = this.node(value, fileId, at, stack);
      else if (SUBSCHEMA_MAP.has(key) && isPlainObject(value)) {
        const map: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(value))
          map[name] = this.node(sub, fileId, joinPointer(at, name), stack);
        out[key] = map;
      } else if (SUBSCHEMA_LIST.has(key) && Array.isArray(value)) {
        out[key] = value.map((sub, i) => this.node(sub, fileId, joinPointer(at, i), stack));
      } else out[key] = value;
    }
    const file = this.pathById.get(fileId) ?? fileId;
    ORIGINS.set(out, { file, pointer });
    if (typeof schema.$ref !== "string") return out;

    const target = this.refs.resolve(schema.$ref, fileId);
    const relative = this.relative(target.ref);
    if (this.opaque.has(relative) || stack.includes(target.ref)) {
      // A recursive $ref stays a marker too: the comparer stops at equal markers.
      const marker: Record<string, unknown> = { $ref: relative, ...out };
      ORIGINS.set(marker, { file, pointer });
      return marker;
    }
    const body = this.node(target.schema, target.fileId, this.fragment(target.ref), [...stack, target.ref]);
    return this.merge(body, out);
  }

  /**
   * A $ref with sibling keywords is the conjunction of its target and its siblings (JSON Schema
   * 2020-12: both apply). Siblings that only annotate (description, title, x-mnote-* facts, …) or
   * that the target lacks are written next to the target's keywords; assertions both hold with
   * different values, and the keywords that are read together with them (a properties /
   * additionalProperties group, if/then/else, …), move into an allOf member, so nothing is lost:
   * normalize.ts merges the member back where that is exact (the tighter of two bounds, …).
   */
  private merge(body: unknown, siblings: Record<string, unknown>): Record<string, unknown> {
    if (!isPlainObject(body)) return siblings;
    const conflicts = conjunctionConflicts(body, siblings);
    const merged: Record<string, unknown> = { ...body };
    for (const [key, value] of Object.entries(siblings)) if (!conflicts.has(key)) merged[key] = value;
    const bodyOrigin = ORIGINS.get(body);
    const siblingOrigin = ORIGINS.get(siblings);
    if (conflicts.size > 0) {
      const member: Record<string, unknown> = {};
      for (const key of conflicts) member[key] = siblings[key];
      if (siblingOrigin) ORIGINS.set(member, siblingOrigin);
      merged.allOf = [...(Array.isArray(merged.allOf) ? merged.allOf : []), member];
    }
    if (bodyOrigin) {
      const keyOrigins = new Map(bodyOrigin.siblings ?? []);
      if (siblingOrigin)
        for (const key of Object.keys(siblings))
          if (!conflicts.has(key))
            keyOrigins.set(key, { file: siblingOrigin.file, pointer: joinPointer(siblingOrigin.pointer, key) });
      ORIGINS.set(merged, { file: bodyOrigin.file, pointer: bodyOrigin.pointer, siblings: keyOrigins });
    }
    return merged;
  }

  /** Whether a marker's definition is compared on its own (a catalog, Audit, a tool's Args, …), not recursive. */
  isOpaque(ref: string): boolean {
    return this.opaque.has(ref);
  }

  /** Markers name definitions by path, so a changed baseUri does not make them differ. */
  private relative(absoluteRef: string): string {
    return absoluteRef.startsWith(this.baseUri) ? absoluteRef.slice(this.baseUri.length) : absoluteRef;
  }

  private fragment(absoluteRef: string): string {
    return absoluteRef.slice(absoluteRef.indexOf("#") + 1);
  }
}

/** Keywords a validator reads together: splitting them into two allOf members would change what they mean. */
const KEYWORD_GROUPS: ReadonlyArray<readonly string[]> = [
  ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"],
  ["prefixItems", "items", "unevaluatedItems"],
  ["contains", "minContains", "maxContains"],
  ["if", "then", "else"],
];

/** Keywords that never decide validity: a $ref's sibling simply replaces the target's. */
function annotates(key: string): boolean {
  return (
    key === "description" ||
    key === "title" ||
    key === "default" ||
    key === "examples" ||
    key === "$comment" ||
    key === "deprecated" ||
    key === "readOnly" ||
    key === "writeOnly" ||
    isVendorKeyword(key)
  );
}

/**
 * The siblings that cannot be written next to the target's keywords: an assertion both hold with
 * different values, every sibling of a keyword group both touch, and allOf when both have one.
 */
function conjunctionConflicts(body: Record<string, unknown>, siblings: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const key of Object.keys(siblings)) {
    if (annotates(key) || !(key in body)) continue;
    if (key === "allOf" || canonical(body[key]) !== canonical(siblings[key])) out.add(key);
  }
  for (const group of KEYWORD_GROUPS) {
    const inSiblings = group.filter((k) => k in siblings);
    if (inSiblings.length === 0 || !group.some((k) => k in body)) continue;
    if (inSiblings.every((k) => k in body && canonical(body[k]) === canonical(siblings[k]))) continue;
    for (const k of inSiblings) out.add(k);
  }
  return out;
}
