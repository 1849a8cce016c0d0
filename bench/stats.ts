/**
 * Summaries of samples: every figure in results.json is {median, p10, p90, runs, unit}, with
 * quantiles interpolated linearly between order statistics (the same rule tinybench uses).
 */

export interface Figure {
  median: number;
  p10: number;
  p90: number;
  /** How many samples the quantiles are taken over. */
  runs: number;
  unit: string;
  /** Separate processes (rounds) the samples come from, when more than one. */
  rounds?: number;
  /** The 99th percentile, where the tail matters (HTTP latency). */
  p99?: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (at - lo);
}

export function figure(samples: readonly number[], unit: string, rounds?: number): Figure {
  const sorted = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const out: Figure = {
    median: round(quantile(sorted, 0.5)),
    p10: round(quantile(sorted, 0.1)),
    p90: round(quantile(sorted, 0.9)),
    runs: sorted.length,
    unit,
  };
  if (rounds !== undefined) out.rounds = rounds;
  return out;
}

/** Four significant digits: enough for a benchmark, short in JSON. */
export function round(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const digits = Math.max(0, 3 - Math.floor(Math.log10(Math.abs(x))));
  return Number(x.toFixed(Math.min(digits, 6)));
}

/**
 * A ratio a/b from paired rounds: round i of a and round i of b ran side by side, so each round
 * gives one ratio and the noise the two share cancels. Quantiles are over those per-round ratios.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): Figure {
  const n = Math.min(a.length, b.length);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) ratios.push(a[i]! / b[i]!);
  return figure(ratios, "ratio");
}

/** Fisher-Yates, in place. */
export function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

export function medianOf(samples: readonly number[]): number {
  return quantile(
    [...samples].sort((a, b) => a - b),
    0.5,
  );
}
