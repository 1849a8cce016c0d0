/**
 * A small line diff (Myers' O((N+M)·D) algorithm) that prints hunks with a little context. Enough
 * to show what moved in a generated file; output is capped so a rewrite never floods the log.
 */
type Op = { kind: " " | "-" | "+"; line: string; a: number; b: number };

function myers(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  return undefined;
}

function backtrack(
  trace: Int32Array[],
  a: readonly string[],
  b: readonly string[],
  offset: number,
  dEnd: number,
): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ kind: " ", line: a[--x]!, a: x, b: --y });
    if (x === prevX) ops.push({ kind: "+", line: b[--y]!, a: x, b: y });
    else ops.push({ kind: "-", line: a[--x]!, a: x, b: y });
  }
  while (x > 0 && y > 0) ops.push({ kind: " ", line: a[--x]!, a: x, b: --y });
  return ops.reverse();
}

/** Shortens a long line to the part around column `at`. */
function clip(line: string, at: number, width = 160): string {
  if (line.length <= width) return line;
  const start = Math.max(0, Math.min(at - width / 2, line.length - width));
  return (start > 0 ? "…" : "") + line.slice(start, start + width) + (start + width < line.length ? "…" : "");
}

function firstDifference(x: string, y: string): number {
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

export function lineDiff(
  before: string,
  after: string,
  options: { context?: number; maxLines?: number; lineOffset?: number } = {},
): string {
  const context = options.context ?? 2;
  const maxLines = options.maxLines ?? 40;
  const offset = options.lineOffset ?? 0;
  const a = before.split("\n");
  const b = after.split("\n");
  const ops = myers(a, b, 2000);
  if (!ops) return `(${a.length} lines -> ${b.length} lines; too many changes to show)`;
  const changed = ops.map((o, i) => (o.kind === " " ? -1 : i)).filter((i) => i >= 0);
  const keep = new Set<number>();
  for (const i of changed)
    for (let j = Math.max(0, i - context); j <= Math.min(ops.length - 1, i + context); j++) keep.add(j);
  const out: string[] = [];
  let previous = -2;
  for (let i = 0; i < ops.length; i++) {
    if (!keep.has(i)) continue;
    const op = ops[i]!;
    if (i !== previous + 1) out.push(`@@ line ${op.a + 1 + offset} @@`);
    previous = i;
    // point long changed lines at the column where they differ from their counterpart
    const partner =
      op.kind === "-"
        ? ops.slice(i + 1).find((o) => o.kind === "+")
        : op.kind === "+"
          ? [...ops.slice(0, i)].reverse().find((o) => o.kind === "-")
          : undefined;
    const at = partner ? firstDifference(op.line, partner.line) : 0;
    out.push(`${op.kind} ${clip(op.line, at)}`);
  }
  if (out.length > maxLines)
    return [...out.slice(0, maxLines), `… (${out.length - maxLines} more diff lines)`].join("\n");
  return out.join("\n");
}
