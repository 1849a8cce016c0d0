/**
 * Section, watch: the edit-to-code loop a contract author feels. `generate --watch` runs in a
 * scratch project (a copy of contract/, generated/ written by it); each round rename-saves
 * page.get's tool file (how editors save) with a new marker in its description, and times the
 * wall time from the rename to the marker showing in generated/docs (polled every 2 ms), and the
 * watcher's CPU time for it (/proc/<pid>/stat, 10 ms ticks). Beside each edit, a one-shot
 * `generate` of the same contract (its own process's CPU time) gives the ratio: what the watcher
 * spends per edit against what a fresh run spends.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliBin, contractDir, scratchDir } from "./paths";
import { processCpuMs, timeProcess } from "./proc";
import { figure, pairedRatio } from "./stats";
import { goal, type SectionContext, type SectionResult } from "./types";

const TOOL = join("tools", "page.get.tool.json");
const DOC = join("generated", "docs", "tools", "mnote.page.get.md");

interface EditFigures {
  wall: number[];
  cpu: number[];
  oneShot: number[];
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const root = scratchDir("watch");
  const edits = ctx.smoke ? 1 : ctx.quick ? 5 : 9;
  cpSync(contractDir, join(root, "contract"), { recursive: true });
  let said = "";
  // the watcher and the one-shot runs beside it share a cache folder of this run's own
  const env = { ...process.env, MNOTE_TOOLS_CACHE_DIR: join(root, "cache") };
  const watcher = spawn(process.execPath, [cliBin, "generate", "--watch", "--quiet"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  watcher.stdout!.on("data", (d: Buffer) => (said += d.toString("utf8")));
  watcher.stderr!.on("data", (d: Buffer) => (said += d.toString("utf8")));
  try {
    await until(
      () => said.includes("watching"),
      120_000,
      () => said,
    );
    const { wall, cpu, oneShot } = await timeEdits(ctx, root, watcher.pid!, edits, env, () => said);
    return result(ctx, edits, { wall, cpu, oneShot }, started);
  } finally {
    const exited = new Promise((r) => watcher.once("exit", r));
    watcher.kill("SIGTERM");
    await exited;
    rmSync(root, { recursive: true, force: true });
  }
}

/** Each edit: a rename-save with a new marker, the wall time until the doc shows it, the watcher's CPU, a fresh run's CPU. */
async function timeEdits(
  ctx: SectionContext,
  root: string,
  pid: number,
  edits: number,
  env: NodeJS.ProcessEnv,
  said: () => string,
): Promise<EditFigures> {
  const file = join(root, "contract", TOOL);
  const original = readFileSync(file, "utf8");
  const out: EditFigures = { wall: [], cpu: [], oneShot: [] };
  for (let i = 0; i < edits; i++) {
    const marker = `BENCH_MARK_${i}_${Date.now()}`;
    const tool = JSON.parse(original) as { "x-mnote-tool": { description: string } };
    tool["x-mnote-tool"].description += ` ${marker}`;
    writeFileSync(`${file}.swp`, JSON.stringify(tool, null, 2) + "\n");
    const cpuBefore = processCpuMs(pid);
    const t0 = process.hrtime.bigint();
    renameSync(`${file}.swp`, file);
    await until(() => shows(join(root, DOC), marker), 60_000, said);
    out.wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    // let the watcher finish writing the rest before reading its CPU time
    await new Promise((r) => setTimeout(r, 300));
    out.cpu.push(processCpuMs(pid) - cpuBefore);
    // exit 1 (out of date) only if the watcher had not finished: the CPU time counts either way;
    // --no-cache: what a run with neither the watcher's memory nor the disk cache costs
    const fresh = await timeProcess([cliBin, "generate", "--check", "--quiet", "--no-cache"], {
      cwd: root,
      cpu: true,
      env,
    });
    if (fresh.code !== 0 && fresh.code !== 1) throw new Error(`generate --check exited ${fresh.code}: ${fresh.stderr}`);
    out.oneShot.push(fresh.cpuMs);
    ctx.log(`watch: edit ${i + 1}/${edits}: ${out.wall.at(-1)!.toFixed(0)} ms wall`);
  }
  return out;
}

function result(
  ctx: SectionContext,
  edits: number,
  { wall, cpu, oneShot }: EditFigures,
  started: number,
): SectionResult {
  return {
    title: "generate --watch: rename-save to generated/ updated",
    notes: [
      `${edits} rename-saves of contract/${TOOL} (a new marker in its description each), one after the other; wall ms from the rename to the marker in ${DOC} (polled every 2 ms), and the watcher's CPU ms for the edit (/proc/<pid>/stat, 10 ms ticks, read 300 ms after the doc showed).`,
      "Beside each edit, a fresh `generate --check --no-cache` of the same project in its own process: its CPU time is what a run without the watcher's memory or the disk cache costs (the check does all a generate does but the write).",
      "Wall time is the goal here (what the author waits); it includes the watcher's debounce (30 ms) and write-finish wait (30 ms), and under load the wait for a core.",
    ],
    figures: {
      "rename-save to generated/ updated": { wall: figure(wall, "ms"), "watcher CPU per edit": figure(cpu, "ms CPU") },
      "fresh generate --check": { "CPU per run": figure(oneShot, "ms CPU") },
    },
    ratios: { "watcher CPU per edit / fresh run CPU": pairedRatio(cpu, oneShot) },
    goals: ctx.smoke
      ? []
      : [
          goal(
            "watch.renameSave",
            "generate --watch: rename-save to generated/ updated, wall s",
            figure(
              wall.map((ms) => ms / 1000),
              "s",
            ),
            "<=",
            0.3,
          ),
        ],
    seconds: (Date.now() - started) / 1000,
  };
}

function shows(path: string, marker: string): boolean {
  try {
    return existsSync(path) && readFileSync(path, "utf8").includes(marker);
  } catch {
    return false;
  }
}

async function until(done: () => boolean, timeoutMs: number, said: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`watch: timed out; the watcher said:\n${said()}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
