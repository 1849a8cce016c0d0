/**
 * One pass over raw JSON text before JSON.parse sees it. JSON.parse itself is the cost of some 1 MiB
 * shapes (a 524k-deep array costs it about 100 ms of CPU, 120k keys or 340k empty objects 60 to 90
 * ms, bench/hostile.ts), so what the limits refuse anyway is refused here, from the bytes, in a few
 * milliseconds:
 *
 * - nesting deeper than maxDepth (the first container past it ends the scan);
 * - more than maxValues JSON values (every scalar, array and object counts one);
 *
 * and it counts the object members on the way, which the duplicate-member check compares with the
 * keys of the parsed value (JSON.parse keeps the last of two equal names silently, while another
 * parser on the way may keep the first: two components would then act on two different requests).
 *
 * The scan respects strings and escapes (a bracket or a colon inside a string is text) and jumps
 * from quote to quote with indexOf, so a long string costs a native search, not a loop in JS. It
 * does not check the JSON grammar: JSON.parse does, after it. Text that is not JSON may be refused
 * here for its depth or size before JSON.parse calls it not JSON; either way nothing is dispatched.
 */
import { ERR } from "../../generated/registry";
import { joinPointer } from "../../common/json-pointer";
import { refuse } from "./tool-failure";

export interface PrescanLimits {
  maxDepth: number;
  maxValues: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the quote that closes the string opening at `open` (text.length when there is none). */
function stringEnd(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    at = text.indexOf('"', at);
    if (at < 0) return text.length;
    // escaped when an odd number of backslashes stands right before it
    let k = at - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((at - 1 - k) % 2 === 0) return at;
    at++;
  }
}

/** The first index at or after i that is not JSON whitespace. */
function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * One byte per open container: 1 for an object, 0 for an array; never deeper than maxDepth. Kept
 * across calls and grown when a deeper limit asks for it: the scan is synchronous, so no two scans
 * share it at once, and a new typed array per call cost more than the scan of a page.get (issue 46).
 */
let openKinds = new Uint8Array(65);

/**
 * Scans JSON text: refuses (payload_too_large) nesting deeper than maxDepth and more than maxValues
 * values, else returns the number of object members (name: value pairs) at every depth.
 */
export function prescanJson(text: string, limits: PrescanLimits): number {
  if (openKinds.length < limits.maxDepth + 1) openKinds = new Uint8Array(limits.maxDepth + 1);
  const kinds = openKinds;
  let depth = 0;
  let members = 0;
  let elements = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i) + 1;
      // a string in an object followed by a colon is a member name
      if (depth > 0 && kinds[depth - 1] === 1) {
        const next = skipSpace(text, i);
        if (text.charCodeAt(next) === COLON && ++members + elements >= limits.maxValues) tooMany();
      }
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth >= limits.maxDepth) refuse(ERR.payloadTooLarge, undefined, { pointer: pointerAt(text, i) });
      kinds[depth++] = c === OPEN_OBJECT ? 1 : 0;
      // a non-empty array has one element more than it has commas
      if (c === OPEN_ARRAY && text.charCodeAt(skipSpace(text, i + 1)) !== CLOSE_ARRAY) elements++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0 && kinds[depth - 1] === 0) {
      if (++elements + members >= limits.maxValues) tooMany();
    }
    i++;
  }
  // the root, every member's value and every array element (checked as they are counted: the scan
  // stops at the first value past the limit)
  if (1 + members + elements > limits.maxValues) tooMany();
  return members;
}

function tooMany(): never {
  refuse(ERR.payloadTooLarge, undefined, { pointer: "" });
}

/**
 * The JSON pointer of the value that starts at `offset`, from the containers open there: computed
 * only for a refusal, so the scan itself keeps no path. Member names are decoded with JSON.parse.
 */
export function pointerAt(text: string, offset: number): string {
  interface Frame {
    object: boolean;
    index: number;
    key: string;
  }
  const frames: Frame[] = [];
  let i = 0;
  while (i < offset) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (top?.object && text.charCodeAt(skipSpace(text, end + 1)) === COLON) {
        try {
          top.key = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          top.key = text.slice(i + 1, end);
        }
      }
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) frames.push({ object: c === OPEN_OBJECT, index: 0, key: "" });
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) frames.pop();
    else if (c === COMMA && top && !top.object) top.index++;
    i++;
  }
  return joinPointer("", ...frames.map((f) => (f.object ? f.key : f.index)));
}
