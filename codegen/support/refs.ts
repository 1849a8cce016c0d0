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
   * The schema with every $ref replaced by its target (siblings of a $ref win over the target's
   * keywords), vendor keywords, titles and definitions dropped: one self-contained schema, as
   * model providers and MCP clients want it.
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
    return { ...this.inlineWith(target.schema, target.fileId, [...stack, target.ref], recursive), ...siblings };
  }
}
