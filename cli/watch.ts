/**
 * Watching a folder for `generate --watch`, the way editors and tools change files: saved by
 * writing a temporary file and renaming it over the old one (most editors), deleted and written
 * anew, whole sub-folders removed and recreated (a git checkout), the folder itself removed and
 * recreated. Node's fs.watch follows inodes, so it goes deaf after the first rename-save; chokidar
 * re-arms on each of these. The folder itself is watched from its parent, so it may disappear and
 * come back.
 */
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import type { FSWatcher } from "chokidar";

export interface FolderWatch {
  /** Resolves once the first scan is done: changes after it are reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * After a folder under dir (or dir itself) appears or vanishes, and chokidar's re-scan has settled
 * for this long, the watch is re-armed and checked (see watchFolder).
 */
const FOLDER_SETTLE_MS = 150;
/** Later checks after a folder event, for a save that lands while the re-armed watch starts. */
const CONFIRM_AFTER_MS = [1_000, 3_000];

/**
 * Calls onChange (debounced by debounceMs) after any file or folder under dir is added, changed or
 * removed, including dir itself.
 *
 * Why the re-arm after a folder event: when a folder is removed and recreated (a git checkout, or
 * dir itself), chokidar rebuilds its fs.watch handles (one per file and folder, shared per path in
 * a process-wide table) from the removal's and the re-creation's events in the order they arrive,
 * and that order depends on how busy the process is (a generation run keeps the loop busy while
 * the events queue). test/codegen/watch.test.ts's last step failed this way on loaded cores (2 of 4
 * runs one evening, none of 30 the next hour): the recreated file was reported once (by chokidar's
 * re-scan) and a later plain save of it was never heard. The likely cause, read from chokidar 4's
 * source and not observed, is a handle left on the removed inode.
 * So once the folder events have settled, the chokidar watcher is closed and opened anew (every
 * handle on the current inodes), and a snapshot of the tree (path, size, mtimeMs of every entry,
 * about a millisecond for a contract) taken when the last change was reported is compared with
 * the tree now: a save made while the watch was being re-armed still triggers a run. Plain
 * saves never pay for this; only a folder appearing or vanishing does.
 */
export async function watchFolder(dir: string, onChange: () => void, debounceMs = 30): Promise<FolderWatch> {
  const { watch } = await import("chokidar");
  const root = resolve(dir);
  const inside = (path: string) => path === root || path.startsWith(root + sep);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let reported = snapshot(root);
  const confirms: NodeJS.Timeout[] = [];
  const report = () => {
    reported = snapshot(root);
    onChange();
  };
  const confirm = () => {
    if (!closed && !sameSnapshot(reported, snapshot(root))) report();
  };

  const open = async (): Promise<FSWatcher> => {
    // the parent is watched one level deep for dir itself; dir is watched whole
    const w = watch([root, dirname(root)], {
      ignoreInitial: true,
      // the parent's other entries are not followed: depth counts from each watched path, so the
      // filter keeps only dir and what is under it
      ignored: (path: string) => !inside(path) && path !== dirname(root),
      // a rename-save lands as unlink + add: wait until the file stops changing before reporting.
      // Short: it is most of the delay between a save and generated/ (docs/BENCHMARKS.md, round 3);
      // a file caught half written fails to parse, and its next write is a change of its own
      awaitWriteFinish: { stabilityThreshold: 30, pollInterval: 10 },
    });
    w.on("all", (event, path) => {
      if (!inside(resolve(path))) return;
      clearTimeout(timer);
      timer = setTimeout(report, debounceMs);
      if (event === "addDir" || event === "unlinkDir") scheduleRearm();
    });
    await new Promise<void>((r) => w.once("ready", () => r()));
    return w;
  };

  let watcher = await open();
  let rearming = Promise.resolve();
  const rearm = async () => {
    if (closed) return;
    await watcher.close();
    if (closed) return;
    watcher = await open();
    confirm();
  };
  const scheduleRearm = () => {
    for (const t of confirms.splice(0)) clearTimeout(t);
    confirms.push(
      setTimeout(() => {
        rearming = rearming.then(rearm);
      }, FOLDER_SETTLE_MS),
    );
    for (const ms of CONFIRM_AFTER_MS) confirms.push(setTimeout(confirm, FOLDER_SETTLE_MS + ms));
  };

  return {
    ready: Promise.resolve(),
    async close() {
      closed = true;
      clearTimeout(timer);
      for (const t of confirms.splice(0)) clearTimeout(t);
      // a re-arm under way opens its watcher before this closes the current one
      await rearming;
      await watcher.close();
    },
  };
}

/** Every entry under dir with its size and mtime; an absent or unreadable dir is empty. */
export function snapshot(dir: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return; // gone meanwhile: what is left is what there is
    }
    for (const name of names) {
      const path = join(folder, name);
      try {
        // lstat: a symlink is an entry, not a folder to walk (a link to a parent would never end)
        const s = lstatSync(path);
        entries.set(path, `${s.isDirectory() ? "d" : "f"}:${s.size}:${s.mtimeMs}`);
        if (s.isDirectory()) walk(path);
      } catch {
        // removed between the listing and the stat
      }
    }
  };
  walk(dir);
  return entries;
}

export function sameSnapshot(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, v] of a) if (b.get(path) !== v) return false;
  return true;
}
