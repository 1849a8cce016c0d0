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
   */
  inline(schema: JsonSchema, baseId: string, stack: readonly string[] = []): JsonSchema {
    return mapSchema(schema, (node) => this.inlineNode(node, baseId, stack)) as JsonSchema;
  }

  private inlineNode(node: JsonSchema, baseId: string, stack: readonly string[]): JsonSchema {
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) {
      if (isVendorKeyword(k) || k === "$defs" || k === "$id" || k === "$schema" || k === "title") continue;
      out[k] = v;
    }
    if (typeof out.$ref !== "string") return out;
    const target = this.resolve(out.$ref, baseId);
    if (stack.includes(target.ref)) throw new Error(`recursive $ref ${target.ref} cannot be inlined`);
    const { $ref: _ref, ...siblings } = out;
    return { ...this.inline(target.schema, target.fileId, [...stack, target.ref]), ...siblings };
  }
}
