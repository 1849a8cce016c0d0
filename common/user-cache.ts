/**
 * A per-user cache folder, `<base>/mnote-tools/<name>`: base is MNOTE_TOOLS_CACHE_DIR, else
 * XDG_CACHE_HOME, else ~/.cache (a relative base in the environment is ignored, the XDG rule). What is cached there becomes code this process runs (V8's compiled
 * modules, generated files), so the folder must be one only the user can write: missing folders are
 * made 0700, and a folder that is a symlink, belongs to another user or is group/world-writable
 * means no cache (undefined) rather than an error; the caller runs without it.
 */
import { lstatSync, mkdirSync, statSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { makeFolders } from "./make-folder";

/** The folder for `name`'s cache, made if missing; undefined when no safe one can be had. */
export function userCacheDir(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return undefined;
  const base = baseDir(env);
  if (base === undefined) return undefined;
  try {
    makeFolders(base, 0o700);
    // the base may be shared (/tmp has the sticky bit); the folders we make in it must be ours alone
    if (!safeBase(statSync(base))) return undefined;
    const top = privateFolder(join(base, "mnote-tools"));
    return top === undefined ? undefined : privateFolder(join(top, name));
  } catch {
    return undefined; // unwritable home, a file where a folder should be: run without a cache
  }
}

/** The folder, made 0700 if missing; undefined unless it is a real folder only we can write. */
function privateFolder(path: string): string | undefined {
  try {
    mkdirSync(path, { mode: 0o700 }); // not recursive: never through a symlink someone put there
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  return ownPrivate(lstatSync(path)) ? path : undefined;
}

function baseDir(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = [env.MNOTE_TOOLS_CACHE_DIR, env.XDG_CACHE_HOME].find((b) => b && isAbsolute(b));
  if (chosen) return resolve(chosen);
  const home = env.HOME || safeHomedir();
  return home && isAbsolute(home) ? join(resolve(home), ".cache") : undefined;
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/** The current user's id, or undefined where there are none (Windows: modes say nothing there). */
function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** A real folder of ours that no group or other user can write. */
function ownPrivate(stats: Stats): boolean {
  if (stats.isSymbolicLink() || !stats.isDirectory()) return false;
  const uid = currentUid();
  if (uid === undefined) return true;
  return stats.uid === uid && (stats.mode & 0o022) === 0;
}

/**
 * The base folder (followed if a symlink: a home on another disk is the user's choice): anyone's,
 * but one where no other user can rename our folder away and put theirs in its place: not writable
 * by group or others, or sticky (/tmp).
 */
function safeBase(stats: Stats): boolean {
  if (!stats.isDirectory()) return false;
  if (currentUid() === undefined) return true;
  return (stats.mode & 0o022) === 0 || (stats.mode & 0o1000) !== 0;
}
