/** $ref resolution over the contract's files, by $id, the way ajv resolves them. */
import type { JsonSchema, SchemaFile } from "../model";
import { isPlainObject, mapSchema } from "./schema-walk";
import { getAtPointer } from "../../common/json-pointer";
import { isVendorKeyword } from "../vendor-keywords";

export interface ResolvedRef {
  /** Absolute reference (file $id + fragment). */
  ref: string;
  fileId: string;
  schema: JsonSchema;
}

export function absoluteRef(ref: string, baseId: string): string {
  return new URL(ref, baseId).href;
}

export class RefIndex {
  private readonly byId = new Map<string, JsonSchema>();

  constructor(files: readonly SchemaFile[]) {
    for (const f of files) this.byId.set(f.id, f.json);
  }

  resolve(ref: string, baseId: string): ResolvedRef {
    const url = new URL(ref, baseId);
    const fragment = decodeURIComponent(url.hash.slice(1));
    url.hash = "";
    const file = this.byId.get(url.href);
    const schema = file === undefined ? undefined : fragment === "" ? file : getAtPointer(file, fragment);
    if (!isPlainObject(schema)) throw new Error(`unresolvable $ref ${ref} from ${baseId}`);
    return { ref: `${url.href}#${fragment}`, fileId: url.href, schema };
  }

  /**
   * The schema with every $ref replaced by its target, vendor keywords, titles and definitions
   * dropped: one self-contained schema, as model providers and MCP clients want it.
   *
   * In 2020-12 a $ref's sibling keywords apply *together with* the target (a conjunction), so the
   * merge must never let a sibling loosen what the target asserts: see {@link conjoin}.
   *
   * A recursive definition cannot be written out in place: its recursive uses become
   * {$ref: "#/$defs/<Name>"} and the definition itself, inlined, goes into the result's own $defs
   * (the one place a self-contained schema keeps definitions).
   */
  inline(schema: JsonSchema, baseId: string): JsonSchema {
    const recursive = new Map<string, string>();
    const root = this.inlineWith(schema, baseId, [], recursive);
    if (recursive.size === 0) return root;
    const defs: Record<string, JsonSchema> = {};
    // Inlining one definition may meet another recursive one: repeat until none is new.
    for (let done = 0; done < recursive.size;) {
      const pending = [...recursive].filter(([, name]) => !(name in defs));
      done = recursive.size - pending.length;
      for (const [ref, name] of pending) {
        const target = this.resolve(ref, ref);
        defs[name] = this.inlineWith(target.schema, target.fileId, [ref], recursive);
      }
      if (pending.length === 0) break;
    }
    return { ...root, $defs: defs };
  }

  private inlineWith(
    schema: JsonSchema,
    baseId: string,
    stack: readonly string[],
    recursive: Map<string, string>,
  ): JsonSchema {
    return mapSchema(schema, (node) => this.inlineNode(node, baseId, stack, recursive)) as JsonSchema;
  }

  private inlineNode(
    node: JsonSchema,
    baseId: string,
    stack: readonly string[],
    recursive: Map<string, string>,
  ): JsonSchema {
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) {
      if (isVendorKeyword(k) || k === "$defs" || k === "$id" || k === "$schema" || k === "title") continue;
      out[k] = v;
    }
    if (typeof out.$ref !== "string") return out;
    const target = this.resolve(out.$ref, baseId);
    const { $ref: _ref, ...siblings } = out;
    if (stack.includes(target.ref)) {
      let name = recursive.get(target.ref);
      if (name === undefined) {
        const base = target.ref.slice(target.ref.lastIndexOf("/") + 1) || "Root";
        const taken = new Set(recursive.values());
        name = base;
        for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
        recursive.set(target.ref, name);
      }
      return { $ref: `#/$defs/${name}`, ...siblings };
    }
    return conjoin(this.inlineWith(target.schema, target.fileId, [...stack, target.ref], recursive), siblings);
  }
}

/** Keywords that assert nothing: the $ref's own (more specific) value replaces the target's. */
const ANNOTATIONS = new Set(["description", "examples", "default", "deprecated", "readOnly", "writeOnly", "$comment"]);

/** How two values of one assertion keyword combine into the one value that means both. */
const BOTH: Readonly<Record<string, (a: unknown, b: unknown) => unknown>> = {
  minimum: numeric(Math.max),
  exclusiveMinimum: numeric(Math.max),
  minLength: numeric(Math.max),
  minItems: numeric(Math.max),
  minProperties: numeric(Math.max),
  maximum: numeric(Math.min),
  exclusiveMaximum: numeric(Math.min),
  maxLength: numeric(Math.min),
  maxItems: numeric(Math.min),
  maxProperties: numeric(Math.min),
  required: (a, b) =>
    Array.isArray(a) && Array.isArray(b) ? [...a, ...b.filter((x: unknown) => !a.includes(x))] : undefined,
};

function numeric(pick: (a: number, b: number) => number) {
  return (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number" ? pick(a, b) : undefined);
}

/**
 * A $ref's target and its siblings as one schema meaning both. A sibling the target lacks is
 * added; a numeric limit both state keeps the stricter; `required` is the union; any other
 * assertion both state differently stays whole on each side (the sibling's goes into `allOf`),
 * so the result is never looser than the contract. (Spreading the siblings over the target, as
 * this did before, let `{"$ref": X, "maxLength": 500}` loosen an X of maxLength 200.)
 */
export function conjoin(target: JsonSchema, siblings: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...target };
  const apart: JsonSchema = {};
  for (const [k, v] of Object.entries(siblings)) {
    if (!(k in out) || ANNOTATIONS.has(k) || JSON.stringify(out[k]) === JSON.stringify(v)) {
      out[k] = v;
      continue;
    }
    const both = BOTH[k]?.(out[k], v);
    if (both !== undefined) out[k] = both;
    else apart[k] = v;
  }
  if (Object.keys(apart).length === 0) return out;
  const allOf = Array.isArray(out.allOf) ? (out.allOf as JsonSchema[]) : [];
  return { ...out, allOf: [...allOf, apart] };
}
