/**
 * Compares the languages of two `pattern`s: does every string one accepts also pass the other?
 * JSON Schema patterns are ECMA-262 regular expressions (ajv compiles them with the "u" flag) and
 * match anywhere in the string unless anchored. For the regular subset the contract uses
 * (literals, escapes, `.`, classes and their shorthands, groups, alternation, every quantifier, `^`
 * and `$`), each pattern becomes an automaton over Unicode code points and the two are compared
 * exactly (a product of the two subset-construction DFAs, searched for a string one accepts and
 * the other refuses). Unicode properties (`\p{L}`, `\P{Script=Greek}`) are the code points this
 * engine's RegExp gives them. Anything outside that subset (lookarounds, backreferences, `\b`),
 * a syntax error, or an automaton beyond the size limits is "unknown": the caller then takes the
 * safe side.
 */

/** How the strings two patterns accept relate. */
export type PatternRelation = "equal" | "subset" | "superset" | "different" | "unknown";

/** A set of code points: sorted, disjoint, non-adjacent inclusive ranges. */
type Ranges = ReadonlyArray<readonly [number, number]>;

type Node =
  | { kind: "chars"; set: Ranges }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; items: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number }
  | { kind: "begin" }
  | { kind: "end" };

class Unsupported extends Error {}

const MAX_CODE_POINT = 0x10ffff;
const MAX_NFA_STATES = 20_000;
const MAX_PRODUCT_STATES = 20_000;
const MAX_COUNT = 1000;

const ANY: Ranges = [[0, MAX_CODE_POINT]];
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** ECMA-262 WhiteSpace and LineTerminator: what `\s` matches. */
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

function normalizeRanges(list: Array<readonly [number, number]>): Ranges {
  const sorted = list.filter(([lo, hi]) => lo <= hi).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(set: Ranges): Ranges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const SHORTHANDS: Record<string, Ranges> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
const SYNTAX_CHARACTERS = "^$\\.*+?()[]{}|/";

/** A recursive-descent parser for the "u"-mode pattern grammar, refusing what it does not model. */
class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.src.length) throw new Unsupported(`unexpected "${this.src[this.i]}"`);
    return node;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.i++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { kind: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.peek() !== "|" && this.peek() !== ")") items.push(this.quantified());
    return { kind: "seq", items };
  }

  private quantified(): Node {
    const atom = this.atom();
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) throw new Unsupported("a { that is not a quantifier");
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (max < min) throw new Unsupported("a quantifier {n,m} with m < n");
      if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) throw new Unsupported("a count too large");
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    // A lazy quantifier matches the same strings: the language is what counts here.
    if (this.peek() === "?") this.i++;
    if (atom.kind === "begin" || atom.kind === "end") throw new Unsupported("a quantified anchor");
    return { kind: "repeat", node: atom, min, max };
  }

  private atom(): Node {
    const c = this.src[this.i++]!;
    switch (c) {
      case "^":
        return { kind: "begin" };
      case "$":
        return { kind: "end" };
      case ".":
        return { kind: "chars", set: complement(LINE_TERMINATORS) };
      case "(": {
        if (this.peek() === "?") {
          const next = this.src[this.i + 1];
          if (next === ":") this.i += 2;
          else if (next === "<" && /^<[A-Za-z_$][\w$]*>/.test(this.src.slice(this.i + 1)))
            this.i += this.src.indexOf(">", this.i) - this.i + 1;
          else throw new Unsupported(`the group (?${next ?? ""}`);
        }
        const inner = this.alternation();
        if (this.src[this.i++] !== ")") throw new Unsupported("an unclosed group");
        return inner;
      }
      case "[":
        return { kind: "chars", set: this.characterClass() };
      case "\\":
        return { kind: "chars", set: this.escape(false) };
      case ")":
      case "]":
      case "{":
      case "}":
      case "*":
      case "+":
      case "?":
        throw new Unsupported(`a lone "${c}"`);
      default: {
        const cp = this.src.codePointAt(this.i - 1)!;
        if (cp > 0xffff) this.i++;
        return { kind: "chars", set: [[cp, cp]] };
      }
    }
  }

  private characterClass(): Ranges {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.i++;
    }
    const parts: Array<readonly [number, number]> = [];
    while (this.peek() !== "]") {
      if (this.i >= this.src.length) throw new Unsupported("an unclosed character class");
      const from = this.classAtom();
      if (this.peek() === "-" && this.src[this.i + 1] !== "]" && this.i + 1 < this.src.length) {
        this.i++;
        const to = this.classAtom();
        if (from.length !== 1 || to.length !== 1 || from[0]![0] !== from[0]![1] || to[0]![0] !== to[0]![1])
          throw new Unsupported("a range between classes");
        if (to[0]![0] < from[0]![0]) throw new Unsupported("a range out of order");
        parts.push([from[0]![0], to[0]![0]]);
      } else parts.push(...from);
    }
    this.i++;
    const set = normalizeRanges(parts);
    return negated ? complement(set) : set;
  }

  private classAtom(): Ranges {
    const c = this.src[this.i++]!;
    if (c === "\\") return this.escape(true);
    const cp = this.src.codePointAt(this.i - 1)!;
    if (cp > 0xffff) this.i++;
    return [[cp, cp]];
  }

  /** After a backslash. */
  private escape(inClass: boolean): Ranges {
    const c = this.src[this.i++];
    if (c === undefined) throw new Unsupported("a trailing backslash");
    if (c in SHORTHANDS) return SHORTHANDS[c]!;
    if (c in CONTROL_ESCAPES) return single(CONTROL_ESCAPES[c]!);
    if (c === "0" && !/[0-9]/.test(this.peek() ?? "")) return single(0);
    if (c === "b" && inClass) return single(8);
    if (c === "-" && inClass) return single(0x2d);
    if (SYNTAX_CHARACTERS.includes(c)) return single(c.charCodeAt(0));
    if (c === "c" && /[A-Za-z]/.test(this.peek() ?? "")) return single(this.src.charCodeAt(this.i++) % 32);
    if (c === "x") {
      const m = /^[0-9A-Fa-f]{2}/.exec(this.src.slice(this.i));
      if (!m) throw new Unsupported("a bad \\x escape");
      this.i += 2;
      return single(parseInt(m[0], 16));
    }
    if (c === "u") return single(this.unicodeEscape());
    if ((c === "p" || c === "P") && this.peek() === "{") {
      const end = this.src.indexOf("}", this.i);
      if (end < 0) throw new Unsupported("an unclosed \\p{");
      const set = propertyRanges(this.src.slice(this.i + 1, end));
      this.i = end + 1;
      return c === "p" ? set : complement(set);
    }
    // \b, \B, backreferences, \k<…> and anything u-mode refuses.
    throw new Unsupported(`the escape \\${c}`);
  }

  private unicodeEscape(): number {
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(this.src.slice(this.i));
    if (braced) {
      this.i += braced[0].length;
      const cp = parseInt(braced[1]!, 16);
      if (cp > MAX_CODE_POINT) throw new Unsupported("a code point beyond U+10FFFF");
      return cp;
    }
    const m = /^[0-9A-Fa-f]{4}/.exec(this.src.slice(this.i));
    if (!m) throw new Unsupported("a bad \\u escape");
    this.i += 4;
    const unit = parseInt(m[0], 16);
    // A surrogate pair written as two escapes is one code point in u-mode.
    const low = /^\\u([dD][c-fC-F][0-9A-Fa-f]{2})/.exec(this.src.slice(this.i));
    if (unit >= 0xd800 && unit <= 0xdbff && low) {
      this.i += 6;
      return 0x10000 + ((unit - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00);
    }
    return unit;
  }
}

const SURROGATES = [0xd800, 0xdfff] as const;
/** Every code point but the surrogates, in order, as one string (built once, when a \p{…} is first met). */
let everyCodePoint: string | undefined;
const propertyMemo = new Map<string, Ranges>();

/** UTF-16 offset in everyCodePoint -> the code point there. */
function codePointAt(index: number): number {
  if (index < SURROGATES[0]) return index;
  const bmpRest = 0x10000 - (SURROGATES[1] + 1);
  if (index < SURROGATES[0] + bmpRest) return index + (SURROGATES[1] - SURROGATES[0] + 1);
  return 0x10000 + (index - SURROGATES[0] - bmpRest) / 2;
}

/**
 * The code points of a Unicode property (`L`, `Letter`, `Script=Greek`, …), as this engine's
 * RegExp knows them: each run of matches over every code point is one range. A name the engine
 * refuses is unsupported. Lone surrogates are tried one by one.
 */
function propertyRanges(name: string): Ranges {
  const known = propertyMemo.get(name);
  if (known) return known;
  let re: RegExp;
  try {
    re = new RegExp(`\\p{${name}}+`, "gu");
  } catch {
    throw new Unsupported(`the property \\p{${name}}`);
  }
  if (everyCodePoint === undefined) {
    // UTF-16 units written directly: a fraction of the time String.fromCodePoint takes
    const gap = SURROGATES[1] - SURROGATES[0] + 1;
    const units = new Uint16Array(0x10000 - gap + 2 * (MAX_CODE_POINT + 1 - 0x10000));
    let at = 0;
    for (let cp = 0; cp < 0x10000; cp++) if (cp < SURROGATES[0] || cp > SURROGATES[1]) units[at++] = cp;
    for (let cp = 0x10000; cp <= MAX_CODE_POINT; cp++) {
      units[at++] = 0xd800 + ((cp - 0x10000) >> 10);
      units[at++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    }
    everyCodePoint = new TextDecoder("utf-16le").decode(units);
  }
  const ranges: Array<[number, number]> = [];
  for (const m of everyCodePoint.matchAll(re)) {
    const first = codePointAt(m.index);
    const last = codePointAt(m.index + m[0].length) - 1;
    ranges.push([first, last]);
  }
  const one = new RegExp(`^\\p{${name}}$`, "u");
  for (let cp = SURROGATES[0]; cp <= SURROGATES[1]; cp++) if (one.test(String.fromCharCode(cp))) ranges.push([cp, cp]);
  // a run that spans the surrogate gap ends before it and starts again after it
  const split = ranges.flatMap(([a, b]): Array<[number, number]> =>
    a < SURROGATES[0] && b > SURROGATES[1]
      ? [
          [a, SURROGATES[0] - 1],
          [SURROGATES[1] + 1, b],
        ]
      : [[a, b]],
  );
  const set = normalizeRanges(split);
  propertyMemo.set(name, set);
  return set;
}

function single(cp: number): Ranges {
  return [[cp, cp]];
}

/** Thompson NFA: edges on code point sets, epsilon edges, and the two anchors as guarded epsilons. */
interface Nfa {
  chars: Array<Array<{ set: Ranges; to: number }>>;
  eps: number[][];
  begin: number[][];
  end: number[][];
  start: number;
  accept: number;
}

function buildNfa(root: Node): Nfa {
  const nfa: Nfa = { chars: [], eps: [], begin: [], end: [], start: 0, accept: 0 };
  const state = (): number => {
    if (nfa.eps.length >= MAX_NFA_STATES) throw new Unsupported("the automaton is too large");
    nfa.chars.push([]);
    nfa.eps.push([]);
    nfa.begin.push([]);
    nfa.end.push([]);
    return nfa.eps.length - 1;
  };
  const build = (node: Node, from: number, to: number): void => {
    switch (node.kind) {
      case "chars":
        nfa.chars[from]!.push({ set: node.set, to });
        return;
      case "begin":
        nfa.begin[from]!.push(to);
        return;
      case "end":
        nfa.end[from]!.push(to);
        return;
      case "alt":
        for (const item of node.items) build(item, from, to);
        return;
      case "seq": {
        let at = from;
        node.items.forEach((item, i) => {
          const next = i === node.items.length - 1 ? to : state();
          build(item, at, next);
          at = next;
        });
        if (node.items.length === 0) nfa.eps[from]!.push(to);
        return;
      }
      case "repeat": {
        let at = from;
        for (let k = 0; k < node.min; k++) {
          const next = state();
          build(node.node, at, next);
          at = next;
        }
        if (node.max === Infinity) {
          const loop = state();
          nfa.eps[at]!.push(loop);
          const back = state();
          build(node.node, loop, back);
          nfa.eps[back]!.push(loop);
          nfa.eps[loop]!.push(to);
          return;
        }
        for (let k = node.min; k < node.max; k++) {
          const next = state();
          nfa.eps[at]!.push(to);
          build(node.node, at, next);
          at = next;
        }
        nfa.eps[at]!.push(to);
        return;
      }
    }
  };
  // Unanchored search: any prefix, the pattern, any suffix.
  const start = state();
  const patternStart = state();
  const patternEnd = state();
  const accept = state();
  nfa.chars[start]!.push({ set: ANY, to: start });
  nfa.eps[start]!.push(patternStart);
  build(root, patternStart, patternEnd);
  nfa.eps[patternEnd]!.push(accept);
  nfa.chars[accept]!.push({ set: ANY, to: accept });
  nfa.start = start;
  nfa.accept = accept;
  return nfa;
}

/**
 * Splits the code points into classes no edge of either automaton tells apart: the intervals
 * between the sets' boundaries, those that every set holds or lacks alike merged into one class
 * (each class is represented by one of its code points).
 */
function alphabet(nfas: readonly Nfa[]): number[] {
  const cuts = new Set<number>([0, MAX_CODE_POINT + 1]);
  const sets = new Map<string, Ranges>();
  for (const nfa of nfas)
    for (const edges of nfa.chars)
      for (const { set } of edges) {
        sets.set(set.map(([lo, hi]) => `${lo}-${hi}`).join(","), set);
        for (const [lo, hi] of set) {
          cuts.add(lo);
          cuts.add(hi + 1);
        }
      }
  const points = [...cuts].sort((x, y) => x - y);
  const distinct = [...sets.values()];
  const bySignature = new Map<string, number>();
  for (let k = 0; k + 1 < points.length; k++) {
    const cp = points[k]!;
    const signature = distinct.map((set) => (contains(set, cp) ? "1" : "0")).join("");
    if (!bySignature.has(signature)) bySignature.set(signature, cp);
  }
  return [...bySignature.values()];
}

function contains(set: Ranges, cp: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = set[mid]!;
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The subset-construction DFA of one NFA, built lazily over the shared alphabet classes. */
class Dfa {
  private readonly ids = new Map<string, number>();
  private readonly sets: number[][] = [];
  private readonly accepting: boolean[] = [];
  private readonly next: Array<Map<number, number>> = [];
  readonly start: number;

  constructor(
    private readonly nfa: Nfa,
    /** One code point per class. */
    private readonly classes: readonly number[],
  ) {
    this.start = this.intern(this.closure([nfa.start], true, false), true);
  }

  accepts(state: number): boolean {
    return this.accepting[state]!;
  }

  step(state: number, cls: number): number {
    const known = this.next[state]!.get(cls);
    if (known !== undefined) return known;
    const cp = this.classes[cls]!;
    const moved = new Set<number>();
    for (const s of this.sets[state]!)
      for (const edge of this.nfa.chars[s]!) if (contains(edge.set, cp)) moved.add(edge.to);
    const id = this.intern(this.closure([...moved], false, false), false);
    this.next[state]!.set(cls, id);
    return id;
  }

  private intern(states: number[], atStart: boolean): number {
    const key = (atStart ? "^" : "") + states.join(",");
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.sets.length;
      this.ids.set(key, id);
      this.sets.push(states);
      this.accepting.push(this.closure(states, atStart, true).includes(this.nfa.accept));
      this.next.push(new Map());
    }
    return id;
  }

  /** Epsilon closure; `^` edges only before the first character, `$` edges only after the last. */
  private closure(from: readonly number[], atStart: boolean, atEnd: boolean): number[] {
    const seen = new Set(from);
    const stack = [...from];
    while (stack.length > 0) {
      const s = stack.pop()!;
      const targets = [...this.nfa.eps[s]!, ...(atStart ? this.nfa.begin[s]! : []), ...(atEnd ? this.nfa.end[s]! : [])];
      for (const t of targets)
        if (!seen.has(t)) {
          seen.add(t);
          stack.push(t);
        }
    }
    return [...seen].sort((x, y) => x - y);
  }
}

/** String lengths (in code points) both sides allow beside the pattern: minLength and maxLength. */
export interface LengthWindow {
  min: number;
  max: number;
}

/**
 * Breadth-first over the product of the two DFAs: whether some string passes `a` and fails `b`
 * (lost), and whether some string passes `b` and fails `a` (gained); with a window, only strings of
 * a length inside it count (the length walks with the pair, capped where it stops mattering).
 */
function differences(a: Dfa, b: Dfa, classCount: number, window?: LengthWindow): { lost: boolean; gained: boolean } {
  const min = window?.min ?? 0;
  const max = window?.max ?? Infinity;
  const cap = max === Infinity ? min : max;
  const seen = new Set<string>([`${a.start},${b.start},0`]);
  const queue: Array<[number, number, number]> = [[a.start, b.start, 0]];
  let lost = false;
  let gained = false;
  for (let head = 0; head < queue.length && !(lost && gained); head++) {
    const [x, y, len] = queue[head]!;
    if (len >= min) {
      if (a.accepts(x) && !b.accepts(y)) lost = true;
      if (b.accepts(y) && !a.accepts(x)) gained = true;
    }
    if (len >= max) continue;
    const next = Math.min(len + 1, cap);
    for (let c = 0; c < classCount; c++) {
      const triple: [number, number, number] = [a.step(x, c), b.step(y, c), next];
      const key = triple.join(",");
      if (seen.has(key)) continue;
      if (seen.size >= MAX_PRODUCT_STATES) throw new Unsupported("the automata are too large to compare");
      seen.add(key);
      queue.push(triple);
    }
  }
  return { lost, gained };
}

const memo = new Map<string, PatternRelation>();

/**
 * How the strings `before` accepts relate to those `after` accepts ("subset": after accepts fewer),
 * among the strings of a length inside `window` when one is given (a pattern equal to another only
 * under the maxLength beside it is equal there).
 */
export function comparePatterns(before: string, after: string, window?: LengthWindow): PatternRelation {
  if (before === after) return "equal";
  const whole = memoized(before, after, undefined);
  if (!window || (window.min === 0 && window.max === Infinity) || whole === "equal" || whole === "unknown")
    return whole;
  const within = memoized(before, after, window);
  // beyond the size limits with the window: the relation without it still holds for the strings inside
  return within === "unknown" ? whole : within;
}

function memoized(before: string, after: string, window: LengthWindow | undefined): PatternRelation {
  const key = `${before}\0${after}\0${window ? `${window.min},${window.max}` : ""}`;
  let relation = memo.get(key);
  if (relation === undefined) {
    relation = relate(before, after, window);
    memo.set(key, relation);
  }
  return relation;
}

function relate(before: string, after: string, window: LengthWindow | undefined): PatternRelation {
  try {
    const nfas = [buildNfa(new Parser(before).parse()), buildNfa(new Parser(after).parse())] as const;
    const classes = alphabet(nfas);
    const [b, a] = nfas.map((n) => new Dfa(n, classes));
    const { lost, gained } = differences(b!, a!, classes.length, window);
    if (!lost && !gained) return "equal";
    if (lost && gained) return "different";
    return lost ? "subset" : "superset";
  } catch (e) {
    if (e instanceof Unsupported) return "unknown";
    throw e;
  }
}

/** Whether every string `sub` accepts also passes `sup` (false when unknown). */
export function patternIncludes(sup: string, sub: string): boolean {
  const r = comparePatterns(sup, sub);
  return r === "equal" || r === "subset";
}
