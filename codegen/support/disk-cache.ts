/**
 * The generator's costly steps kept on disk, across processes, so a one-shot `generate` after an
 * edit redoes only what the edit reached (memo.ts keeps them in memory for watch mode). An entry
 * is the text a step made, stored under the sha256 of the generator's fingerprint (generator-
 * fingerprint.ts: this code, its templates, ajv's and json-schema-to-typescript's versions), the
 * step's name and the content hash of exactly what the step reads: a changed generator or a
 * changed input is a different name, never a stale entry.
 *
 * The folder is the user's own (common/user-cache.ts refuses one another user could write), and
 * still an entry is checked before it is used: it names itself and the sha256 of its text, and
 * one that does not match (cut short, edited, copied under another name) is ignored and made
 * again. Entries are written whole (a temp file renamed over), 0600. An entry is opened without
 * blocking and only when it is a regular file (lstat first, then O_NONBLOCK | O_NOFOLLOW and the
 * same check on the open descriptor): a FIFO or a device under an entry's name is refused, never
 * waited on.
 *
 * The checksum catches accidents, not the cache's owner: whoever can write the folder can write an
 * entry with a matching sum. So the drift check (`generate --check`) never reads the cache
 * (useDiskCache's `read: false`): it makes every step itself and only stores what it made.
 */
import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { constants, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../common/hash";
import { generatorFingerprint } from "./generator-fingerprint";

/** The first line of every entry: the format, so another format is a miss. */
const MAGIC = "mnote-tools codegen cache 1";
/** Entries kept, the most recently used first: at most this many, and this many bytes in all (the 200-tool synthetic contract's validators are 8 MB). */
const KEEP = 48;
const KEEP_BYTES = 256 * 1024 * 1024;

let folder: string | undefined;
/** Whether entries are read (false: the drift check, which trusts only what it made; see above). */
let reading = true;
const counts = { hits: 0, misses: 0, rejected: 0 };

/**
 * Turns the cache on (a folder from userCacheDir) or off (undefined, the default). With
 * `read: false` nothing is read from it (every step runs) and what the steps made is stored.
 */
export function useDiskCache(dir: string | undefined, options: { read?: boolean } = {}): void {
  folder = dir;
  reading = options.read ?? true;
}

/** Whether a step's result is looked for on disk. */
export function diskCacheOn(): boolean {
  return folder !== undefined;
}

/** Entries found, made, and found but refused (failed their check), since the process started. */
export function diskCacheCounts(): { hits: number; misses: number; rejected: number } {
  return { ...counts };
}

/** The entry's file name: the generator, the step and the content hash of its input. */
function entryName(step: string, inputHash: string): string {
  return sha256Hex(`${generatorFingerprint()}\0${step}\0${inputHash}`);
}

/** The text stored for (step, inputHash), or undefined: no cache, no entry, or an entry that fails its check. */
export function readEntry(step: string, inputHash: string): string | undefined {
  if (!folder || !reading) return undefined;
  const name = entryName(step, inputHash);
  const path = join(folder, name);
  let text: string | undefined;
  try {
    text = readRegularFile(path);
  } catch {
    counts.misses++;
    return undefined;
  }
  if (text === undefined) {
    counts.rejected++;
    return undefined;
  }
  const body = checkedBody(text, name);
  if (body === undefined) {
    counts.rejected++;
    return undefined;
  }
  counts.hits++;
  try {
    const now = new Date();
    utimesSync(path, now, now); // recently used: the last to be pruned
  } catch {
    // a cache that cannot be touched still answers
  }
  return body;
}

/** A regular file of this user's only, 0600 or tighter */
const isOwnPrivateFile = (stat: { isFile(): boolean; uid: number; mode: number }) =>
  stat.isFile() && stat.uid === process.getuid?.() && (stat.mode & 0o077) === 0;

/**
 * The text of path when it is a regular file of this user's only; undefined when it is anything
 * else (a FIFO, a device, a symlink, another user's). Throws when there is nothing at path. Never
 * blocks: the type is read with lstat before the open, the open is non-blocking and follows no
 * symlink, and the descriptor is checked again (the name may have been swapped in between).
 */
function readRegularFile(path: string): string | undefined {
  if (!isOwnPrivateFile(lstatSync(path))) return undefined;
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return isOwnPrivateFile(fstatSync(fd)) ? readFileSync(fd, "utf8") : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The body of an entry whose header names it and the sha256 of its body; undefined otherwise. */
function checkedBody(text: string, name: string): string | undefined {
  const [magic, named, sum] = text.split("\n", 3);
  if (magic !== MAGIC || named !== name || sum === undefined) return undefined;
  const body = text.slice(magic.length + named.length + sum.length + 3);
  return sha256Hex(body) === sum ? body : undefined;
}

/** Stores text for (step, inputHash); a cache that cannot be written is no cache, never a failed run. */
export function writeEntry(step: string, inputHash: string, body: string): void {
  if (!folder) return;
  const name = entryName(step, inputHash);
  const temp = join(folder, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    writeFileSync(temp, `${MAGIC}\n${name}\n${sha256Hex(body)}\n${body}`, { mode: 0o600, flag: "wx" });
    renameSync(temp, join(folder, name));
  } catch {
    rmSync(temp, { force: true });
    return;
  }
  prune(folder);
}

/** Keeps the most recently used entries (KEEP, KEEP_BYTES), and drops temp files an interrupted run left. */
function prune(dir: string): void {
  try {
    const entries = readdirSync(dir).map((name) => {
      const stat = statSync(join(dir, name));
      return { name, at: stat.mtimeMs, size: stat.size };
    });
    const stale = Date.now() - 3_600_000;
    for (const e of entries) if (e.name.endsWith(".tmp") && e.at < stale) rmSync(join(dir, e.name), { force: true });
    let bytes = 0;
    const byUse = entries.filter((e) => /^[0-9a-f]{64}$/.test(e.name)).sort((a, b) => b.at - a.at);
    byUse.forEach((e, i) => {
      bytes += e.size;
      if (i >= KEEP || (i > 0 && bytes > KEEP_BYTES)) rmSync(join(dir, e.name), { force: true });
    });
  } catch {
    // another process pruning at the same time: what it removed is gone either way
  }
}
