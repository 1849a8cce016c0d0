import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";

export const repoRoot = resolve(__dirname, "..", "..");
export const contractDir = join(repoRoot, "contract");
export const generatedDir = join(repoRoot, "generated");
export const cliPath = join(repoRoot, "bin", "mnote-tools.js");

/** Where a piece of the shared reference material is, or why it is not there. */
export type SharedResource = { found: true; path: string } | { found: false; skipName: string };

/**
 * A file or folder of the read-only shared folder (the design note, the JSON Schema test suite),
 * which is not part of the repository. MNOTE_SHARED_DIR names the folder explicitly (.ci/run sets
 * it): then a missing resource is an error, never a skip. Without it the folder is looked for
 * beside the checkout, and a missing resource gives the name of a visible skip ("skipped: ... not
 * found"), so a clone anywhere passes `npm test` and still shows what it did not check.
 */
export function sharedResource(relativePath: string, what: string): SharedResource {
  const explicit = process.env.MNOTE_SHARED_DIR;
  const base = explicit ? resolve(explicit) : join(repoRoot, "..", "shared");
  const path = join(base, relativePath);
  if (existsSync(path)) return { found: true, path };
  if (explicit) throw new Error(`${what} not found at ${path} (MNOTE_SHARED_DIR=${explicit} asks for it)`);
  return {
    found: false,
    skipName: `skipped: ${what} not found (shared/${relativePath} beside the checkout; set MNOTE_SHARED_DIR to run it)`,
  };
}

export function runCli(
  args: readonly string[],
  options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    input: options.input,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
  });
}
