/**
 * The per-user cache folder: `<base>/mnote-tools/<name>`, base = $MNOTE_TOOLS_CACHE_DIR, else
 * $XDG_CACHE_HOME, else ~/.cache. What a cache holds can become code (the generator's cache holds
 * generated validators), so a folder another user could write is refused: the answer is then no
 * cache at all (undefined), never a cache someone else can fill.
 */
import { lstatSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** Mode bits that let the group or others write. */
const WRITABLE_BY_OTHERS = 0o022;

/**
 * The cache folder for `name` (created 0700 with its missing parents), or undefined when there is
 * none to use safely: the platform has no user ids, the folder (or its mnote-tools parent) is a
 * symlink, not a folder, owned by another user, or writable by the group or others, or it cannot
 * be created. A relative base in the environment is ignored (the XDG rule).
 */
export function userCacheDir(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (typeof process.getuid !== "function") return undefined;
  if (name === "" || name === "." || name === ".." || /[/\\]/.test(name)) return undefined;
  const base = [env.MNOTE_TOOLS_CACHE_DIR, env.XDG_CACHE_HOME].find((b) => b && isAbsolute(b)) ?? homeCache();
  if (!base) return undefined;
  const parent = join(base, "mnote-tools");
  const dir = join(parent, name);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  return safeFolder(parent) && safeFolder(dir) ? dir : undefined;
}

function homeCache(): string | undefined {
  try {
    const home = homedir();
    return home && isAbsolute(home) ? join(home, ".cache") : undefined;
  } catch {
    return undefined;
  }
}

/** A real folder (not a symlink), owned by this user, that no one else can write. */
function safeFolder(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() && stat.uid === process.getuid!() && (stat.mode & WRITABLE_BY_OTHERS) === 0;
  } catch {
    return false;
  }
}
