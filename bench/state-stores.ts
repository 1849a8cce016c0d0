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
 *
 * Each store twice: one write at a time, and 8 in flight (the concurrency a shared store is for;
 * SQLite serialises them). Beside them, Postgres's limit: one durable commit round trip (a
 * one-row INSERT committed on its own through the same pool), one at a time and 8 in flight. A
 * keyed write commits twice (its claim before the kernel's write, its outcome after), so its
 * floor on Postgres is two of those.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { benchApproval } from "./approval";
import { runWorker } from "./child";
import { consume, measureSliced, type MicroTask, type SlicedSamples } from "./micro";
import { demoSeedPath, repoRoot, scratchDir } from "./paths";
import { ALL_SCOPES, benchSeed, IDS, saveTemplates, type SaveTemplate } from "./requests";
import { figure, pairedRatio } from "./stats";
import { goal, type FigureTree, type SectionContext, type SectionResult } from "./types";

const POOL = 128;
/** Writes in flight in the concurrent rows. */
const IN_FLIGHT = 8;
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
  let pool: import("pg").Pool | undefined;
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
    pool = state.pool;
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
  return { runtime, pool };
}

/**
 * A fresh keyed write per call (claim, the kernel's transaction, complete): 8 per iteration, one
 * at a time or all 8 in flight at once (name `<store>@8`).
 */
function freshWrites(store: Store, dispatch: (text: string) => Promise<any>, inFlight: 1 | 8): MicroTask {
  const templates = saveTemplates(POOL);
  const text = (t: SaveTemplate, key: string) => t.head + JSON.stringify(key) + t.tail;
  const name = inFlight === 1 ? store : `${store}@${IN_FLIGHT}`;
  let i = 0;
  const one = async () => {
    const r = await dispatch(text(templates[i % POOL]!, `keyed-${name}-${process.pid}-${i++}`));
    if (!r.ok || r.audit.replayed) throw new Error(`${name}: keyed write failed: ${JSON.stringify(r)}`);
    consume(r);
  };
  return {
    name,
    batch: IN_FLIGHT,
    async: true,
    fn:
      inFlight === 1
        ? async () => {
            for (let k = 0; k < IN_FLIGHT; k++) await one();
          }
        : () => Promise.all(Array.from({ length: IN_FLIGHT }, one)),
  };
}

const INSERT_COMMIT = "INSERT INTO mnote_bench_commits (k) VALUES ($1)";

/** Postgres's limit: a one-row INSERT committed on its own (a prepared statement), one at a time or 8 in flight. */
async function commitRoundTrips(pool: import("pg").Pool): Promise<MicroTask[]> {
  await pool.query("CREATE TABLE IF NOT EXISTS mnote_bench_commits (k text PRIMARY KEY)");
  let i = 0;
  const one = async () => {
    const r = await pool.query({ name: "mnote_bench_commit", text: INSERT_COMMIT, values: [`${process.pid}-${i++}`] });
    consume(r.rowCount);
  };
  return [
    {
      name: "commit",
      batch: IN_FLIGHT,
      async: true,
      fn: async () => {
        for (let k = 0; k < IN_FLIGHT; k++) await one();
      },
    },
    {
      name: `commit@${IN_FLIGHT}`,
      batch: IN_FLIGHT,
      async: true,
      fn: () => Promise.all(Array.from({ length: IN_FLIGHT }, one)),
    },
  ];
}

/** The client's CPU (this process, user + system) spent in a task's iterations, per operation. */
function withCpu(task: MicroTask, meter: Map<string, { us: number; ops: number }>): MicroTask {
  const spent = { us: 0, ops: 0 };
  meter.set(task.name, spent);
  const fn = task.fn as () => Promise<unknown>;
  return {
    ...task,
    fn: async () => {
      const start = process.cpuUsage();
      await fn();
      const d = process.cpuUsage(start);
      spent.us += d.user + d.system;
      spent.ops += task.batch;
    },
  };
}

export async function worker(_contender: string, options: WorkerOptions): Promise<Record<string, SlicedSamples>> {
  const opened = await Promise.all(options.stores.map((s) => runtimeWith(s, options)));
  const tasks = options.stores.flatMap((s, i) => [
    freshWrites(s, opened[i]!.runtime.dispatcher.dispatch, 1),
    freshWrites(s, opened[i]!.runtime.dispatcher.dispatch, IN_FLIGHT),
  ]);
  const pool = opened.find((o) => o.pool)?.pool;
  if (pool) tasks.push(...(await commitRoundTrips(pool)));
  const meter = new Map<string, { us: number; ops: number }>();
  try {
    const result = await measureSliced(
      tasks.map((t) => withCpu(t, meter)),
      options,
    );
    // one figure per task and process: the client's CPU per operation, as a pseudo task "cpu:<task>"
    for (const [name, spent] of meter) {
      const ns = (spent.us * 1000) / Math.max(1, spent.ops);
      result[`cpu:${name}`] = { nsPerOp: [ns], median: ns, samples: 1, ops: spent.ops, perSlice: [ns] };
    }
    return result;
  } finally {
    for (const o of opened) await o.runtime.close();
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

/** The figures, the ratios and the goals of the rounds' samples. */
function summary(stores: Store[], samples: Map<string, number[]>, perSlice: Map<string, number[]>, rounds: number) {
  const us = (task: string) =>
    figure(
      samples.get(task)!.map((ns) => ns / 1000),
      "µs/op",
      rounds,
    );
  /** writes/s of a against b, slice by slice: b's time over a's. */
  const throughput = (a: string, b: string) => pairedRatio(perSlice.get(b)!, perSlice.get(a)!);
  const figures: FigureTree = { keyedWrite: {}, [`keyedWrite@${IN_FLIGHT}`]: {}, clientCpu: {} };
  const ratios: FigureTree = { "writes/s": {} };
  const goals = [];
  for (const store of stores) {
    (figures.keyedWrite as FigureTree)[store] = us(store);
    (figures[`keyedWrite@${IN_FLIGHT}`] as FigureTree)[store] = us(`${store}@${IN_FLIGHT}`);
    (figures.clientCpu as FigureTree)[store] = us(`cpu:${store}`);
    (figures.clientCpu as FigureTree)[`${store}@${IN_FLIGHT}`] = us(`cpu:${store}@${IN_FLIGHT}`);
    if (store === "embedded") continue;
    const one = throughput(store, "embedded");
    const many = throughput(`${store}@${IN_FLIGHT}`, `embedded@${IN_FLIGHT}`);
    (ratios["writes/s"] as FigureTree)[`${store}/embedded`] = one;
    (ratios["writes/s"] as FigureTree)[`${store}@${IN_FLIGHT}/embedded@${IN_FLIGHT}`] = many;
    const target = store === "redis" ? 0.8 : 0.3;
    goals.push(
      goal(`stateStores.${store}`, `keyed writes one at a time: ${store} / SQLite, writes/s`, one, ">=", target),
    );
    if (store === "postgres")
      goals.push(
        goal(
          `stateStores.${store}@${IN_FLIGHT}`,
          `keyed writes ${IN_FLIGHT} in flight: ${store} / SQLite, writes/s`,
          many,
          ">=",
          1,
        ),
      );
  }
  if (stores.includes("postgres")) {
    figures.postgresLimit = { commit: us("commit"), [`commit@${IN_FLIGHT}`]: us(`commit@${IN_FLIGHT}`) };
    ratios.postgresLimit = {
      "keyed write / one commit round trip": pairedRatio(perSlice.get("postgres")!, perSlice.get("commit")!),
      [`keyed write / one commit round trip, ${IN_FLIGHT} in flight`]: pairedRatio(
        perSlice.get(`postgres@${IN_FLIGHT}`)!,
        perSlice.get(`commit@${IN_FLIGHT}`)!,
      ),
    };
  }
  return { figures, ratios, goals };
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
  const { figures, ratios, goals } = summary(stores, samples, perSlice, rounds);
  return {
    title: "State stores: keyed writes through each store, as ratios to the embedded one",
    notes: [
      "µs per keyed write (lower is better): dispatch of a page.save request with a new idempotency key on an in-memory reference kernel; the store takes the claim and records the outcome (and, for postgres, also serves the session grant).",
      `keyedWrite: one write at a time; keyedWrite@${IN_FLIGHT}: ${IN_FLIGHT} writes in flight at once, µs per write (the SQLite state serialises them; Postgres and Redis take them side by side).`,
      "embedded: the SQLite state file (WAL, synchronous NORMAL: a commit is not flushed to disk). redis: idempotency records in Redis on loopback (no persistence unless configured). postgres: the whole state in PostgreSQL on loopback with its default durability (each claim and completion a committed transaction, flushed: fsync on, synchronous_commit on).",
      `postgresLimit: one durable commit round trip (a prepared one-row INSERT committed on its own, through the same pool), one at a time and ${IN_FLIGHT} in flight. A keyed write commits twice on Postgres (the claim before the kernel's write, the outcome after), so it cannot go below 2 of these.`,
      "clientCpu: the benchmark process's own CPU (user + system) per keyed write, one figure per process and task (the servers' CPU is not in it): what the runtime spends on a write apart from waiting.",
      "writes/s ratios: the store's writes per second over the embedded store's, slice by slice (the embedded time over the store's).",
      `Interleaved in ${rounds} processes of ${timing.slices} slices of ${timing.sliceTime} ms; the ratio is per slice.`,
      ...notes,
    ],
    figures,
    ratios,
    goals,
    seconds: (Date.now() - started) / 1000,
  };
}
