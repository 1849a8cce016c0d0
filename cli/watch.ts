/**
 * Watching a folder for `generate --watch`, the way editors and tools change files: saved by
 * writing a temporary file and renaming it over the old one (most editors), deleted and written
 * anew, whole sub-folders removed and recreated (a git checkout), the folder itself removed and
 * recreated. Node's fs.watch follows inodes, so it goes deaf after the first rename-save; chokidar
 * re-arms on each of these. The folder itself is watched from its parent, so it may disappear and
 * come back.
 */
import { dirname, resolve, sep } from "node:path";

export interface FolderWatch {
  /** Resolves once the first scan is done: changes after it are reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Calls onChange (debounced by debounceMs) after any file or folder under dir is added, changed or
 * removed, including dir itself.
 */
export async function watchFolder(dir: string, onChange: () => void, debounceMs = 30): Promise<FolderWatch> {
  const { watch } = await import("chokidar");
  const root = resolve(dir);
  const inside = (path: string) => path === root || path.startsWith(root + sep);
  let timer: NodeJS.Timeout | undefined;
  // the parent is watched one level deep for dir itself; dir is watched whole
  const watcher = watch([root, dirname(root)], {
    ignoreInitial: true,
    // the parent's other entries are not followed: depth counts from each watched path, so the
    // filter keeps only dir and what is under it
    ignored: (path: string) => !inside(path) && path !== dirname(root),
    // a rename-save lands as unlink + add: wait until the file stops changing before reporting.
    // Short: it is most of the delay between a save and generated/ (docs/BENCHMARKS.md, round 3);
    // a file caught half written fails to parse, and its next write is a change of its own
    awaitWriteFinish: { stabilityThreshold: 30, pollInterval: 10 },
  });
  watcher.on("all", (_event, path) => {
    if (!inside(resolve(path))) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  const ready = new Promise<void>((r) => watcher.once("ready", () => r()));
  await ready;
  return {
    ready,
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
