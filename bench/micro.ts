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
  /** Runs before every iteration, outside the timed window (e.g. preparing the next batch's inputs). */
  beforeEach?: () => void;
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

export async function measure(
  tasks: readonly MicroTask[],
  options: MicroOptions,
): Promise<Record<string, MicroSamples>> {
  const bench = new Bench({
    time: options.time,
    warmupTime: options.warmupTime,
    warmupIterations: 8,
    iterations: 16,
    retainSamples: true,
    throws: true,
  });
  for (const t of tasks) {
    const prepare = t.beforeEach;
    bench.add(t.name, t.fn as () => unknown, {
      async: t.async ?? false,
      ...(prepare ? { beforeEach: () => prepare() } : {}),
    });
  }
  await bench.run();
  const out: Record<string, MicroSamples> = {};
  for (const t of tasks) {
    const task = bench.getTask(t.name);
    const result = task?.result as { state: string; latency?: { samples?: number[] }; error?: Error } | undefined;
    if (!result || (result.state !== "completed" && result.state !== "aborted-with-statistics")) {
      throw new Error(`task ${t.name} did not complete: ${result?.state} ${result?.error?.message ?? ""}`);
    }
    const samples = [...(result.latency?.samples ?? [])].map((ms) => (ms * 1e6) / t.batch).sort((a, b) => a - b);
    out[t.name] = {
      nsPerOp: thin(samples, 400),
      median: quantile(samples, 0.5),
      samples: samples.length,
      ops: samples.length * t.batch,
    };
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

export interface SliceOptions {
  /** How many slices: in each, every task runs once for sliceTime ms, in a new shuffled order. */
  slices: number;
  /** ms per task per slice. */
  sliceTime: number;
  /** ms of warm-up per task before the first slice. */
  warmupTime: number;
}

export interface SlicedSamples extends MicroSamples {
  /** The median ns/op of each slice, in slice order: slice i of two tasks ran within moments of each other. */
  perSlice: number[];
}

/**
 * Contenders interleaved in time: the tasks take turns in short slices, each slice a tinybench run
 * of every task in shuffled order, so a ratio of two tasks can be taken slice by slice. On a
 * machine whose speed changes from one second to the next (other work on the cores), this pairing
 * is what keeps a ratio stable; the per-slice ratios show how much it still moves.
 */
export async function measureSliced(
  tasks: readonly MicroTask[],
  options: SliceOptions,
): Promise<Record<string, SlicedSamples>> {
  const all = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  const perSlice = new Map<string, number[]>(tasks.map((t) => [t.name, []]));
  const order = [...tasks];
  if (options.warmupTime > 0) {
    const warm = new Bench({ time: options.warmupTime, warmup: false, iterations: 8, throws: true });
    for (const t of shuffleInPlace(order)) addTask(warm, t);
    await warm.run();
  }
  for (let s = 0; s < options.slices; s++) {
    const bench = new Bench({
      time: options.sliceTime,
      warmup: false,
      iterations: 4,
      retainSamples: true,
      throws: true,
    });
    for (const t of shuffleInPlace(order)) addTask(bench, t);
    await bench.run();
    for (const t of tasks) {
      const samples = samplesOf(bench, t);
      all.get(t.name)!.push(...samples);
      perSlice.get(t.name)!.push(
        quantile(
          [...samples].sort((a, b) => a - b),
          0.5,
        ),
      );
    }
  }
  const out: Record<string, SlicedSamples> = {};
  for (const t of tasks) {
    const sorted = all.get(t.name)!.sort((a, b) => a - b);
    out[t.name] = {
      nsPerOp: thin(sorted, 400),
      median: quantile(sorted, 0.5),
      samples: sorted.length,
      ops: sorted.length * t.batch,
      perSlice: perSlice.get(t.name)!,
    };
  }
  return out;
}

function addTask(bench: Bench, t: MicroTask): void {
  const prepare = t.beforeEach;
  bench.add(t.name, t.fn as () => unknown, {
    async: t.async ?? false,
    ...(prepare ? { beforeEach: () => prepare() } : {}),
  });
}

function samplesOf(bench: Bench, t: MicroTask): number[] {
  const result = bench.getTask(t.name)?.result as
    { state: string; latency?: { samples?: number[] }; error?: Error } | undefined;
  if (!result || (result.state !== "completed" && result.state !== "aborted-with-statistics")) {
    throw new Error(`task ${t.name} did not complete: ${result?.state} ${result?.error?.message ?? ""}`);
  }
  return (result.latency?.samples ?? []).map((ms) => (ms * 1e6) / t.batch);
}

function shuffleInPlace<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
