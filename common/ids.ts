/** Ids and the canonical JSON that keys and fingerprints are hashed from. */
import { randomBytes } from "node:crypto";

/** A short random id with a prefix: art_3f9c0a1b2c4d. */
export function randomId(prefix: string, bytes = 6): string {
  return `${prefix}_${randomBytes(bytes).toString("hex")}`;
}

/**
 * JSON with object keys sorted at every level (code-unit order): the same value always gives the
 * same text. Written as plain loops: it runs on every keyed write's arguments (bench/, runtimeCost).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return "null";
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i]);
    return out + "]";
  }
  const record = value as Record<string, unknown>;
  // most objects arrive with their keys in order already: check (linear) before sorting
  let keys = Object.keys(record);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys = keys.sort();
      break;
    }
  }
  let out = "{";
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += (first ? "" : ",") + JSON.stringify(key) + ":" + canonicalJson(v);
    first = false;
  }
  return out + "}";
}
