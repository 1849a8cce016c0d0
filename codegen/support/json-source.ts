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
  const parser = new Parser(text);
  if (text.charCodeAt(0) === 0xfeff) parser.i = 1;
  const value = parser.parseValue("");
  parser.skipWhitespace();
  if (parser.i < text.length) parser.fail("unexpected text after the JSON value");
  return { value, positions: parser.positions };
}

/**
 * One parse: the cursor (i, line, lineStart) and the positions found so far. A class, not closures
 * over locals: its methods are made once, and the hot loops read fields of one object.
 */
class Parser {
  readonly positions = new Map<string, Position>();
  i = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly text: string) {}

  private here(): Position {
    return { line: this.line, column: this.i - this.lineStart + 1 };
  }

  fail(message: string): never {
    throw new JsonSyntaxError(message, this.here());
  }

  skipWhitespace(): void {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.i);
      if (c === 0x0a) {
        this.i++;
        this.line++;
        this.lineStart = this.i;
      } else if (c === 0x20 || c === 0x09 || c === 0x0d) {
        this.i++;
      } else {
        return;
      }
    }
  }

  parseValue(pointer: string): unknown {
    this.skipWhitespace();
    if (!this.positions.has(pointer)) this.positions.set(pointer, this.here());
    const c = this.text[this.i];
    if (c === "{") return this.parseObject(pointer);
    if (c === "[") return this.parseArray(pointer);
    if (c === '"') return this.parseString();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.parseNumber();
    return this.parseLiteral(c);
  }

  /** An object's members; the cursor is on its "{". */
  private parseObject(pointer: string): Record<string, unknown> {
    const text = this.text;
    this.i++;
    const seen: Record<string, unknown> = Object.create(null);
    const out: Record<string, unknown> = {};
    this.skipWhitespace();
    if (text[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (text[this.i] !== '"') this.fail("expected a property name in double quotes");
      const keyPosition = this.here();
      const key = this.parseString();
      if (Object.prototype.hasOwnProperty.call(seen, key)) {
        throw new JsonSyntaxError(`duplicate key "${key}"`, keyPosition);
      }
      this.skipWhitespace();
      if (text[this.i] !== ":") this.fail("expected ':' after a property name");
      this.i++;
      const childPointer = joinPointer(pointer, key);
      this.positions.set(childPointer, keyPosition);
      seen[key] = true;
      const child = this.parseValue(childPointer);
      // "__proto__" is a name here, never the prototype.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
      else out[key] = child;
      this.skipWhitespace();
      if (text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (text[this.i] === "}") {
        this.i++;
        return out;
      }
      this.fail("expected ',' or '}' after a property");
    }
  }

  /** An array's items; the cursor is on its "[". */
  private parseArray(pointer: string): unknown[] {
    const text = this.text;
    this.i++;
    const arr: unknown[] = [];
    this.skipWhitespace();
    if (text[this.i] === "]") {
      this.i++;
      return arr;
    }
    for (;;) {
      arr.push(this.parseValue(joinPointer(pointer, arr.length)));
      this.skipWhitespace();
      if (text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (text[this.i] === "]") {
        this.i++;
        return arr;
      }
      this.fail("expected ',' or ']' after an array item");
    }
  }

  // Strings are most of a contract: copy the runs between escapes, quotes and control characters whole.
  private parseString(): string {
    const text = this.text;
    this.i++; // opening quote
    let out = "";
    for (;;) {
      SPECIAL.lastIndex = this.i;
      const found = SPECIAL.exec(text);
      if (!found) {
        this.i = text.length;
        this.fail("unterminated string");
      }
      out += text.slice(this.i, found.index);
      this.i = found.index;
      const c = text[this.i];
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c !== "\\") this.fail("control character in string");
      out += this.parseEscape();
    }
  }

  /** One escape sequence; the cursor is on its backslash. */
  private parseEscape(): string {
    const text = this.text;
    const e = text[this.i + 1];
    if (e !== undefined && Object.prototype.hasOwnProperty.call(SIMPLE_ESCAPES, e)) {
      this.i += 2;
      return SIMPLE_ESCAPES[e]!;
    }
    if (e !== "u") this.fail("bad escape in string");
    const hex = text.slice(this.i + 2, this.i + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("bad \\u escape");
    this.i += 6;
    return String.fromCharCode(parseInt(hex, 16));
  }

  private parseNumber(): number {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail("unexpected character");
    // At most 400 characters of one number, as the parser always read.
    const literal = m[0].slice(0, 400);
    this.i += literal.length;
    return Number(literal);
  }

  /** true, false or null; anything else is refused (c: the character at the cursor). */
  private parseLiteral(c: string | undefined): boolean | null {
    const text = this.text;
    if (text.startsWith("true", this.i)) {
      this.i += 4;
      return true;
    }
    if (text.startsWith("false", this.i)) {
      this.i += 5;
      return false;
    }
    if (text.startsWith("null", this.i)) {
      this.i += 4;
      return null;
    }
    return this.fail(this.i >= text.length ? "unexpected end of input" : `unexpected character '${c}'`);
  }
}
