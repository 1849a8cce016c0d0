/** Where things are, from dist/bench (compiled) or bench/ (ts-jest, tsc --noEmit). */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

function findRoot(): string {
  let dir = resolve(__dirname);
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "contract", "contract.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no repository root above ${__dirname}`);
    dir = up;
  }
}

export const repoRoot = findRoot();
/** The compiled bench folder (dist/bench), where worker.js lives. */
export const distBench = join(repoRoot, "dist", "bench");
export const cliBin = join(repoRoot, "bin", "mnote-tools.js");
export const resultsPath = join(repoRoot, "bench", "results.json");
export const chartPath = join(repoRoot, "bench", "chart.svg");
export const demoSeedPath = join(repoRoot, "examples", "demo-workspace.json");
export const contractDir = join(repoRoot, "contract");

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `mnote-bench-${prefix}-`));
}
