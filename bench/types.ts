/** The shapes results.json is made of. */
import type { Figure } from "./stats";

export interface Goal {
  id: string;
  label: string;
  /** The measured ratio (median of per-round ratios). */
  value: number;
  goal: number;
  op: "<=" | ">=";
  met: boolean;
  /** The ratio's spread: median, p10, p90 over rounds. */
  figure: Figure;
}

/** Nested records of figures: { case: { contender: Figure } }. */
export interface FigureTree {
  [key: string]: Figure | FigureTree;
}

export interface SectionResult {
  title: string;
  /** What each row means and how it was taken (also shown in docs/BENCHMARKS.md). */
  notes: string[];
  figures: FigureTree;
  ratios: FigureTree;
  goals: Goal[];
  extra?: Record<string, unknown>;
  /** Lines printed under the section's table (shares, growth). */
  summary?: string[];
  /**
   * Correctness checks that failed (a contender answering unlike the contract, wrong response
   * bodies): the run still completes and writes everything, then says so loudly and exits 1.
   */
  failures?: string[];
  seconds: number;
}

export interface SectionContext {
  quick: boolean;
  /** Every step once on a tiny budget, for its correctness checks (CI): figures mean nothing. */
  smoke?: boolean;
  log(line: string): void;
}

export function isFigure(x: unknown): x is Figure {
  return typeof x === "object" && x !== null && "median" in x && "unit" in x;
}

export function goal(id: string, label: string, figure: Figure, op: "<=" | ">=", target: number): Goal {
  const value = figure.median;
  return { id, label, value, goal: target, op, met: op === "<=" ? value <= target : value >= target, figure };
}
