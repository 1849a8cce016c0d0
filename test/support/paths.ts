import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";

export const repoRoot = resolve(__dirname, "..", "..");
export const contractDir = join(repoRoot, "contract");
export const generatedDir = join(repoRoot, "generated");
export const cliPath = join(repoRoot, "bin", "mnote-tools.js");

/**
 * The read-only shared folder (design note, JSON Schema test suite). It sits beside the checkout;
 * a clone elsewhere finds it through MNOTE_SHARED_DIR or /work/shared. Missing is an error, never a skip.
 */
export function sharedDir(): string {
  const candidates = [process.env.MNOTE_SHARED_DIR, join(repoRoot, "..", "shared"), "/work/shared"].filter(Boolean) as string[];
  const found = candidates.find((d) => existsSync(join(d, "seed")));
  if (!found) throw new Error(`the shared folder is missing (looked in ${candidates.join(", ")}); set MNOTE_SHARED_DIR`);
  return found;
}

export function runCli(args: readonly string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    input: options.input,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
  });
}
