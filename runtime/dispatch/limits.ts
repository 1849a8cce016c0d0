/**
 * Reading a request with limits: size in bytes, nesting depth, number of values, string length,
 * and values JSON can carry but the contract cannot (non-finite numbers, strings that are not
 * well-formed Unicode). Raw text is pre-scanned before JSON.parse (prescan.ts: depth, values and
 * the member count of the duplicate check, in one pass over the bytes), so a shape whose parse
 * alone would be the cost is refused before it. The walk of the parsed value is iterative, so a
 * deep document cannot overflow the stack, and linear: a 1 MiB request of any shape is answered
 * in milliseconds (bench/hostile.ts measures it).
 */
import { ERR } from "../../generated/registry";
import { refuse } from "./tool-failure";
import { joinPointer } from "../../common/json-pointer";
import { prescanJson } from "./prescan";

export interface Limits {
  maxBytes: number;
  maxDepth: number;
  /** JSON values in the whole request: every scalar, array and object counts one. */
  maxValues: number;
  maxStringLength: number;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * 20,000 values is eight times the largest request the contract accepts (page.save: 500 blocks of
 * at most 5 values each, plus the envelope), and small enough that parsing and walking that many
 * stays within a few milliseconds (contract/README.md, Limits).
 */
export const DEFAULT_LIMITS: Limits = {
  maxBytes: 1024 * 1024,
  maxDepth: 64,
  maxValues: 20_000,
  maxStringLength: 1024 * 1024,
};

/** Parses raw request text (or takes an already parsed value) and checks it against the limits. */
export function readRequest(input: unknown, limits: Limits): unknown {
  let value = input;
  if (typeof input === "string" || Buffer.isBuffer(input)) {
    if (byteLength(input, limits.maxBytes) > limits.maxBytes) refuse(ERR.payloadTooLarge, undefined, { pointer: "" });
    // strict UTF-8: invalid bytes are refused, never replaced by U+FFFD (a request would then
    // commit text other than what was sent, and two byte strings would share one idempotency key)
    let text: string;
    if (typeof input === "string") text = input;
    else {
      try {
        text = strictUtf8.decode(input);
      } catch {
        refuse(ERR.invalidInput, "not_json", { pointer: "" }); // RFC 8259: JSON text is UTF-8
      }
    }
    const members = prescanJson(text, limits);
    try {
      value = JSON.parse(text);
    } catch (e) {
      if (e instanceof RangeError) refuse(ERR.payloadTooLarge, undefined, { pointer: "" });
      refuse(ERR.invalidInput, "not_json", { pointer: "" });
    }
    const keys = shapeKeys(value, limits);
    // JSON.parse dropped one key per duplicate member name
    if (members !== keys) refuse(ERR.invalidInput, "duplicate_key", { pointer: "" });
    return value;
  }
  shapeKeys(value, limits);
  return value;
}

/**
 * The request's size in UTF-8 bytes, or a number known to be on the same side of maxBytes: a UTF-16
 * code unit is at most 3 bytes (a surrogate pair is 4 for two units), so text of at most maxBytes / 3
 * units is within the limit without counting its bytes (one pass over the text saved per call).
 */
function byteLength(input: string | Buffer, maxBytes: number): number {
  if (typeof input !== "string") return input.length;
  return input.length * 3 <= maxBytes ? input.length : Buffer.byteLength(input);
}

/**
 * The limits walk, fast: a recursive pass that keeps no path (recursion is bounded by maxDepth,
 * which it refuses past) answers every value within the limits, and only a value it would refuse
 * is walked again by checkShape, which names the place. Both apply the same rules, so the answer is
 * checkShape's; the recursive pass is what a well-formed request pays (the dispatch profile showed
 * the path-keeping walk at twice the cost of JSON.parse).
 */
export function shapeKeys(value: unknown, limits: Limits): number {
  if (limits.maxDepth <= MAX_RECURSIVE_DEPTH) {
    const tally: Tally = { keys: 0, values: 0 };
    if (withinLimits(value, 0, limits, tally)) return tally.keys;
  }
  return checkShape(value, limits);
}

/** Past this configured depth the walk stays iterative (a recursion that deep could reach the stack's end). */
const MAX_RECURSIVE_DEPTH = 256;

interface Tally {
  keys: number;
  values: number;
}

/** True when the value is within the limits (checkShape's rules, without paths); counts keys and values. */
function withinLimits(value: unknown, depth: number, limits: Limits, tally: Tally): boolean {
  if (++tally.values > limits.maxValues) return false;
  if (typeof value === "string") return value.length <= limits.maxStringLength && value.isWellFormed();
  if (typeof value === "number") return Number.isFinite(value);
  if (value === null || typeof value !== "object") return true;
  // depth is the number of containers open around this one
  if (depth >= limits.maxDepth) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!withinLimits(value[i], depth + 1, limits, tally)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  tally.keys += keys.length;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.length > limits.maxStringLength || !key.isWellFormed()) return false;
    if (!withinLimits(record[key], depth + 1, limits, tally)) return false;
  }
  return true;
}

/**
 * One pass over the value, iterative, in time linear in its size and memory linear in its depth:
 * the stack holds one frame per open container (its keys and a cursor), never a frame per
 * sibling, and the path to a node is rebuilt from the frames only when it is refused.
 * Returns the number of object keys it saw (the duplicate-member check compares it with the text).
 */
export function checkShape(root: unknown, limits: Limits): number {
  interface Frame {
    container: unknown[] | Record<string, unknown>;
    keys: string[] | null; // null for an array
    next: number;
    /** The key or index this container sits at in its parent. */
    at: string | number;
  }
  const frames: Frame[] = [];
  let keyCount = 0;
  let values = 0;
  const pointerTo = (last?: string | number) =>
    joinPointer("", ...frames.slice(1).map((f) => f.at), ...(last === undefined ? [] : [last]));

  /** Checks a scalar, or opens a container (a frame); `at` is its place in the current frame. */
  const visit = (value: unknown, at: string | number | undefined) => {
    if (++values > limits.maxValues) refuse(ERR.payloadTooLarge, undefined, { pointer: "" });
    if (typeof value === "string") {
      if (value.length > limits.maxStringLength) refuse(ERR.payloadTooLarge, undefined, { pointer: pointerTo(at) });
      if (!value.isWellFormed()) refuse(ERR.invalidInput, undefined, { pointer: pointerTo(at) });
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) refuse(ERR.invalidInput, undefined, { pointer: pointerTo(at) });
    } else if (value !== null && typeof value === "object") {
      // frames.length is the depth of this container
      if (frames.length >= limits.maxDepth) refuse(ERR.payloadTooLarge, undefined, { pointer: pointerTo(at) });
      const keys = Array.isArray(value) ? null : Object.keys(value);
      if (keys) keyCount += keys.length;
      frames.push({ container: value as Frame["container"], keys, next: 0, at: at ?? "" });
    }
  };

  visit(root, undefined);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.keys === null) {
      const array = frame.container as unknown[];
      if (frame.next >= array.length) {
        frames.pop();
        continue;
      }
      const index = frame.next++;
      visit(array[index], index);
    } else {
      if (frame.next >= frame.keys.length) {
        frames.pop();
        continue;
      }
      const key = frame.keys[frame.next++]!;
      if (key.length > limits.maxStringLength || !key.isWellFormed())
        refuse(ERR.invalidInput, undefined, { pointer: pointerTo(key) });
      visit((frame.container as Record<string, unknown>)[key], key);
    }
  }
  return keyCount;
}
