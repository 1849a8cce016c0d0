/**
 * What of a schema document decides what it accepts: the document with its annotations dropped
 * (description, title, $comment, examples, deprecated, readOnly, writeOnly and the contract's own
 * x-mnote-* keywords, which ajv is told are annotations). Watch mode keys the examples' compiled
 * validators by it (support/memo.ts), so an edit to a description does not compile them again.
 * Names are kept where they are names (properties, $defs, ...) and values where they are values
 * (const, enum, default). A document with a $ref that points into an annotation has no key:
 * dropping the annotation could hide a change to what it accepts.
 */
import { isVendorKeyword } from "../vendor-keywords";
import {
  ONE_SCHEMA_KEYWORDS as ONE,
  SCHEMA_LIST_KEYWORDS as LIST,
  SCHEMA_MAP_KEYWORDS as MAP,
} from "./schema-keywords";

const ANNOTATIONS = new Set(["description", "title", "$comment", "examples", "deprecated", "readOnly", "writeOnly"]);
/** The document without its annotations; undefined when a $ref leads into one. */
export function validationKey(document: unknown): unknown {
  let refIntoAnnotation = false;
  const schema = (node: unknown): unknown => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (ANNOTATIONS.has(k) || isVendorKeyword(k)) continue;
      if (k === "$ref" && typeof v === "string" && leadsIntoAnnotation(v)) refIntoAnnotation = true;
      if (ONE.has(k)) out[k] = schema(v);
      else if (LIST.has(k) && Array.isArray(v)) out[k] = v.map(schema);
      else if (MAP.has(k) && v !== null && typeof v === "object" && !Array.isArray(v))
        out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([n, s]) => [n, schema(s)]));
      else out[k] = v;
    }
    return out;
  };
  const key = schema(document);
  return refIntoAnnotation ? undefined : key;
}

function leadsIntoAnnotation(ref: string): boolean {
  const hash = ref.indexOf("#");
  if (hash < 0) return false;
  return ref
    .slice(hash + 1)
    .split("/")
    .some((segment) => ANNOTATIONS.has(segment) || segment.startsWith("x-"));
}
