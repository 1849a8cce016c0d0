/**
 * The staging and retired folders a write makes beside an output folder (phases/write.ts), and the
 * clean-up of those a killed run left. Only folders generate made are ever deleted: each holds a
 * marker file naming the process that made it, and a leftover is removed only when that process
 * is gone (or is this one, done with it). A `.<out>.staging-1-1` someone else made, a file or a
 * symlink by that name, or the folders of a generate still running beside this one are left alone.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Inside each work folder: the pid of the process that made it. */
export const WORK_MARKER = ".mnote-write";

const WORK_NAME = /^\.(staging|retired)-\d+-\d+$/;

/** The work folders of this process still in use (watch mode writes again and again in one process). */
const inUse = new Set<string>();
let sequence = Date.now();

export interface WorkFolders {
  staging: string;
  retired: string;
  /** Deletes both (keepRetired: all but the retired folder, left for the user to recover from). */
  remove(keepRetired?: boolean): void;
}

/** Makes the staging and retired folders for a write into `dir`, each marked as generate's. */
export function makeWorkFolders(dir: string): WorkFolders {
  const stamp = `${process.pid}-${sequence++}`;
  const name = (kind: string) => join(dirname(dir), `.${basename(dir)}.${kind}-${stamp}`);
  const staging = name("staging");
  const retired = name("retired");
  for (const folder of [staging, retired]) {
    mkdirSync(folder);
    inUse.add(folder);
    writeFileSync(join(folder, WORK_MARKER), `${process.pid}\n`);
  }
  return {
    staging,
    retired,
    remove(keepRetired = false) {
      for (const folder of [staging, retired]) {
        if (!(keepRetired && folder === retired)) rmSync(folder, { recursive: true, force: true });
        inUse.delete(folder);
      }
    },
  };
}

/** Removes the staging and retired folders beside `dir` that a run of generate made and left. */
export function removeLeftovers(dir: string): void {
  const parent = dirname(dir);
  const prefix = `.${basename(dir)}.`;
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(prefix) || !WORK_NAME.test(entry.slice(prefix.length - 1))) continue;
    const path = join(parent, entry);
    if (inUse.has(path)) continue;
    const pid = makerOf(path);
    if (pid !== undefined && !running(pid)) rmSync(path, { recursive: true, force: true });
  }
}

/** The pid in a work folder's marker; undefined when it is not a folder generate made. */
function makerOf(path: string): number | undefined {
  try {
    if (!lstatSync(path).isDirectory() || !lstatSync(join(path, WORK_MARKER)).isFile()) return undefined;
    const text = readFileSync(join(path, WORK_MARKER), "utf8");
    return /^\d+\n$/.test(text) ? Number(text.trim()) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process runs with this pid (this process counts as finished with its own leftovers). */
function running(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
