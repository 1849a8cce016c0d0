/**
 * Phase 5a, write: the new output replaces the old folder in one rename, so a failure half way
 * (a full disk, a crash) leaves the previous generated/ as it was, never a mix of the two.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { GeneratedFile } from "../targets/target";

/**
 * Top-level folders of an output folder that no target writes: what building the generated
 * package makes (dist/) or installs. Writing keeps them, and the drift check ignores them.
 */
export const BUILD_OUTPUTS: readonly string[] = ["dist", "node_modules"];

/** Replaces outDir with exactly `files` (keeping its BUILD_OUTPUTS folders), in one rename. */
export function writeOutput(outDir: string, files: readonly GeneratedFile[]): void {
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  removeLeftovers(outDir);
  const stamp = `${process.pid}-${Date.now()}`;
  const staging = join(parent, `.${basename(outDir)}.staging-${stamp}`);
  const retired = join(parent, `.${basename(outDir)}.retired-${stamp}`);
  try {
    for (const file of files) {
      const target = join(staging, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
    mkdirSync(staging, { recursive: true });
    for (const kept of BUILD_OUTPUTS) {
      if (existsSync(join(outDir, kept)) && !existsSync(join(staging, kept)))
        renameSync(join(outDir, kept), join(staging, kept));
    }
    if (existsSync(outDir)) renameSync(outDir, retired);
    renameSync(staging, outDir);
  } catch (e) {
    if (!existsSync(outDir) && existsSync(retired)) renameSync(retired, outDir);
    for (const kept of BUILD_OUTPUTS) {
      if (existsSync(join(staging, kept)) && existsSync(outDir) && !existsSync(join(outDir, kept)))
        renameSync(join(staging, kept), join(outDir, kept));
    }
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  rmSync(retired, { recursive: true, force: true });
}

/** Staging or retired folders of a run that was killed half way. */
function removeLeftovers(outDir: string): void {
  const parent = dirname(outDir);
  const prefix = `.${basename(outDir)}.`;
  for (const entry of readdirSync(parent)) {
    if (entry.startsWith(prefix) && /\.(staging|retired)-\d+-\d+$/.test(entry)) {
      rmSync(join(parent, entry), { recursive: true, force: true });
    }
  }
}
