/**
 * Section stateStores: keyed writes through each state store, as ratios to the embedded one.
 * Dispatch of mnote.page.save on an in-memory reference kernel with the runtime's state (grants and
 * idempotency records) in:
 * - embedded: the SQLite state file (WAL, synchronous NORMAL: the default `--state <file>`);
 * - redis: the idempotency records in Redis (`--store redis://`, MNOTE_BENCH_REDIS or
 *   127.0.0.1:6379/11), grants in the state file;
 * - postgres: everything in PostgreSQL (`--state postgres://`): MNOTE_BENCH_POSTGRES names a
 *   database, else a private server is started here (initdb + pg_ctl in a temp folder, Postgres's
 *   default durability: fsync on, synchronous_commit on).
 * All three interleaved in one process, slice by slice; the ratio is per slice. A store whose
 * server cannot be had is left out with the reason, the others still run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { benchApproval } from "./approval";
import { runWorker } from "./child";
import { consume, measureSliced, type MicroTask, type SlicedSamples } from "./micro";
import { demoSeedPath, repoRoot, scratchDir } from "./paths";
import { ALL_SCOPES, benchSeed, IDS, saveTemplates, type SaveTemplate } from "./requests";
import { figure, pairedRatio } from "./stats";
import type { FigureTree, SectionContext, SectionResult } from "./types";

const POOL = 128;
const REDIS_URL = process.env.MNOTE_BENCH_REDIS ?? "redis://127.0.0.1:6379/11";
type Store = "embedded" | "redis" | "postgres";

interface WorkerOptions {
  slices: number;
  sliceTime: number;
  warmupTime: number;
  /** The stores to run (those whose server answered), and Postgres's URL. */
  stores: Store[];
  postgresUrl?: string;
}

async function runtimeWith(store: Store, options: WorkerOptions) {
  const { createRuntime } = await import("../runtime/runtime");
  const { seedKernel } = await import("../kernel/seed");
  let idempotency;
  let grants;
  if (store === "redis") {
    const { RedisIdempotencyStore } = await import("../runtime/state/redis-idempotency-store");
    const redis = new RedisIdempotencyStore({ url: REDIS_URL, prefix: `bench-state${process.pid}` });
    await redis.ping();
    idempotency = redis;
  } else if (store === "postgres") {
    const { openPgState } = await import("../runtime/state/pg-state");
    const state = await openPgState({ url: options.postgresUrl! });
    idempotency = state.idempotency;
    grants = state.grants;
  }
  const runtime = createRuntime({
    kernel: { kind: "embedded", path: ":memory:" },
    // the bench measures the calls themselves: its loops would use a budget up (docs/RELIABILITY.md)
    budgets: null,
    statePath: store === "postgres" ? ":memory:" : join(scratchDir("state"), "runtime.db"),
    idempotency,
    grants,
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

/** A fresh keyed write per call: claim, the kernel's transaction, complete. */
function freshWrites(store: Store, dispatch: (text: string) => Promise<any>): MicroTask {
  const templates = saveTemplates(POOL);
  const text = (t: SaveTemplate, key: string) => t.head + JSON.stringify(key) + t.tail;
  let i = 0;
  return {
    name: store,
    batch: 8,
    async: true,
    fn: async () => {
      for (let k = 0; k < 8; k++) {
        const r = await dispatch(text(templates[i % POOL]!, `keyed-${store}-${process.pid}-${i++}`));
        if (!r.ok || r.audit.replayed) throw new Error(`${store}: keyed write failed: ${JSON.stringify(r)}`);
        consume(r);
      }
    },
  };
}

export async function worker(_contender: string, options: WorkerOptions): Promise<Record<string, SlicedSamples>> {
  const runtimes = await Promise.all(options.stores.map((s) => runtimeWith(s, options)));
  const tasks = options.stores.map((s, i) => freshWrites(s, runtimes[i]!.dispatcher.dispatch));
  try {
    return await measureSliced(tasks, options);
  } finally {
    for (const r of runtimes) await r.close();
  }
}

/** Which stores can run here: Redis if it answers, Postgres if named or startable. */
async function availableStores(notes: string[]) {
  const stores: Store[] = ["embedded"];
  const { RedisIdempotencyStore } = await import("../runtime/state/redis-idempotency-store");
  const redis = new RedisIdempotencyStore({ url: REDIS_URL });
  try {
    await redis.ping();
    stores.push("redis");
  } catch (e) {
    notes.push(`redis left out: ${(e as Error).message} (MNOTE_BENCH_REDIS names another).`);
  } finally {
    await redis.close();
  }
  let postgresUrl = process.env.MNOTE_BENCH_POSTGRES;
  let stop = async () => undefined;
  if (!postgresUrl) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const server = require(join(repoRoot, "test", "support", "postgres-server.js"));
    const missing = server.postgresMissing();
    if (missing) notes.push(`postgres left out: ${missing} (or MNOTE_BENCH_POSTGRES=postgres://...).`);
    else {
      const started = await server.startPostgres({ durable: true });
      postgresUrl = started.url("postgres") as string;
      stop = () => started.destroy();
    }
  }
  if (postgresUrl) stores.push("postgres");
  return { stores, postgresUrl, stop };
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const rounds = ctx.smoke ? 1 : ctx.quick ? 2 : 3;
  const timing = ctx.smoke
    ? { slices: 1, sliceTime: 5, warmupTime: 5 }
    : ctx.quick
      ? { slices: 4, sliceTime: 40, warmupTime: 150 }
      : { slices: 8, sliceTime: 60, warmupTime: 300 };
  const notes: string[] = [];
  const { stores, postgresUrl, stop } = await availableStores(notes);
  const perSlice = new Map<string, number[]>();
  const samples = new Map<string, number[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      const options: WorkerOptions = { ...timing, stores, postgresUrl };
      const result = await runWorker<Record<string, SlicedSamples>>("stateStores", "all", options);
      for (const [task, r] of Object.entries(result)) {
        perSlice.set(task, [...(perSlice.get(task) ?? []), ...r.perSlice]);
        samples.set(task, [...(samples.get(task) ?? []), ...r.nsPerOp]);
      }
      ctx.log(`stateStores: round ${round + 1}/${rounds} done`);
    }
  } finally {
    await stop();
  }
  const figures: FigureTree = { keyedWrite: {} };
  const ratios: FigureTree = { keyedWrite: {} };
  for (const store of stores) {
    (figures.keyedWrite as FigureTree)[store] = figure(
      samples.get(store)!.map((ns) => ns / 1000),
      "µs/op",
      rounds,
    );
    if (store !== "embedded")
      (ratios.keyedWrite as FigureTree)[`${store}/embedded`] = pairedRatio(
        perSlice.get(store)!,
        perSlice.get("embedded")!,
      );
  }
  return {
    title: "State stores: keyed writes through each store, as ratios to the embedded one",
    notes: [
      "µs per keyed write (lower is better): dispatch of a page.save request with a new idempotency key on an in-memory reference kernel; the store takes the claim and records the outcome (and, for postgres, also serves the session grant).",
      "embedded: the SQLite state file (WAL, synchronous NORMAL). redis: idempotency records in Redis on loopback (no persistence unless configured). postgres: the whole state in PostgreSQL on loopback with its default durability (each claim and completion a committed transaction, fsync on).",
      `Interleaved in ${rounds} processes of ${timing.slices} slices of ${timing.sliceTime} ms; the ratio is per slice. No goal: the figure says what a shared, durable store costs per write.`,
      ...notes,
    ],
    figures,
    ratios,
    goals: [],
    seconds: (Date.now() - started) / 1000,
  };
}
