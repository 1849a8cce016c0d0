/**
 * Phase 5a, write: replace the files generate owns in an output folder, and nothing else.
 *
 * An output folder may hold what generate did not write only in the places it keeps (dist/ and
 * node_modules/ at the top, Python caches); anything else foreign stops the run before a byte is
 * written (phases/ownership.ts). So a folder is no longer swapped whole: its owned files are
 * replaced one by one, in three steps, so that a failure (a full disk, a permission, a file in the
 * way) leaves the folder as it was:
 *   1. every new file is written to a staging folder beside the output folder; a failure here
 *      touches nothing in the output folder;
 *   2. the list of owned files is widened to old + new (so a crash after this point leaves every
 *      file generate put there on its list, never one it would later refuse as foreign); then each
 *      owned file that is replaced or stale is moved to a retired folder, and each new file is
 *      renamed into place (renames on one file system, no copying);
 *   3. the final list replaces the widened one, and the retired folder is deleted.
 * Any error in step 2 or 3 is undone in reverse: new files removed, retired files moved back, the
 * old list restored, folders the write made removed again. A process killed in step 2 (no chance
 * to undo) leaves a mix of old and new files that the list covers; the next run replaces them all
 * and deletes the staging and retired folders it left.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { GeneratedFile } from "../targets/target";
import { OWNED_LIST } from "../support/output-path";
import { compareStrings } from "../../common/sort";
import { ownedListFile, parseOwnedList, surveyFolder } from "./ownership";

export { BUILD_OUTPUTS } from "../support/output-path";

/**
 * Makes outDir hold `files` (its own list among them): owned files replaced, owned files no
 * longer generated deleted, everything kept untouched. Throws a ConfigError, writing nothing,
 * when the folder holds a file generate does not own.
 */
export function writeOutput(outDir: string, files: readonly GeneratedFile[], label = outDir): void {
  const survey = surveyFolder(outDir, label);
  // a symlinked output folder (checked to stay inside the project) is written where it leads, so
  // that staging is on the same file system as the folder and every move is a rename
  const dir = existsSync(outDir) ? realpathSync(outDir) : outDir;
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  removeLeftovers(dir);
  const stamp = `${process.pid}-${Date.now()}`;
  const staging = join(parent, `.${basename(dir)}.staging-${stamp}`);
  const retired = join(parent, `.${basename(dir)}.retired-${stamp}`);

  const list = files.find((f) => f.path === OWNED_LIST);
  const newFiles = files.filter((f) => f.path !== OWNED_LIST);
  const newPaths = new Set(newFiles.map((f) => f.path));
  const stale = survey.owned.filter((p) => !newPaths.has(p));
  const finalList = list ?? ownedListFile("#", [...newPaths]);
  const previouslyListed = survey.listText === undefined ? [] : parseOwnedList(survey.listText, label);
  const widened = ownedListFile(finalList.content.split("\n")[0]!, [
    ...new Set([...previouslyListed, ...survey.owned, ...newPaths]),
  ]);

  // step 1: stage; the output folder is not touched
  try {
    for (const file of [...newFiles, finalList]) put(join(staging, "files", file.path), file.content);
    put(join(staging, "widened"), widened.content);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }

  // step 2 and 3, with what was done recorded to undo it
  const made: string[] = [];
  const moved: string[] = [];
  const placed: string[] = [];
  try {
    makeDirs(dir, dir, made);
    renameSync(join(staging, "widened"), join(dir, OWNED_LIST));
    for (const path of [...newPaths, ...stale].sort(compareStrings)) {
      if (!isFile(join(dir, path))) continue;
      makeDirs(dirname(join(retired, path)), retired, []);
      renameSync(join(dir, path), join(retired, path));
      moved.push(path);
    }
    // a file may now stand where a folder of stale files stood, or the reverse
    for (const path of stale) removeEmptyParents(join(dir, path), dir);
    for (const file of newFiles) {
      makeDirs(dirname(join(dir, file.path)), dir, made);
      renameSync(join(staging, "files", file.path), join(dir, file.path));
      placed.push(file.path);
    }
    renameSync(join(staging, "files", OWNED_LIST), join(dir, OWNED_LIST));
  } catch (e) {
    const restored = undo(dir, retired, staging, survey.listText, { made, moved, placed });
    rmSync(staging, { recursive: true, force: true });
    if (restored) rmSync(retired, { recursive: true, force: true });
    else if (e instanceof Error)
      e.message += ` (putting ${label} back failed half way: its previous files are in ${retired} until the next run)`;
    throw e;
  }
  rmSync(retired, { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
}

/** Writes a file, making its folders. */
function put(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** Makes `dir` and its missing parents down from `root`, recording each folder made (outermost first). */
function makeDirs(dir: string, root: string, made: string[]): void {
  if (existsSync(dir)) return;
  if (dir !== root) makeDirs(dirname(dir), root, made);
  mkdirSync(dir);
  made.push(dir);
}

/** Removes the folders above `file` that are empty now, up to (not including) `root`. */
function removeEmptyParents(file: string, root: string): void {
  for (let dir = dirname(file); dir !== root && dir.startsWith(root); dir = dirname(dir)) {
    if (!existsSync(dir) || readdirSync(dir).length > 0) return;
    rmdirSync(dir);
  }
}

/**
 * Puts the folder back as it was: new files out, retired files back, the old list back, folders
 * the write made removed. Returns false when some step failed, so the retired folder (which then
 * still holds old files) is kept for the user to recover from, and not deleted.
 */
function undo(
  dir: string,
  retired: string,
  staging: string,
  oldList: string | undefined,
  done: { made: string[]; moved: string[]; placed: string[] },
): boolean {
  let clean = true;
  const attempt = (step: () => void) => {
    try {
      step();
    } catch {
      clean = false;
    }
  };
  for (const path of [...done.placed].reverse()) attempt(() => unlinkSync(join(dir, path)));
  for (const path of [...done.moved].reverse())
    attempt(() => {
      makeDirs(dirname(join(dir, path)), dir, []);
      renameSync(join(retired, path), join(dir, path));
    });
  attempt(() => {
    if (oldList === undefined) rmSync(join(dir, OWNED_LIST), { force: true });
    else {
      put(join(staging, "restored"), oldList);
      renameSync(join(staging, "restored"), join(dir, OWNED_LIST));
    }
  });
  for (const made of [...done.made].reverse())
    attempt(() => {
      if (existsSync(made) && readdirSync(made).length === 0) rmdirSync(made);
    });
  return clean;
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
