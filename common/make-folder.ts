/**
 * `mkdir -p`, one level at a time. Node's own recursive mkdir never returns on some file systems:
 * under /proc it gets ENOENT for a level it just "made" and tries again forever, so a cache folder,
 * a database or a token file named there (MNOTE_TOOLS_CACHE_DIR=/proc/x) hung every command. Here
 * each missing level is made once, so the call ends after at most as many mkdirs as the path has
 * levels, and the error is the real one (ENOENT, EROFS, EACCES, ENOTDIR).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Makes `dir` and its missing parents (each with `mode` when given); an existing folder is fine. */
export function makeFolders(dir: string, mode?: number): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, mode === undefined ? undefined : { mode });
    } catch (e) {
      // another process made it between our look and our mkdir: what we wanted is there
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}
