/**
 * A strict JSON parser that remembers where every value starts, so a contract error can name
 * line and column as well as the JSON pointer. JSON.parse cannot: it gives no positions for
 * values and silently keeps the last of duplicate keys, which would hide a contract mistake.
 */
import { joinPointer } from "../../common/json-pointer";

export interface Position {
  line: number;
  column: number;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: Position,
  ) {
    super(message);
  }
}

export interface ParsedJson {
  value: unknown;
  /** JSON pointer -> position of the value (for members: of the key). */
  positions: Map<string, Position>;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};
/** What ends a run of plain characters in a string: a quote, a backslash, or a control character (refused). */
// eslint-disable-next-line no-control-regex -- JSON strings may not hold control characters: finding them is the point
const SPECIAL = /["\\\u0000-\u001f]/g;
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

export function parseJsonWithPositions(text: string): ParsedJson {
  const positions = new Map<string, Position>();
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const here = (): Position => ({ line, column: i - lineStart + 1 });
  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, here());
  };

  const skipWhitespace = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        i++;
        line++;
        lineStart = i;
      } else if (c === 0x20 || c === 0x09 || c === 0x0d) {
        i++;
      } else {
        return;
      }
    }
  };

  // Strings are most of a contract: copy the runs between escapes, quotes and control characters whole.
  const parseString = (): string => {
    i++; // opening quote
    let out = "";
    for (;;) {
      SPECIAL.lastIndex = i;
      const found = SPECIAL.exec(text);
      if (!found) {
        i = text.length;
        fail("unterminated string");
      }
      out += text.slice(i, found!.index);
      i = found!.index;
      const c = text[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        const e = text[i + 1];
        if (e !== undefined && Object.prototype.hasOwnProperty.call(SIMPLE_ESCAPES, e)) {
          out += SIMPLE_ESCAPES[e];
          i += 2;
        } else if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          fail("bad escape in string");
        }
      } else {
        fail("control character in string");
      }
    }
  };

  const parseNumber = (): number => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail("unexpected character");
    // At most 400 characters of one number, as the parser always read.
    const literal = m![0].slice(0, 400);
    i += literal.length;
    return Number(literal);
  };

  const parseValue = (pointer: string): unknown => {
    skipWhitespace();
    if (!positions.has(pointer)) positions.set(pointer, here());
    const c = text[i];
    if (c === "{") {
      i++;
      const obj: Record<string, unknown> = Object.create(null);
      const out: Record<string, unknown> = {};
      skipWhitespace();
      if (text[i] === "}") {
        i++;
        return out;
      }
      for (;;) {
        skipWhitespace();
        if (text[i] !== '"') fail("expected a property name in double quotes");
        const keyPosition = here();
        const key = parseString();
        if (Object.prototype.hasOwnProperty.call(obj, key)) {
          throw new JsonSyntaxError(`duplicate key "${key}"`, keyPosition);
        }
        skipWhitespace();
        if (text[i] !== ":") fail("expected ':' after a property name");
        i++;
        const childPointer = joinPointer(pointer, key);
        positions.set(childPointer, keyPosition);
        obj[key] = true;
        const child = parseValue(childPointer);
        // "__proto__" is a name here, never the prototype.
        if (key === "__proto__")
          Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
        else out[key] = child;
        skipWhitespace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return out;
        }
        fail("expected ',' or '}' after a property");
      }
    }
    if (c === "[") {
      i++;
      const arr: unknown[] = [];
      skipWhitespace();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(joinPointer(pointer, arr.length)));
        skipWhitespace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail("expected ',' or ']' after an array item");
      }
    }
    if (c === '"') return parseString();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return parseNumber();
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    return fail(i >= text.length ? "unexpected end of input" : `unexpected character '${c}'`);
  };

  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const value = parseValue("");
  skipWhitespace();
  if (i < text.length) fail("unexpected text after the JSON value");
  return { value, positions };
}
