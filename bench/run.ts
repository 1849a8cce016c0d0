/**
 * npm run bench [-- --quick | --smoke] [-- --only <section>[,<section>]] [-- --profile]
 *
 * Runs the sections (each contender in child processes, shuffled, several rounds), writes
 * bench/results.json and bench/chart.svg, and prints a table. With --only, the other sections'
 * results are kept from the existing results.json. With --profile, the goals missed (or met by
 * less than 20%) get a CPU profile summary (results.json "profiles").
 *
 * --smoke runs every section once on a tiny budget, for its correctness checks only (CI runs it,
 * so a broken bench cannot land): it writes nothing. A failed check (a contender answering unlike
 * the contract, a wrong response body) never aborts the run: every section still runs, and the run
 * ends with the failures listed and exit code 1.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem, arch } from "node:os";
import { writeChart } from "./chart";
import { chartPath, resultsPath } from "./paths";
import { profileGoals, profileText, type ProfileSummary } from "./profile";
import { goalsTable, sectionTable } from "./report";
import type { Goal, SectionContext, SectionResult } from "./types";

const SECTIONS: Record<string, () => Promise<{ section(ctx: SectionContext): Promise<SectionResult> }>> = {
  validators: () => import("./validators"),
  dispatch: () => import("./dispatch"),
  runtimeCost: () => import("./runtime-cost"),
  mcp: () => import("./mcp"),
  coldStart: () => import("./cold-start"),
  http: () => import("./http"),
  kernel: () => import("./kernel"),
  codegen: () => import("./codegen"),
  watch: () => import("./watch"),
  store: () => import("./store"),
  stateStores: () => import("./state-stores"),
  hostile: () => import("./hostile"),
  diff: () => import("./diff"),
};
const ALIASES: Record<string, string> = {
  "cold-start": "coldStart",
  coldstart: "coldStart",
  cold: "coldStart",
  "runtime-cost": "runtimeCost",
  "state-stores": "stateStores",
};

interface Results {
  machine: Record<string, unknown>;
  options: { quick: boolean; only: string[] };
  /** Correctness checks that failed, by section (empty when all passed). */
  failures?: string[];
  sections: Record<
    string,
    SectionResult & { date?: string; quick?: boolean; loadavg1m?: { start: number; end: number } }
  >;
  goals: Goal[];
  profiles?: Record<string, ProfileSummary>;
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): { quick: boolean; smoke: boolean; only: string[]; profile: boolean } {
  let quick = false;
  let smoke = false;
  let profile = false;
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--quick") quick = true;
    else if (a === "--smoke") smoke = true;
    else if (a === "--profile") profile = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const value = a.startsWith("--only=") ? a.slice(7) : argv[++i];
      if (!value) throw new UsageError("--only needs a section name");
      for (const name of value.split(",")) {
        const key = ALIASES[name] ?? name;
        if (!SECTIONS[key]) throw new UsageError(`no section ${name}; sections: ${Object.keys(SECTIONS).join(", ")}`);
        only.push(key);
      }
    } else if (a === "--help" || a === "-h") {
      console.log(
        "usage: npm run bench [-- --quick | --smoke] [-- --only validators,dispatch,runtimeCost,mcp,coldStart,http,kernel,codegen,watch,store,stateStores,hostile,diff] [-- --profile]",
      );
      process.exit(0);
    } else throw new UsageError(`unknown option ${a}`);
  }
  if (smoke && (quick || profile)) throw new UsageError("--smoke runs alone (no --quick, no --profile)");
  return { quick, smoke, only, profile };
}

function machine(): Record<string, unknown> {
  const c = cpus();
  return {
    cpus: c.length,
    model: c[0]?.model.trim() ?? "unknown",
    node: process.versions.node,
    v8: process.versions.v8,
    platform: `${platform()} ${release()} ${arch()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadavgAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
    date: new Date().toISOString(),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // the serve and mcp processes the sections start count no budgets: their loops of calls from one
  // session would use them up (docs/RELIABILITY.md, "Budgets"); the in-process runtimes pass budgets: null
  process.env.MNOTE_BUDGETS ??= "off";
  const started = Date.now();
  const log = (line: string) =>
    process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
  const previous: Results | undefined =
    args.only.length > 0 && existsSync(resultsPath)
      ? (JSON.parse(readFileSync(resultsPath, "utf8")) as Results)
      : undefined;
  const names = args.only.length > 0 ? args.only : Object.keys(SECTIONS);
  const results: Results = {
    machine: machine(),
    options: { quick: args.quick, only: args.only },
    sections: {},
    goals: [],
  };
  const failures: string[] = [];
  for (const name of Object.keys(SECTIONS)) {
    if (names.includes(name)) {
      log(`${name}: start`);
      const loadBefore = loadavg()[0]!;
      let result: SectionResult;
      try {
        result = await (await SECTIONS[name]!()).section({ quick: args.quick, smoke: args.smoke, log });
      } catch (e) {
        // a section that cannot finish is a failure of the run, not the end of it
        failures.push(`${name}: the section failed: ${(e as Error)?.stack ?? String(e)}`);
        log(`${name}: FAILED`);
        if (previous?.sections[name]) results.sections[name] = previous.sections[name]!;
        continue;
      }
      const load = { start: Math.round(loadBefore * 100) / 100, end: Math.round(loadavg()[0]! * 100) / 100 };
      results.sections[name] = { ...result, date: new Date().toISOString(), quick: args.quick, loadavg1m: load };
      failures.push(...(result.failures ?? []));
      console.log(`\n${sectionTable(result)}`);
      console.log(`(load average, 1 min: ${load.start} at the start, ${load.end} at the end)`);
    } else if (previous?.sections[name]) {
      results.sections[name] = previous.sections[name]!;
    }
  }
  results.failures = failures;
  if (args.smoke) {
    finish(
      failures,
      `smoke run of ${names.length} section(s) in ${((Date.now() - started) / 1000).toFixed(0)} s (nothing written)`,
    );
    return;
  }
  results.goals = Object.values(results.sections).flatMap((s) => s.goals);
  if (previous?.profiles)
    results.profiles = Object.fromEntries(
      Object.entries(previous.profiles).filter(([k]) => !names.some((n) => k.startsWith(n))),
    );
  if (args.profile) {
    // missed, or met within 20% of the target
    const close = (g: Goal) => !g.met || (g.op === "<=" ? g.value > 0.8 * g.goal : g.value < 1.2 * g.goal);
    const missed = results.goals
      .filter((g) => close(g) && names.some((n) => g.id.startsWith(`${n}.`)))
      .map((g) => g.id);
    if (missed.length > 0) {
      log(`profiling the goals missed or within 20% of their target: ${missed.join(", ")}`);
      const profiles = await profileGoals(missed, log);
      for (const [name, p] of Object.entries(profiles)) console.log(`\n${profileText(name, p)}`);
      results.profiles = { ...results.profiles, ...profiles };
    }
  }
  writeFileSync(resultsPath, JSON.stringify(results, null, 2) + "\n");
  writeChart(resultsPath, chartPath);
  console.log(`\n== Goals\n${goalsTable(results.goals)}`);
  finish(failures, `wrote ${resultsPath} and ${chartPath} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** The last lines: what was written, then every failed check, loudly, and exit code 1 if any. */
function finish(failures: readonly string[], done: string): void {
  console.log(`\n${done}`);
  if (failures.length === 0) {
    console.log("all correctness checks passed");
    return;
  }
  console.log(`\n== FAILED CHECKS (${failures.length})`);
  for (const f of failures) console.log(`FAILED: ${f}`);
  process.exitCode = 1;
}

main().catch((e: unknown) => {
  if (e instanceof UsageError) {
    console.error(`bench: ${e.message}`);
    process.exitCode = 2;
    return;
  }
  console.error((e as Error)?.stack ?? String(e));
  process.exitCode = 1;
});
