/**
 * bench/chart.svg, drawn from results.json: one bar per goal (its median ratio, with a p10..p90
 * whisker) and its goal line. Each row has its own linear scale from 0, so the line sits where the
 * goal is on that row; green bars meet their goal, red ones do not.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Goal } from "./types";

const WIDTH = 960;
const LABEL = 370;
const ROW = 38;
const TOP = 58;
const BAR_W = WIDTH - LABEL - 150;

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function num(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
}

export function drawChart(goals: readonly Goal[], subtitle: string): string {
  const height = TOP + goals.length * ROW + 40;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="600" fill="#111">mnote-tools benchmarks: each ratio against its goal</text>`,
    `<text x="16" y="44" fill="#555">${esc(subtitle)}</text>`,
  ];
  goals.forEach((g, i) => {
    const y = TOP + i * ROW;
    const hi = Math.max(g.value, g.goal, g.figure.p90) * 1.15;
    const x = (v: number) => LABEL + (Math.max(0, v) / hi) * BAR_W;
    const color = g.met ? "#2e7d32" : "#c62828";
    out.push(`<text x="16" y="${y + 17}" fill="#222" font-size="12">${esc(g.label)}</text>`);
    out.push(`<rect x="${LABEL}" y="${y + 4}" width="${BAR_W}" height="20" fill="#f3f3f3"/>`);
    out.push(
      `<rect x="${LABEL}" y="${y + 6}" width="${(x(g.value) - LABEL).toFixed(1)}" height="16" fill="${color}" opacity="0.85"/>`,
    );
    // p10..p90 whisker
    out.push(
      `<line x1="${x(g.figure.p10).toFixed(1)}" x2="${x(g.figure.p90).toFixed(1)}" y1="${y + 14}" y2="${y + 14}" stroke="#111" stroke-width="1.5"/>`,
    );
    for (const v of [g.figure.p10, g.figure.p90])
      out.push(
        `<line x1="${x(v).toFixed(1)}" x2="${x(v).toFixed(1)}" y1="${y + 9}" y2="${y + 19}" stroke="#111" stroke-width="1.5"/>`,
      );
    // goal line
    out.push(
      `<line x1="${x(g.goal).toFixed(1)}" x2="${x(g.goal).toFixed(1)}" y1="${y + 1}" y2="${y + 27}" stroke="#1565c0" stroke-width="2.5" stroke-dasharray="4 2"/>`,
    );
    out.push(
      `<text x="${LABEL + BAR_W + 8}" y="${y + 17}" fill="${color}" font-weight="600">${num(g.value)} ${g.met ? "met" : "missed"}</text>`,
    );
    out.push(
      `<text x="${LABEL + BAR_W + 84}" y="${y + 17}" fill="#1565c0">${g.op === "<=" ? "≤" : "≥"} ${g.goal}</text>`,
    );
  });
  const legendY = TOP + goals.length * ROW + 22;
  out.push(
    `<line x1="16" x2="40" y1="${legendY - 4}" y2="${legendY - 4}" stroke="#1565c0" stroke-width="2.5" stroke-dasharray="4 2"/>`,
  );
  out.push(`<text x="46" y="${legendY}" fill="#333">goal</text>`);
  out.push(`<line x1="96" x2="126" y1="${legendY - 4}" y2="${legendY - 4}" stroke="#111" stroke-width="1.5"/>`);
  out.push(`<text x="132" y="${legendY}" fill="#333">p10..p90 over rounds</text>`);
  out.push(`<text x="300" y="${legendY}" fill="#333">bar: median; each row on its own linear scale from 0</text>`);
  out.push("</svg>");
  return out.join("\n") + "\n";
}

export function writeChart(resultsPath: string, chartPath: string): void {
  const results = JSON.parse(readFileSync(resultsPath, "utf8")) as {
    goals: Goal[];
    machine: { model: string; cpus: number; node: string; date: string };
    options?: { quick?: boolean };
  };
  const m = results.machine;
  writeFileSync(
    chartPath,
    drawChart(
      results.goals,
      `${m.cpus} × ${m.model}, Node ${m.node}, ${m.date.slice(0, 16).replace("T", " ")} UTC${results.options?.quick ? ", --quick" : ""}`,
    ),
  );
}
