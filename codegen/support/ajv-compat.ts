/**
 * Schema rewrites that keep a schema's meaning but step around places where ajv is wrong, applied
 * to every schema before ajv sees it (the contract's own, and the JSON Schema test suite's):
 * - an empty enum (valid in 2020-12, nothing matches it) becomes `not: {}`; ajv refuses `enum: []`;
 * - a property named "__proto__" moves to patternProperties (^__proto__$), which means the same;
 *   ajv drops it from properties, to protect its own objects;
 * - an embedded resource (a subschema with its own $id) is lifted out into a document of its own
 *   and replaced by a $ref to it; ajv overflows its stack resolving a $ref next to a nested $id.
 */
import { isPlainObject } from "./schema-walk";
import { ONE_SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from "./schema-keywords";

type Json = Record<string, unknown>;

export interface AjvReadySchemas {
  root: unknown;
  /** Lifted embedded resources, each with an absolute $id. */
  resources: Json[];
}

export function prepareForAjv(schema: unknown, baseId: string): AjvReadySchemas {
  const resources: Json[] = [];
  const visit = (node: unknown, base: string, isRoot: boolean): unknown => {
    if (!isPlainObject(node)) return node;
    let ownBase = base;
    if (typeof node.$id === "string" && !node.$id.startsWith("#")) {
      try {
        ownBase = new URL(node.$id, base).href;
      } catch {
        ownBase = base;
      }
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (ONE_SCHEMA_KEYWORDS.has(key)) out[key] = visit(value, ownBase, false);
      else if (SCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value))
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v, ownBase, false)]));
      else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value))
        out[key] = value.map((v) => visit(v, ownBase, false));
      else out[key] = value;
    }
    if (isPlainObject(out.properties) && Object.prototype.hasOwnProperty.call(out.properties, "__proto__")) {
      const { __proto__: proto, ...rest } = out.properties as Json & { __proto__: unknown };
      out.properties = rest;
      out.patternProperties = {
        ...(isPlainObject(out.patternProperties) ? out.patternProperties : {}),
        "^__proto__$": proto,
      };
    }
    if (Array.isArray(out.enum) && out.enum.length === 0) {
      delete out.enum;
      out.not = {};
    }
    // lift only resources with a URL-like absolute id ajv can address, and not ones using dynamic scope
    const liftable =
      !isRoot &&
      typeof node.$id === "string" &&
      ownBase !== base &&
      /^(https?:\/\/|urn:)/.test(ownBase) &&
      !("$dynamicAnchor" in node);
    if (liftable) {
      resources.push({ ...out, $id: ownBase });
      return { $ref: ownBase };
    }
    return out;
  };
  return { root: visit(schema, baseId, true), resources };
}
