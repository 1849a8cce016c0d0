/**
 * Section 3, cold start: time from spawning `mnote-tools call` (one process per call, a page.get
 * request on stdin, the embedded kernel on a seeded file database) to its stdout closed and the
 * process gone, against `node -e 0` and against the same call with the validators compiled by ajv
 * at start-up (bench/cold-start-ajv.ts). The contenders are interleaved: every run starts each once,
 * in shuffled order.
 *
 * The bin turns on Node's compile cache (bin/mnote-tools.js, in a per-user folder): a user's first
 * call compiles every module and fills it, every later call reads it. Both are measured: "call" with
 * the cache warm (the bench's own cache folder, filled by the unmeasured run), "call, empty compile
 * cache" with a new empty folder each run. The contenders that do not go through the bin (require
 * cli/main, require runtime/runtime, ajv at start-up) get the same warm cache through
 * NODE_COMPILE_CACHE, so the breakdown subtracts like from like.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliBin, demoSeedPath, distBench, repoRoot, scratchDir } from "./paths";
import { mustRun, timeProcess } from "./proc";
import { benchSeed, getTexts, IDS } from "./requests";
import { figure, medianOf, pairedRatio, shuffle } from "./stats";
import { goal, type SectionContext, type SectionResult } from "./types";

export interface Fixture {
  dir: string;
  db: string;
  state: string;
}

/** A seeded kernel database and a state file with the bench's session grants, made with the CLI itself. */
export async function cliFixture(prefix: string): Promise<Fixture> {
  const dir = scratchDir(prefix);
  const db = join(dir, "kernel.db");
  const state = join(dir, "state.db");
  const seedFile = join(dir, "seed.json");
  writeFileSync(seedFile, JSON.stringify(benchSeed(JSON.parse(readFileSync(demoSeedPath, "utf8")))));
  await mustRun([cliBin, "kernel", "seed", seedFile, "--db", db]);
  for (const [session, document] of [
    [IDS.getSession, IDS.getDocument],
    [IDS.saveSession, IDS.saveDocument],
  ] as const) {
    await mustRun([
      cliBin,
      "session",
      "grant",
      "--state",
      state,
      "--session",
      session,
      "--workspace",
      IDS.workspaceId,
      "--document",
      document,
      "--actor",
      IDS.actorId,
      "--scope",
      "page.read,page.write,artifact.write",
      "--ttl",
      "86400",
    ]);
  }
  return { dir, db, state };
}

/** The schemas generated/validators is compiled from, as one JSON file. */
export async function writeValidatorSchemas(dir: string): Promise<string> {
  const { readContractDir } = await import("../codegen/phases/load");
  const { buildModel } = await import("../codegen/pipeline");
  const { validatorSchemas } = await import("../codegen/targets/validators");
  const { contractDir } = await import("./paths");
  const path = join(dir, "validator-schemas.json");
  writeFileSync(path, JSON.stringify(validatorSchemas(buildModel(readContractDir(contractDir)))));
  return path;
}

export type ColdContender =
  | "node -e 0"
  | "call"
  | "call, empty compile cache"
  | "call, ajv at start-up"
  | "node: require cli/main"
  | "node: require runtime/runtime";

const CONTENDERS: readonly ColdContender[] = [
  "node -e 0",
  "call",
  "call, empty compile cache",
  "call, ajv at start-up",
  "node: require cli/main",
  "node: require runtime/runtime",
];

export function coldCommand(contender: ColdContender, f: Fixture, schemas: string): string[] {
  switch (contender) {
    case "node -e 0":
      return ["-e", "0"];
    case "call":
    case "call, empty compile cache":
      return [cliBin, "call", "--db", f.db, "--state", f.state];
    case "call, ajv at start-up":
      return [join(distBench, "cold-start-ajv.js"), schemas, "call", "--db", f.db, "--state", f.state];
    case "node: require cli/main":
      return ["-e", `require(${JSON.stringify(join(repoRoot, "dist", "cli", "main.js"))})`];
    case "node: require runtime/runtime":
      return ["-e", `require(${JSON.stringify(join(repoRoot, "dist", "runtime", "runtime.js"))})`];
  }
}

/**
 * Each contender's compile cache: the bin's own (MNOTE_TOOLS_CACHE_DIR: warm in the fixture, or a
 * new empty folder), Node's for what does not start through the bin; none for node -e 0, which
 * compiles nothing worth caching. The caller's NODE_COMPILE_CACHE is never inherited.
 */
function coldEnv(contender: ColdContender, f: Fixture): NodeJS.ProcessEnv {
  const { NODE_COMPILE_CACHE: _caller, NODE_DISABLE_COMPILE_CACHE: _off, ...env } = process.env;
  const warm = join(f.dir, "cache");
  switch (contender) {
    case "node -e 0":
      return env;
    case "call":
      return { ...env, MNOTE_TOOLS_CACHE_DIR: warm };
    case "call, empty compile cache":
      return { ...env, MNOTE_TOOLS_CACHE_DIR: mkdtempSync(join(f.dir, "empty-cache-")) };
    default:
      return { ...env, NODE_COMPILE_CACHE: join(warm, "mnote-tools", "compile") };
  }
}

type Samples = Map<ColdContender, { wall: number[]; cpu: number[] }>;

/** Every contender once per run, shuffled, after one unmeasured run each (files in the page cache, the warm compile cache filled). */
async function measure(ctx: SectionContext, f: Fixture, schemas: string, runs: number): Promise<Samples> {
  const samples: Samples = new Map(CONTENDERS.map((c) => [c, { wall: [], cpu: [] }]));
  const requests = getTexts(64, 0xc01d);
  let n = 0;
  const once = async (c: ColdContender, record: boolean) => {
    const isCall = c.startsWith("call");
    // cpu: each process's own process.cpuUsage() at exit (a preloaded module, in every contender alike)
    const t = await timeProcess(coldCommand(c, f, schemas), {
      cpu: true,
      env: coldEnv(c, f),
      ...(isCall ? { stdin: requests[n++ % requests.length] } : {}),
    });
    if (t.code !== 0) throw new Error(`${c} exited ${t.code}: ${t.stderr}`);
    if (isCall && !t.stdout.startsWith('{"ok":true')) throw new Error(`${c} answered ${t.stdout} ${t.stderr}`);
    if (!record) return;
    samples.get(c)!.wall.push(t.ms);
    samples.get(c)!.cpu.push(t.cpuMs);
  };
  if (!ctx.smoke) for (const c of CONTENDERS) await once(c, false);
  // the smoke run has no unmeasured run: the warm cache is filled by "call" itself
  else await once("call", false);
  for (let run = 0; run < runs; run++) for (const c of shuffle([...CONTENDERS])) await once(c, true);
  return samples;
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const f = await cliFixture("cold");
  const runs = ctx.smoke ? 1 : ctx.quick ? 5 : 11;
  let samples: Samples;
  try {
    samples = await measure(ctx, f, await writeValidatorSchemas(f.dir), runs);
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
  ctx.log(`cold start: ${runs} interleaved runs done`);
  return { ...report(samples, runs), seconds: (Date.now() - started) / 1000 };
}

const NOTES = [
  "wall: ms from spawn to the process's stdout closed and exit (lower is better), measured by the parent with process.hrtime; CPU: the process's own user + system time at exit (process.cpuUsage(), written by the preloaded bench/cpu-usage.ts, which every contender loads alike), which waiting for a busy core does not inflate; a page.get request on stdin; the embedded reference kernel on a seeded database file and a state file with a live session grant.",
  "node -e 0: the same node binary doing nothing, the floor of any Node CLI. call: node bin/mnote-tools.js call (the precompiled standalone validators) with Node's compile cache warm, as every call after a user's first one runs. call, empty compile cache: the same, each run with a new empty cache folder: a user's first call (and what a call costs without the cache: it also writes the cache). call, ajv at start-up: the same CLI verb with every validator compiled by ajv from the contract's schemas when the process starts (bench/cold-start-ajv.ts).",
  "node: require cli/main and node: require runtime/runtime load those modules and exit (with the same warm compile cache as call): with node -e 0 they split a call's time into node itself, loading the code, and the call's own work (opening the databases, reading stdin, dispatching, closing).",
];

function report(samples: Samples, runs: number): Omit<SectionResult, "seconds"> {
  const wall = (c: ColdContender) => samples.get(c)!.wall;
  const cpu = (c: ColdContender) => samples.get(c)!.cpu;
  const med = (c: ColdContender) => medianOf(wall(c));
  /** Median over runs of a per-run difference (paired, so shared noise cancels). */
  const diff = (f: (i: number) => number) => Math.round(medianOf(wall("call").map((_, i) => f(i))));
  const t = (c: ColdContender, i: number) => wall(c)[i]!;
  const cliLoad = diff((i) => t("node: require cli/main", i) - t("node -e 0", i));
  const runtimeLoad = diff((i) => t("node: require runtime/runtime", i) - t("node -e 0", i));
  const rest = diff(
    (i) => t("call", i) - t("node: require cli/main", i) - t("node: require runtime/runtime", i) + t("node -e 0", i),
  );
  const ratioCall = pairedRatio(wall("call"), wall("node -e 0"));
  const ratioCallCpu = pairedRatio(cpu("call"), cpu("node -e 0"));
  const ratioEmptyCpu = pairedRatio(cpu("call, empty compile cache"), cpu("node -e 0"));
  return {
    title: "Cold start: one process per call",
    notes: [
      ...NOTES,
      `Interleaved: each of ${runs} runs starts every contender once, in shuffled order, after one unmeasured run each. Ratios are per run, median over runs.`,
    ],
    figures: Object.fromEntries(
      CONTENDERS.map((c) => [c, { wall: figure(wall(c), "ms"), CPU: figure(cpu(c), "ms CPU") }]),
    ),
    ratios: {
      "call/node -e 0": ratioCall,
      "call/node -e 0, CPU": ratioCallCpu,
      "call, empty compile cache/node -e 0, CPU": ratioEmptyCpu,
      "ajv at start-up/node -e 0": pairedRatio(wall("call, ajv at start-up"), wall("node -e 0")),
      "ajv at start-up/call": pairedRatio(wall("call, ajv at start-up"), wall("call")),
    },
    goals: [
      goal("coldStart.call", "cold start: call / node -e 0, wall", ratioCall, "<=", 2),
      goal("coldStart.callCpu", "cold start: call / node -e 0, CPU (compile cache warm)", ratioCallCpu, "<=", 2),
    ],
    extra: { runs, breakdownMs: { node: Math.round(med("node -e 0")), cliLoad, runtimeLoad, rest } },
    summary: [
      `where a call's ${Math.round(med("call"))} ms go (medians of per-run differences): node itself ${Math.round(med("node -e 0"))} ms; loading cli/main (commander) ${cliLoad} ms; loading runtime/runtime (generated registry and validators, kernel, SQLite binding) ${runtimeLoad} ms; the rest (opening the databases, stdin, dispatch, exit) ${rest} ms`,
      `a user's first call (empty compile cache) takes ${Math.round(medianOf(cpu("call, empty compile cache")))} ms CPU, a later one ${Math.round(medianOf(cpu("call")))} ms (call / node -e 0, CPU: ${ratioEmptyCpu.median.toFixed(2)} first, ${ratioCallCpu.median.toFixed(2)} warm)`,
      `ajv at start-up costs ${diff((i) => t("call, ajv at start-up", i) - t("call", i))} ms more per call than the precompiled validators`,
    ],
  };
}
