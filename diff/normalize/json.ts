/** JSON equality that ignores key order, and short renderings of values for messages. */
import { isPlainObject } from "../../codegen/support/schema-walk";

/** Canonical texts of objects and arrays already seen: schema nodes are never changed once built. */
const texts = new WeakMap<object, string>();

/** JSON text with object keys sorted: equal for values JSON Schema considers equal (key order aside). */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return value === undefined ? "undefined" : JSON.stringify(value);
  const known = texts.get(value);
  if (known !== undefined) return known;
  let text: string;
  if (Array.isArray(value)) text = "[" + value.map(canonical).join(",") + "]";
  else if (isPlainObject(value)) {
    text =
      "{" +
      Object.keys(value)
        .sort()
        .map((k) => JSON.stringify(k) + ":" + canonical(value[k]))
        .join(",") +
      "}";
  } else text = JSON.stringify(value);
  texts.set(value, text);
  return text;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export function show(value: unknown, max = 80): string {
  if (value === undefined) return "(none)";
  const text = JSON.stringify(value);
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}
