/** Timing whole processes: spawn to stdout closed and exit, with optional stdin. */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { distBench, repoRoot } from "./paths";

export interface Timed {
  ms: number;
  /**
   * CPU time (user + system) of the child, ms: its own process.cpuUsage() at exit (bench/cpu-usage.ts,
   * to the microsecond) when timed with {cpu: true}; otherwise the ended children's time from
   * /proc/self/stat (10 ms ticks; NaN where /proc is missing).
   */
  cpuMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export function timeProcess(
  args: readonly string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cpu?: boolean } = {},
): Promise<Timed> {
  const cpuDir = options.cpu ? mkdtempSync(join(tmpdir(), "mnote-bench-cpu-")) : undefined;
  const cpuFile = cpuDir ? join(cpuDir, "cpu.json") : undefined;
  const ownCpu = (): number => {
    if (!cpuFile) return Number.NaN;
    try {
      const u = JSON.parse(readFileSync(cpuFile, "utf8")) as { user: number; system: number };
      return (u.user + u.system) / 1000;
    } catch {
      return Number.NaN; // killed before its exit handler ran
    } finally {
      rmSync(cpuDir!, { recursive: true, force: true });
    }
  };
  return new Promise((resolve, reject) => {
    const cpuBefore = childrenCpuMs();
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      cpuFile ? ["--require", join(distBench, "cpu-usage.js"), ...args] : [...args],
      {
        cwd: options.cwd ?? repoRoot,
        env: cpuFile
          ? { ...(options.env ?? process.env), MNOTE_BENCH_CPU_FILE: cpuFile }
          : (options.env ?? process.env),
        stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ ms, cpuMs: cpuFile ? ownCpu() : childrenCpuMs() - cpuBefore, code, stdout, stderr });
    });
  });
}

/** Runs a process and fails loudly unless it exits 0. */
export async function mustRun(
  args: readonly string[],
  options: Parameters<typeof timeProcess>[1] = {},
): Promise<Timed> {
  const t = await timeProcess(args, options);
  if (t.code !== 0) throw new Error(`node ${args.join(" ")} exited ${t.code}:\n${t.stderr || t.stdout}`);
  return t;
}

/**
 * CPU time of this process's children that have ended (cutime + cstime of /proc/self/stat), in ms.
 * Read before a spawn and after its exit, it gives the child's CPU time: unlike wall time, it does
 * not count time spent waiting for a core that other work holds. Clock ticks are 1/100 s.
 */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (user + system) a running process has used so far, in ms, from /proc/<pid>/stat (clock
 * ticks of 1/100 s); NaN where /proc is missing. Read before and after a run of a long-lived server.
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (user + system, ms) a process and every process below it (a cluster's workers) have
 * used so far, from /proc/<pid>/stat of each (10 ms ticks); NaN where /proc is missing. A server
 * with workers does its work in the workers, whose time the primary's own figure leaves out.
 */
export function processTreeCpuMs(root: number): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return Number.NaN;
  }
  const parentOf = new Map<number, number>();
  const cpuOf = new Map<number, number>();
  for (const e of entries) {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parentOf.set(Number(e), Number(fields[1]));
      cpuOf.set(Number(e), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // the process ended meanwhile
    }
  }
  if (!cpuOf.has(root)) return Number.NaN;
  let total = 0;
  for (const [pid, cpu] of cpuOf) {
    for (let at: number | undefined = pid; at !== undefined && at > 0; at = parentOf.get(at)) {
      if (at === root) {
        total += cpu;
        break;
      }
    }
  }
  return total;
}
