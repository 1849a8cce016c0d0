/**
 * The one rule for a path inside an output folder: what a target may emit, and what an ownership
 * list may name. Checked in one place so built-in targets, outside targets and the list that says
 * which files generate may replace or delete are held to the same confinement.
 */

/** The list, in every output folder, of the files generate wrote there (codegen/phases/ownership.ts). */
export const OWNED_LIST = ".mnote-generated";

/**
 * Top-level folders of an output folder that no target writes: what building the generated
 * package makes (dist/) or installs. Writing keeps them, and the drift check ignores them.
 */
export const BUILD_OUTPUTS: readonly string[] = ["dist", "node_modules"];

/** Folders Python writes beside an imported plugin (bytecode caches), at any depth: kept and ignored like BUILD_OUTPUTS. */
export const CACHE_FOLDER = "__pycache__";

/**
 * Why `path` cannot name a file inside its output folder, or undefined when it can: a relative
 * path with forward slashes and no `.`/`..`/empty segment, no absolute path or drive letter, no
 * control character (NUL, newline), and none of the names generate keeps for itself (its list,
 * the build outputs, caches) or for git.
 */
export function outputPathProblem(path: unknown): string | undefined {
  if (typeof path !== "string") return "a path must be a string";
  if (path === "") return "a path must not be empty";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) return "a path must not hold a control character (NUL, newline, ...)";
  // a lone surrogate has no UTF-8 form: the name on disk would not be the name on the list
  if (/\p{Cs}/u.test(path)) return "a path must be well-formed Unicode (no lone surrogate)";
  if (path.includes("\\")) return "a path uses forward slashes, never a backslash";
  if (path.startsWith("/")) return "a path must be relative, not absolute";
  if (/^[A-Za-z]:/.test(path)) return "a path must not start with a drive letter";
  const segments = path.split("/");
  if (segments.includes("")) return "a path must not have an empty segment (// or a trailing /)";
  if (segments.includes("..")) return 'a path must not have a ".." segment (it would leave its folder)';
  if (segments.includes(".")) return 'a path must not have a "." segment';
  if (segments.some((s) => s.toLowerCase() === ".git")) return "a path must not name a .git folder";
  if (path === OWNED_LIST) return `${OWNED_LIST} is generate's own list of the files it wrote`;
  if (BUILD_OUTPUTS.includes(segments[0]!))
    return `${segments[0]}/ at the top is kept for the package build, no target writes there`;
  if (segments.includes(CACHE_FOLDER)) return `${CACHE_FOLDER}/ is Python's cache, no target writes into it`;
  return undefined;
}
