/**
 * Section 7, the idempotency store: dispatch of mnote.page.save with the Redis store (the
 * scale-out setup, on the machine's Redis at 127.0.0.1:6379 db 11) against the embedded store
 * (a table in the runtime's SQLite state), both on an in-memory reference kernel, interleaved in
 * one process. Fresh writes (a new key per call: claim, kernel, complete) and replays (a key
 * already done: answered from the store).
 */
import { benchApproval } from "./approval";
import { readFileSync } from "node:fs";
import { runWorker } from "./child";
import { consume, measureSliced, type MicroTask, type SlicedSamples } from "./micro";
import { demoSeedPath } from "./paths";
import { ALL_SCOPES, benchSeed, IDS, saveTemplates, type SaveTemplate } from "./requests";
import { figure, pairedRatio } from "./stats";
import type { FigureTree, SectionContext, SectionResult } from "./types";

const POOL = 128;
const REDIS_URL = process.env.MNOTE_BENCH_REDIS ?? "redis://127.0.0.1:6379/11";
const STORES = ["embedded", "redis"] as const;

interface WorkerOptions {
  slices: number;
  sliceTime: number;
  warmupTime: number;
}

async function runtimeWith(store: (typeof STORES)[number]) {
  const { createRuntime } = await import("../runtime/runtime");
  const { seedKernel } = await import("../kernel/seed");
  const { RedisIdempotencyStore } = await import("../runtime/state/redis-idempotency-store");
  let idempotency;
  if (store === "redis") {
    const redis = new RedisIdempotencyStore({ url: REDIS_URL, prefix: `bench${process.pid}` });
    await redis.ping();
    idempotency = redis;
  }
  const runtime = createRuntime({
    kernel: { kind: "embedded", path: ":memory:" },
    // the bench measures the calls themselves: its loops would use a budget up (docs/RELIABILITY.md)
    budgets: null,
    statePath: ":memory:",
    idempotency,
    approval: benchApproval(),
  });
  seedKernel(runtime.embeddedKernel!, benchSeed(JSON.parse(readFileSync(demoSeedPath, "utf8"))));
  await runtime.grants.put({
    sessionId: IDS.saveSession,
    workspaceId: IDS.workspaceId,
    documentId: IDS.saveDocument,
    actorId: IDS.actorId,
    capabilityScope: [...ALL_SCOPES],
    expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
  });
  return runtime;
}

export async function worker(_contender: string, options: WorkerOptions): Promise<Record<string, SlicedSamples>> {
  const runtimes = { embedded: await runtimeWith("embedded"), redis: await runtimeWith("redis") };
  const templates = saveTemplates(POOL);
  let keys = 0;
  const text = (t: SaveTemplate, key: string) => t.head + JSON.stringify(key) + t.tail;
  const tasks: MicroTask[] = [];
  for (const store of STORES) {
    const dispatch = runtimes[store].dispatcher.dispatch;
    // keys done once, for the replay task
    const done: string[] = [];
    for (let i = 0; i < POOL; i++) {
      const key = `done-${store}-${i}`;
      const r = await dispatch(text(templates[i]!, key));
      if (!r.ok) throw new Error(`setup write failed: ${JSON.stringify(r.error)}`);
      done.push(key);
    }
    let fi = 0;
    let ri = 0;
    tasks.push({
      name: `${store}/fresh`,
      batch: 8,
      async: true,
      fn: async () => {
        for (let k = 0; k < 8; k++) {
          const r = await dispatch(text(templates[fi++ % POOL]!, `fresh-${store}-${++keys}`));
          if (!r.ok || r.audit.replayed) throw new Error(`fresh write failed: ${JSON.stringify(r)}`);
          consume(r);
        }
      },
    });
    tasks.push({
      name: `${store}/replay`,
      batch: 8,
      async: true,
      fn: async () => {
        for (let k = 0; k < 8; k++) {
          const i = ri++ % POOL;
          const r = await dispatch(text(templates[i]!, done[i]!));
          if (!r.ok || !r.audit.replayed) throw new Error(`not a replay: ${JSON.stringify(r)}`);
          consume(r);
        }
      },
    });
  }
  try {
    return await measureSliced(tasks, options);
  } finally {
    await runtimes.embedded.close();
    await runtimes.redis.close();
  }
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const rounds = ctx.smoke ? 1 : ctx.quick ? 2 : 3;
  const options: WorkerOptions = ctx.smoke
    ? { slices: 1, sliceTime: 5, warmupTime: 5 }
    : ctx.quick
      ? { slices: 4, sliceTime: 40, warmupTime: 150 }
      : { slices: 8, sliceTime: 60, warmupTime: 300 };
  const perSlice = new Map<string, number[]>();
  const samples = new Map<string, number[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      const result = await runWorker<Record<string, SlicedSamples>>("store", "all", options);
      for (const [task, r] of Object.entries(result)) {
        perSlice.set(task, [...(perSlice.get(task) ?? []), ...r.perSlice]);
        samples.set(task, [...(samples.get(task) ?? []), ...r.nsPerOp]);
      }
      ctx.log(`store: round ${round + 1}/${rounds} done`);
    }
  } catch (e) {
    return {
      title: "Idempotency store: Redis vs embedded",
      notes: [
        `Skipped: ${(e as Error).message.split("\n").slice(0, 2).join(" ")} (the section needs Redis at ${REDIS_URL}).`,
      ],
      figures: {},
      ratios: {},
      goals: [],
      seconds: (Date.now() - started) / 1000,
    };
  }
  const us = (key: string) =>
    figure(
      samples.get(key)!.map((ns) => ns / 1000),
      "µs/op",
      rounds,
    );
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  for (const kind of ["fresh", "replay"] as const) {
    figures[kind] = { embedded: us(`embedded/${kind}`), redis: us(`redis/${kind}`) };
    ratios[kind] = { "redis/embedded": pairedRatio(perSlice.get(`redis/${kind}`)!, perSlice.get(`embedded/${kind}`)!) };
  }
  return {
    title: "Idempotency store: Redis vs embedded (dispatch of mnote.page.save)",
    notes: [
      "µs per call (lower is better): dispatch of a page.save request text on an in-memory reference kernel, with the idempotency records in the embedded store (the runtime's SQLite state, in memory here) or in Redis (loopback, one Lua script per claim and per completion).",
      "fresh: a new key per call (claim, kernel transaction, complete). replay: a key already done, answered from the store without the kernel.",
      `Interleaved in ${rounds} processes of ${options.slices} slices of ${options.sliceTime} ms; the ratio is per slice. No goal: the figure says what sharing the records across instances costs per write.`,
    ],
    figures,
    ratios,
    goals: [],
    seconds: (Date.now() - started) / 1000,
  };
}
