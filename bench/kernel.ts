/**
 * Section 5, the SQLite reference kernel on its own: writes per second of page.body.save with its
 * idempotency record (kernel.execute with the write field the dispatcher builds), on a file
 * database (WAL, synchronous NORMAL: what openDatabase sets) and on :memory:, and the cost of a
 * replay (the same scope and fingerprint again: the kernel answers from its command log).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runWorker } from "./child";
import { consume, measure, type MicroSamples, type MicroTask } from "./micro";
import { demoSeedPath, scratchDir } from "./paths";
import { benchSeed, IDS, pageSaveRequest, prng } from "./requests";
import { figure, pairedRatio, shuffle } from "./stats";
import type { FigureTree, SectionContext, SectionResult } from "./types";

const POOL = 256;
const BATCH = 8;
const CONTENDERS = ["file", "memory"] as const;

interface WorkerOptions {
  time: number;
  warmupTime: number;
}

type Keys = typeof import("../runtime/dispatch/keys");
type Execute = (p: unknown) => { commandId: string; replayed: boolean };

export async function worker(contender: string, options: WorkerOptions): Promise<Record<string, MicroSamples>> {
  const { ReferenceKernel } = await import("../kernel/reference-kernel");
  const { seedKernel } = await import("../kernel/seed");
  const keys = await import("../runtime/dispatch/keys");
  const dir = contender === "file" ? scratchDir("kernel") : undefined;
  const kernel = new ReferenceKernel({ path: dir ? join(dir, "kernel.db") : ":memory:" });
  seedKernel(kernel, benchSeed(JSON.parse(readFileSync(demoSeedPath, "utf8"))));

  const payload = payloadMaker(keys);
  const execute: Execute = (p) => kernel.execute("page.body.save", p) as { commandId: string; replayed: boolean };

  // the replay pool: POOL writes done once, then asked again
  const written = Array.from({ length: POOL }, (_, i) => payload(i, `replay-${i}`));
  for (const p of written) if (execute(p).replayed) throw new Error("a first write was a replay");

  const result = await measure(shuffle(tasks(execute, payload, written)), options);
  kernel.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  return result;
}

/** A payload as the dispatcher builds it for a fresh keyed write of request i (of POOL page.save requests). */
function payloadMaker({ idempotencyScope, requestFingerprint, commandIdFor }: Keys) {
  const rand = prng(0x6b72);
  const requests = Array.from({ length: POOL }, (_, i) =>
    pageSaveRequest(i, rand, { mode: "replace", baseRevision: false, blocks: [1, 4] }),
  );
  const fingerprints = requests.map((r) => requestFingerprint(r.documentId as string, r.args));
  const contexts = requests.map((r) => ({
    workspaceId: r.workspaceId as string,
    documentId: r.documentId as string,
    actorId: r.actorId as string,
    traceId: r.traceId as string,
    sessionId: r.sessionId as string,
    runId: r.runId as string,
    toolCallId: r.toolCallId as string,
  }));
  return (i: number, key: string) => {
    const scope = idempotencyScope({
      workspaceId: IDS.workspaceId,
      actorId: IDS.actorId,
      toolName: "mnote.page.save",
      idempotencyKey: key,
    });
    return {
      context: contexts[i]!,
      args: requests[i]!.args,
      dryRun: false,
      write: {
        commandId: commandIdFor("page.body.save", scope),
        idempotencyKey: key,
        idempotencyScope: scope,
        fingerprint: fingerprints[i]!,
        ttlMs: 86_400_000,
      },
    };
  };
}

/** The timed tasks: BATCH fresh keyed writes, and BATCH replays of the written pool. */
function tasks(
  execute: Execute,
  payload: (i: number, key: string) => unknown,
  written: readonly unknown[],
): MicroTask[] {
  let keys = 0;
  let next: unknown[] = [];
  let wi = 0;
  let ri = 0;
  return [
    {
      name: "write",
      batch: BATCH,
      // keys and payloads for the next batch are made outside the timed window
      beforeEach: () => {
        next = [];
        for (let k = 0; k < BATCH; k++) next.push(payload(wi++ % POOL, `fresh-${++keys}`));
      },
      fn: () => {
        for (let k = 0; k < BATCH; k++) {
          const reply = execute(next[k]);
          if (reply.replayed) throw new Error("a fresh write was a replay");
          consume(reply);
        }
      },
    },
    {
      name: "replay",
      batch: BATCH,
      fn: () => {
        for (let k = 0; k < BATCH; k++) {
          const reply = execute(written[ri++ % POOL]);
          if (!reply.replayed) throw new Error("a replay wrote");
          consume(reply);
        }
      },
    },
  ];
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const rounds = ctx.smoke ? 1 : ctx.quick ? 2 : 4;
  const options: WorkerOptions = ctx.smoke
    ? { time: 10, warmupTime: 5 }
    : ctx.quick
      ? { time: 300, warmupTime: 100 }
      : { time: 800, warmupTime: 200 };
  const perRound = new Map<string, number[]>();
  const samples = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const contender of shuffle([...CONTENDERS])) {
      const result = await runWorker<Record<string, MicroSamples>>("kernel", contender, options);
      for (const [task, r] of Object.entries(result)) {
        const key = `${contender}/${task}`;
        perRound.set(key, [...(perRound.get(key) ?? []), r.median]);
        samples.set(key, [...(samples.get(key) ?? []), ...r.nsPerOp]);
      }
    }
    ctx.log(`kernel: round ${round + 1}/${rounds} done`);
  }
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  for (const db of CONTENDERS) {
    const write = samples.get(`${db}/write`)!;
    const replay = samples.get(`${db}/replay`)!;
    figures[db] = {
      writesPerSecond: figure(
        write.map((ns) => 1e9 / ns),
        "writes/s",
        rounds,
      ),
      write: figure(
        write.map((ns) => ns / 1000),
        "µs/op",
        rounds,
      ),
      replay: figure(
        replay.map((ns) => ns / 1000),
        "µs/op",
        rounds,
      ),
    };
    ratios[db] = { "replay/write": pairedRatio(perRound.get(`${db}/replay`)!, perRound.get(`${db}/write`)!) };
  }
  return {
    title: "SQLite reference kernel: page.body.save with idempotency records",
    notes: [
      "kernel.execute('page.body.save', payload) on the ReferenceKernel, with the write field the dispatcher builds (commandId, idempotency scope, fingerprint, ttl); 1 to 4 blocks in mode replace, so the page keeps its size.",
      "write: a fresh key every call: one IMMEDIATE transaction with the access check, the idempotency lookup, the body replace, the revision bump, the command-log row and the idempotency record. Keys and payloads are made outside the timed window.",
      "replay: the same scope and fingerprint as an earlier write: access check, idempotency lookup, command-log read and JSON.parse of the stored result; nothing is written.",
      "file: a database file in the temp folder with WAL and synchronous NORMAL (what common/sqlite.ts sets: a commit does not wait for fsync). memory: ':memory:'. Each in its own process, shuffled, every round.",
    ],
    figures,
    ratios,
    goals: [],
    extra: { rounds, options, batch: BATCH },
    seconds: (Date.now() - started) / 1000,
  };
}
