/**
 * The table `npm run bench` prints (every figure and ratio of every section, then the goals), and
 * the same as Markdown for docs/BENCHMARKS.md: `node dist/bench/report.js` prints it from
 * bench/results.json, and `node dist/bench/report.js --doc docs/BENCHMARKS.md` rewrites the doc's
 * generated blocks with it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resultsPath } from "./paths";
import type { Figure } from "./stats";
import { isFigure, type FigureTree, type Goal, type SectionResult } from "./types";

export function flatten(tree: FigureTree, prefix = ""): Array<[string, Figure]> {
  const out: Array<[string, Figure]> = [];
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix} / ${key}` : key;
    if (isFigure(value)) out.push([path, value]);
    else out.push(...flatten(value, path));
  }
  return out;
}

function fmt(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return "-";
  const a = Math.abs(x);
  if (a >= 1000) return x.toFixed(0);
  if (a >= 100) return x.toFixed(1);
  if (a >= 10) return x.toFixed(2);
  return x.toFixed(3);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function figureRows(tree: FigureTree): string[][] {
  return flatten(tree).map(([path, f]) => [
    path,
    fmt(f.median),
    fmt(f.p10),
    fmt(f.p90),
    f.p99 === undefined ? "" : fmt(f.p99),
    f.unit,
    String(f.runs),
  ]);
}

export function sectionTable(s: SectionResult): string {
  const header = ["", "median", "p10", "p90", "p99", "unit", "runs"];
  const parts = [`== ${s.title} (${s.seconds.toFixed(0)} s)`, table(header, figureRows(s.figures))];
  const ratios = figureRows(s.ratios);
  if (ratios.length > 0) parts.push(table(["ratio", "median", "p10", "p90", "", "unit", "runs"], ratios));
  if (s.summary && s.summary.length > 0) parts.push(s.summary.join("\n"));
  return parts.join("\n");
}

export function goalsTable(goals: readonly Goal[]): string {
  return table(
    ["goal", "measured", "p10..p90", "target", "met"],
    goals.map((g) => [
      g.label,
      fmt(g.value),
      `${fmt(g.figure.p10)}..${fmt(g.figure.p90)}`,
      `${g.op} ${g.goal}`,
      g.met ? "yes" : "NO",
    ]),
  );
}

function md(rows: string[][], header: string[], align: string[]): string {
  return [`| ${header.join(" | ")} |`, `| ${align.join(" | ")} |`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
}

/** The 1-minute load average over a section's run, "start–end", when results.json has it. */
function loadOf(s: Measured | undefined): string {
  return s?.loadavg1m ? `${s.loadavg1m.start}–${s.loadavg1m.end}` : "";
}

export function goalsMarkdown(goals: readonly Goal[], sections: Record<string, Measured> = {}): string {
  return md(
    goals.map((g) => [
      g.label,
      fmt(g.value),
      `${fmt(g.figure.p10)} .. ${fmt(g.figure.p90)}`,
      `${g.op === "<=" ? "≤" : "≥"} ${g.goal}`,
      g.met ? "met" : "**missed**",
      loadOf(sections[g.id.split(".")[0]!]),
    ]),
    ["goal", "median", "p10 .. p90", "target", "", "load"],
    ["---", "---:", "---:", "---:", "---", "---:"],
  );
}

/** A section's figures and ratios as Markdown tables (p99 only where a figure has one). */
export function sectionMarkdown(s: Measured): string {
  const rows = flatten(s.figures);
  const withP99 = rows.some(([, f]) => f.p99 !== undefined);
  const out = [
    md(
      rows.map(([path, f]) => [
        path,
        fmt(f.median),
        fmt(f.p10),
        fmt(f.p90),
        ...(withP99 ? [f.p99 === undefined ? "" : fmt(f.p99)] : []),
        f.unit,
        String(f.runs),
      ]),
      ["", "median", "p10", "p90", ...(withP99 ? ["p99"] : []), "unit", "runs"],
      ["---", "---:", "---:", "---:", ...(withP99 ? ["---:"] : []), "---", "---:"],
    ),
  ];
  const ratios = flatten(s.ratios);
  if (ratios.length > 0)
    out.push(
      md(
        ratios.map(([path, f]) => [path, fmt(f.median), fmt(f.p10), fmt(f.p90), String(f.runs)]),
        ["ratio", "median", "p10", "p90", "runs"],
        ["---", "---:", "---:", "---:", "---:"],
      ),
    );
  if (s.summary?.length) out.push(s.summary.map((l) => `- ${l}`).join("\n"));
  if (s.loadavg1m)
    out.push(
      `Measured ${s.date?.slice(0, 10) ?? ""}${s.quick ? " (--quick)" : ""}; load average (1 min) ${s.loadavg1m.start} at the start, ${s.loadavg1m.end} at the end, on the machine described above.`,
    );
  return out.join("\n\n");
}

/** A section as results.json keeps it: its result and when and under what load it ran. */
export type Measured = SectionResult & { date?: string; quick?: boolean; loadavg1m?: { start: number; end: number } };

interface ResultsFile {
  sections: Record<string, Measured>;
  goals: Goal[];
}

/** Every table, one after another. */
export function markdown(results: ResultsFile): string {
  const out = [goalsMarkdown(results.goals, results.sections)];
  for (const [name, s] of Object.entries(results.sections)) out.push(`### ${name}: ${s.title}`, sectionMarkdown(s));
  return out.join("\n\n") + "\n";
}

/**
 * A document with its generated blocks replaced: `<!-- bench:goals -->` and `<!-- bench:<section> -->`,
 * each up to the next `<!-- /bench -->`.
 */
export function updateDoc(text: string, results: ResultsFile): string {
  return text.replace(
    /(<!-- bench:(\w+) -->\n)[\s\S]*?(<!-- \/bench -->)/g,
    (whole, open: string, name: string, close: string) => {
      if (name === "goals") return `${open}${goalsMarkdown(results.goals, results.sections)}\n${close}`;
      const s = results.sections[name];
      return s ? `${open}${sectionMarkdown(s)}\n${close}` : whole;
    },
  );
}

if (require.main === module) {
  const results = JSON.parse(readFileSync(resultsPath, "utf8")) as ResultsFile;
  const doc = process.argv[2] === "--doc" ? process.argv[3] : undefined;
  if (doc) writeFileSync(doc, updateDoc(readFileSync(doc, "utf8"), results));
  else process.stdout.write(markdown(results));
}
