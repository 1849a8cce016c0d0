/**
 * CPU profiles for the goals a run misses: node --cpu-prof on the worker or process behind the
 * goal, summarized as the top functions by self time and the files that time is spent in.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { runWorker } from "./child";
import { cliFixture, coldCommand, writeValidatorSchemas } from "./cold-start";
import { syntheticContracts } from "./codegen";
import { cliBin, repoRoot, scratchDir } from "./paths";
import { mustRun } from "./proc";
import { getTexts } from "./requests";

interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  what: string;
  totalMs: number;
  top: Array<{ function: string; where: string; selfMs: number; share: number }>;
  byFile: Array<{ file: string; selfMs: number; share: number }>;
}

function where(url: string): string {
  if (!url) return "(native)";
  const path = url.replace(/^file:\/\//, "");
  const rel = relative(repoRoot, path);
  return rel.startsWith("..") ? path : rel;
}

export function summarize(profilePath: string, what: string, topN = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(profilePath, "utf8")) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const fns = new Map<string, { function: string; where: string; selfMs: number }>();
  const files = new Map<string, number>();
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    const name = f.functionName || "(anonymous)";
    const at = f.url ? `${where(f.url)}:${f.lineNumber + 1}` : name.startsWith("(") ? "" : "(native)";
    const key = `${name}@${at}`;
    const entry = fns.get(key) ?? { function: name, where: at, selfMs: 0 };
    entry.selfMs += ms;
    fns.set(key, entry);
    const file = f.url ? where(f.url) : name.startsWith("(") ? name : "(native)";
    files.set(file, (files.get(file) ?? 0) + ms);
  }
  const r = (x: number) => Math.round(x * 100) / 100;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    what,
    totalMs: r(total),
    top: [...fns.values()]
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, topN)
      .map((e) => ({ ...e, selfMs: r(e.selfMs), share: r3(e.selfMs / total) })),
    byFile: [...files.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, topN)
      .map(([file, ms]) => ({ file, selfMs: r(ms), share: r3(ms / total) })),
  };
}

function onlyProfile(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) throw new Error(`no profile in ${dir}`);
  return join(dir, files.sort().pop()!);
}

/** The node flags that write a CPU profile into dir/name, and that folder. */
function prof(dir: string, name: string): { d: string; flags: string[] } {
  const d = join(dir, name);
  return { d, flags: ["--cpu-prof", "--cpu-prof-dir", d, "--cpu-prof-interval", "100"] };
}

type Profiler = (
  dir: string,
  goalIds: readonly string[],
  log: (line: string) => void,
) => Promise<Record<string, ProfileSummary>>;

const profileDispatch: Profiler = async (dir, goalIds, log) => {
  const out: Record<string, ProfileSummary> = {};
  for (const tool of ["get", "save"]) {
    if (!goalIds.includes(`dispatch.${tool}`)) continue;
    const { d, flags } = prof(dir, `dispatch-${tool}`);
    await runWorker(
      "dispatch",
      "profile",
      { time: 1500, warmupTime: 300, only: tool, slices: 0, sliceTime: 0 },
      { nodeArgs: flags },
    );
    out[`dispatch.${tool}`] = summarize(
      onlyProfile(d),
      `the dispatch worker (page.${tool} through dispatcher.dispatch, 1.5 s after warm-up; the profile includes set-up)`,
    );
    log(`profiled dispatch ${tool}`);
  }
  return out;
};

const profileRuntimeCost: Profiler = async (dir, _goalIds, log) => {
  const { d, flags } = prof(dir, "runtime-cost");
  await runWorker(
    "runtimeCost",
    "profile",
    { time: 3000, warmupTime: 500, only: "dispatch/six", slices: 0, sliceTime: 0 },
    { nodeArgs: flags },
  );
  const summary = summarize(
    onlyProfile(d),
    "the runtimeCost worker, the six tools through dispatcher.dispatch on the in-memory kernel (3 s after warm-up; the profile includes set-up)",
  );
  log("profiled runtimeCost");
  return { runtimeCost: summary };
};

const profileValidators: Profiler = async (dir, _goalIds, log) => {
  const { d, flags } = prof(dir, "validators");
  await runWorker(
    "validators",
    "generated",
    { slices: 10, sliceTime: 150, warmupTime: 300, only: "generated" },
    { nodeArgs: flags },
  );
  const summary = summarize(
    onlyProfile(d),
    "the validators worker, the generated validator alone (three cases, 1.5 s each)",
  );
  log("profiled validators");
  return { validators: summary };
};

const profileColdStart: Profiler = async (dir, _goalIds, log) => {
  const f = await cliFixture("profile-cold");
  const schemas = await writeValidatorSchemas(f.dir);
  const { d, flags } = prof(dir, "cold");
  await mustRun([...flags, ...coldCommand("call", f, schemas)], { stdin: getTexts(1)[0] });
  const summary = summarize(onlyProfile(d), "one mnote-tools call (page.get), from process start");
  rmSync(f.dir, { recursive: true, force: true });
  log("profiled cold start");
  return { coldStart: summary };
};

const profileCodegen: Profiler = async (dir, _goalIds, log) => {
  const contracts = await syntheticContracts(join(dir, "contracts"));
  const { d, flags } = prof(dir, "codegen");
  await mustRun(
    [...flags, cliBin, "generate", "--contract", contracts[200]!, "--out", join(dir, "out-200"), "--quiet"],
    { cwd: dir },
  );
  const summary = summarize(onlyProfile(d), "mnote-tools generate of the 200-tool contract");
  log("profiled codegen");
  return { codegen: summary };
};

/** Which profile each section's missed goals get, in the order they are taken. */
const PROFILERS: ReadonlyArray<[section: string, profiler: Profiler]> = [
  ["dispatch", profileDispatch],
  ["runtimeCost", profileRuntimeCost],
  ["validators", profileValidators],
  ["coldStart", profileColdStart],
  ["codegen", profileCodegen],
];

/** Profiles for the goal ids given (only the ones missed, normally). */
export async function profileGoals(
  goalIds: readonly string[],
  log: (line: string) => void,
): Promise<Record<string, ProfileSummary>> {
  const out: Record<string, ProfileSummary> = {};
  const sections = new Set(goalIds.map((id) => id.split(".")[0]!));
  const dir = scratchDir("profile");
  try {
    for (const [section, profiler] of PROFILERS)
      if (sections.has(section)) Object.assign(out, await profiler(dir, goalIds, log));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export function profileText(name: string, p: ProfileSummary, lines = 10): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  return [
    `-- profile ${name}: ${p.what} (${p.totalMs} ms sampled)`,
    ...p.top.slice(0, lines).map((t) => `${pct(t.share)}  ${t.function}  ${t.where}`),
    `   by file: ${p.byFile
      .slice(0, 6)
      .map((f) => `${f.file} ${(f.share * 100).toFixed(0)}%`)
      .join(", ")}`,
  ].join("\n");
}
