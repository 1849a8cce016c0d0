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

  const parseString = (): string => {
    i++; // opening quote
    let out = "";
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        if (e !== undefined && Object.prototype.hasOwnProperty.call(simple, e)) {
          out += simple[e];
          i += 2;
        } else if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          fail("bad escape in string");
        }
      } else if (text.charCodeAt(i) < 0x20) {
        fail("control character in string");
      } else {
        out += c;
        i++;
      }
    }
  };

  const parseNumber = (): number => {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("unexpected character");
    i += m![0].length;
    return Number(m![0]);
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
        Object.defineProperty(out, key, {
          value: parseValue(childPointer),
          enumerable: true,
          writable: true,
          configurable: true,
        });
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
