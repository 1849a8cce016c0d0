/** JSON equality that ignores key order, and short renderings of values for messages. */
import { isPlainObject } from "../support/schema-walk";

export function canonical(value: unknown): string {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (isPlainObject(value)) {
    return (
      "{" +
      Object.keys(value)
        .sort()
        .map((k) => JSON.stringify(k) + ":" + canonical(value[k]))
        .join(",") +
      "}"
    );
  }
  return value === undefined ? "undefined" : JSON.stringify(value);
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export function show(value: unknown, max = 80): string {
  if (value === undefined) return "(none)";
  const text = JSON.stringify(value);
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}
