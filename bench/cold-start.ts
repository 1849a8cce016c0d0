/**
 * Section 3, cold start: time from spawning `mnote-tools call` (one process per call, a page.get
 * request on stdin, the embedded kernel on a seeded file database) to its stdout closed and the
 * process gone, against `node -e 0` and against the same call with the validators compiled by ajv
 * at start-up (bench/cold-start-ajv.ts). The contenders are interleaved: every run starts each once,
 * in shuffled order.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
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
  "node -e 0" | "call" | "call, ajv at start-up" | "node: require cli/main" | "node: require runtime/runtime";

export function coldCommand(contender: ColdContender, f: Fixture, schemas: string): string[] {
  switch (contender) {
    case "node -e 0":
      return ["-e", "0"];
    case "call":
      return [cliBin, "call", "--db", f.db, "--state", f.state];
    case "call, ajv at start-up":
      return [join(distBench, "cold-start-ajv.js"), schemas, "call", "--db", f.db, "--state", f.state];
    case "node: require cli/main":
      return ["-e", `require(${JSON.stringify(join(repoRoot, "dist", "cli", "main.js"))})`];
    case "node: require runtime/runtime":
      return ["-e", `require(${JSON.stringify(join(repoRoot, "dist", "runtime", "runtime.js"))})`];
  }
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const f = await cliFixture("cold");
  const schemas = await writeValidatorSchemas(f.dir);
  const requests = getTexts(64, 0xc01d);
  const contenders: ColdContender[] = [
    "node -e 0",
    "call",
    "call, ajv at start-up",
    "node: require cli/main",
    "node: require runtime/runtime",
  ];
  const runs = ctx.smoke ? 1 : ctx.quick ? 5 : 11;
  const times = new Map<ColdContender, number[]>(contenders.map((c) => [c, []]));
  const cpu = new Map<ColdContender, number[]>(contenders.map((c) => [c, []]));
  let n = 0;
  const once = async (c: ColdContender) => {
    const isCall = c.startsWith("call");
    // cpu: each process's own process.cpuUsage() at exit (a preloaded module, in every contender alike)
    const t = await timeProcess(coldCommand(c, f, schemas), {
      cpu: true,
      ...(isCall ? { stdin: requests[n++ % requests.length] } : {}),
    });
    if (t.code !== 0) throw new Error(`${c} exited ${t.code}: ${t.stderr}`);
    if (isCall && !t.stdout.startsWith('{"ok":true')) throw new Error(`${c} answered ${t.stdout} ${t.stderr}`);
    cpu.get(c)!.push(t.cpuMs);
    return t.ms;
  };
  try {
    // one unmeasured run each: the files are in the page cache for everyone
    if (!ctx.smoke) for (const c of contenders) await once(c);
    for (const c of contenders) cpu.get(c)!.length = 0;
    for (let run = 0; run < runs; run++) {
      for (const c of shuffle([...contenders])) times.get(c)!.push(await once(c));
    }
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
  ctx.log(`cold start: ${runs} interleaved runs done`);
  const med = (c: ColdContender) => medianOf(times.get(c)!);
  /** Median over runs of a per-run difference (paired, so shared noise cancels). */
  const diff = (f: (i: number) => number) => Math.round(medianOf(times.get("call")!.map((_, i) => f(i))));
  const t = (c: ColdContender, i: number) => times.get(c)![i]!;
  const cliLoad = diff((i) => t("node: require cli/main", i) - t("node -e 0", i));
  const runtimeLoad = diff((i) => t("node: require runtime/runtime", i) - t("node -e 0", i));
  const rest = diff(
    (i) => t("call", i) - t("node: require cli/main", i) - t("node: require runtime/runtime", i) + t("node -e 0", i),
  );
  const ratioCall = pairedRatio(times.get("call")!, times.get("node -e 0")!);
  const ratioAjv = pairedRatio(times.get("call, ajv at start-up")!, times.get("node -e 0")!);
  const ratioAjvCall = pairedRatio(times.get("call, ajv at start-up")!, times.get("call")!);
  const ratioCallCpu = pairedRatio(cpu.get("call")!, cpu.get("node -e 0")!);
  return {
    title: "Cold start: one process per call",
    notes: [
      "wall: ms from spawn to the process's stdout closed and exit (lower is better), measured by the parent with process.hrtime; CPU: the process's own user + system time at exit (process.cpuUsage(), written by the preloaded bench/cpu-usage.ts, which every contender loads alike), which waiting for a busy core does not inflate; a page.get request on stdin; the embedded reference kernel on a seeded database file and a state file with a live session grant.",
      "node -e 0: the same node binary doing nothing, the floor of any Node CLI. call: node bin/mnote-tools.js call (the precompiled standalone validators). call, ajv at start-up: the same CLI verb with every validator compiled by ajv from the contract's schemas when the process starts (bench/cold-start-ajv.ts).",
      "node: require cli/main and node: require runtime/runtime load those modules and exit: with node -e 0 they split a call's time into node itself, loading the code, and the call's own work (opening the databases, reading stdin, dispatching, closing).",
      `Interleaved: each of ${runs} runs starts every contender once, in shuffled order, after one unmeasured run each. Ratios are per run, median over runs.`,
    ],
    figures: Object.fromEntries(
      contenders.map((c) => [c, { wall: figure(times.get(c)!, "ms"), CPU: figure(cpu.get(c)!, "ms CPU") }]),
    ),
    ratios: {
      "call/node -e 0": ratioCall,
      "call/node -e 0, CPU": ratioCallCpu,
      "ajv at start-up/node -e 0": ratioAjv,
      "ajv at start-up/call": ratioAjvCall,
    },
    goals: [
      goal("coldStart.call", "cold start: call / node -e 0, wall", ratioCall, "<=", 2),
      goal("coldStart.callCpu", "cold start: call / node -e 0, CPU", ratioCallCpu, "<=", 2),
    ],
    extra: { runs, breakdownMs: { node: Math.round(med("node -e 0")), cliLoad, runtimeLoad, rest } },
    summary: [
      `where a call's ${Math.round(med("call"))} ms go (medians of per-run differences): node itself ${Math.round(med("node -e 0"))} ms; loading cli/main (commander) ${cliLoad} ms; loading runtime/runtime (generated registry and validators, kernel, SQLite binding) ${runtimeLoad} ms; the rest (opening the databases, stdin, dispatch, exit) ${rest} ms`,
      `ajv at start-up costs ${diff((i) => t("call, ajv at start-up", i) - t("call", i))} ms more per call than the precompiled validators`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
