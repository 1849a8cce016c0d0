/**
 * In-process micro benchmarks on tinybench. A task runs a batch of operations per tinybench
 * iteration, cycling through a pool of distinct inputs (so the engine cannot fold a constant
 * away), and each tinybench sample becomes one ns/op sample: sample time / batch.
 */
import { Bench } from "tinybench";
import { quantile } from "./stats";

export interface MicroTask {
  name: string;
  /** Operations per tinybench iteration. */
  batch: number;
  fn: () => unknown;
  async?: boolean;
}

export interface MicroOptions {
  /** ms of measurement per task. */
  time: number;
  /** ms of warm-up per task. */
  warmupTime: number;
}

export interface MicroSamples {
  /** ns per operation, one per tinybench sample (evenly thinned to at most 400, quantiles kept). */
  nsPerOp: number[];
  /** Median of all samples, ns/op. */
  median: number;
  /** How many tinybench samples were taken. */
  samples: number;
  /** Operations measured in all. */
  ops: number;
}

/** A value the benchmarks write into, so results are used and calls cannot be dropped. */
export const sink = { n: 0, last: undefined as unknown };

export function consume(value: unknown): void {
  sink.last = value;
  if (value) sink.n++;
}

export async function measure(tasks: readonly MicroTask[], options: MicroOptions): Promise<Record<string, MicroSamples>> {
  const bench = new Bench({ time: options.time, warmupTime: options.warmupTime, warmupIterations: 8, iterations: 16, retainSamples: true, throws: true });
  for (const t of tasks) bench.add(t.name, t.fn as () => unknown, { async: t.async ?? false });
  await bench.run();
  const out: Record<string, MicroSamples> = {};
  for (const t of tasks) {
    const task = bench.getTask(t.name);
    const result = task?.result as { state: string; latency?: { samples?: number[] }; error?: Error } | undefined;
    if (!result || (result.state !== "completed" && result.state !== "aborted-with-statistics")) {
      throw new Error(`task ${t.name} did not complete: ${result?.state} ${result?.error?.message ?? ""}`);
    }
    const samples = [...(result.latency?.samples ?? [])].map((ms) => (ms * 1e6) / t.batch).sort((a, b) => a - b);
    out[t.name] = { nsPerOp: thin(samples, 400), median: quantile(samples, 0.5), samples: samples.length, ops: samples.length * t.batch };
  }
  return out;
}

/** At most max values from a sorted list, evenly spaced, first and last kept. */
export function thin(sorted: readonly number[], max: number): number[] {
  if (sorted.length <= max) return [...sorted];
  const out: number[] = [];
  for (let i = 0; i < max; i++) out.push(sorted[Math.round((i * (sorted.length - 1)) / (max - 1))]!);
  return out;
}
