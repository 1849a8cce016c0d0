/**
 * Reading a request with limits: size in bytes, nesting depth, string length, and values JSON can
 * carry but the contract cannot (non-finite numbers, strings that are not well-formed Unicode).
 * The walk is iterative, so a 100k-deep document cannot overflow the stack.
 */
import { ERR } from "../../generated/registry";
import { refuse } from "./tool-failure";
import { joinPointer } from "../../common/json-pointer";
import { findDuplicateKey } from "./duplicate-keys";

export interface Limits {
  maxBytes: number;
  maxDepth: number;
  maxStringLength: number;
}

export const DEFAULT_LIMITS: Limits = { maxBytes: 1024 * 1024, maxDepth: 64, maxStringLength: 1024 * 1024 };

/** Parses raw request text (or takes an already parsed value) and checks it against the limits. */
export function readRequest(input: unknown, limits: Limits): unknown {
  let value = input;
  if (typeof input === "string" || Buffer.isBuffer(input)) {
    const bytes = typeof input === "string" ? Buffer.byteLength(input) : input.length;
    if (bytes > limits.maxBytes) refuse(ERR.payloadTooLarge, undefined, { pointer: "" });
    const text = typeof input === "string" ? input : input.toString("utf8");
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (e instanceof RangeError) refuse(ERR.payloadTooLarge, undefined, { pointer: "" });
      refuse(ERR.invalidInput, "not_json", { pointer: "" });
    }
    if (findDuplicateKey(text) !== undefined) refuse(ERR.invalidInput, "duplicate_key", { pointer: "" });
  }
  checkShape(value, limits);
  return value;
}

function checkShape(root: unknown, limits: Limits): void {
  const stack: Array<{ value: unknown; depth: number; path: Array<string | number> }> = [{ value: root, depth: 0, path: [] }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === "string") {
      if (value.length > limits.maxStringLength) refuse(ERR.payloadTooLarge, undefined, { pointer: joinPointer("", ...path) });
      if (!value.isWellFormed()) refuse(ERR.invalidInput, undefined, { pointer: joinPointer("", ...path) });
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) refuse(ERR.invalidInput, undefined, { pointer: joinPointer("", ...path) });
    } else if (value !== null && typeof value === "object") {
      if (depth >= limits.maxDepth) refuse(ERR.payloadTooLarge, undefined, { pointer: joinPointer("", ...path) });
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1, path: [...path, i] });
      } else {
        for (const key of Object.keys(value).reverse()) {
          if (key.length > limits.maxStringLength || !key.isWellFormed()) refuse(ERR.invalidInput, undefined, { pointer: joinPointer("", ...path, key) });
          stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: [...path, key] });
        }
      }
    }
  }
}
