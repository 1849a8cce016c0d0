/**
 * Contenders run in child processes: `node dist/bench/worker.js <section> <contender> <options>`
 * prints one JSON line (its result) on stdout. A fresh process per contender and round keeps one
 * contender's JIT state, garbage and caches from leaking into another's figures.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { distBench, repoRoot } from "./paths";

export interface WorkerOptions {
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  timeoutMs?: number;
}

export function runWorker<R>(
  section: string,
  contender: string,
  options: unknown,
  opts: WorkerOptions = {},
): Promise<R> {
  const args = [
    ...(opts.nodeArgs ?? []),
    join(distBench, "worker.js"),
    section,
    contender,
    JSON.stringify(options ?? {}),
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 180_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split("\n").pop() ?? "";
      if (code !== 0) {
        reject(new Error(`worker ${section}/${contender} failed (${signal ?? code}):\n${err.trim()}`));
        return;
      }
      try {
        resolvePromise(JSON.parse(line) as R);
      } catch {
        reject(new Error(`worker ${section}/${contender} printed no JSON result:\n${out}\n${err}`));
      }
    });
  });
}
