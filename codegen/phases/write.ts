/**
 * Phase 5a, write: replace the files generate owns in an output folder, and nothing else.
 *
 * An output folder may hold what generate did not write only in the places it keeps (dist/ and
 * node_modules/ at the top, Python caches); anything else foreign stops the run before a byte is
 * written (phases/ownership.ts). Its owned files are replaced one by one, so that a reader (a
 * watcher, a dev server, a test) never finds one missing or half written, and a failure (a full
 * disk, a permission, a file in the way) leaves the folder as it was:
 *   1. every new file is written to a staging folder beside the output folder (same file system,
 *      so each later move is a rename); a failure here touches nothing in the output folder;
 *   2. the list of owned files is widened to old + new (so a crash from here on leaves every file
 *      generate put there on its list), then each new file is renamed over the old one: a rename
 *      replaces a file in one step, so the path always holds the old or the new text. The old
 *      text is kept in memory to undo with;
 *   3. only then are stale files moved to the retired folder, and the final list renamed over the
 *      widened one. (A stale file or folder standing where a new one goes is moved first: there
 *      is no other way to put the new one there.)
 * Any error in step 2 or 3 is undone in reverse: old texts renamed back, new files removed, stale
 * files moved back, the old list restored, folders the write made removed again. A process killed
 * half way leaves a mix of old and new files that the list covers; the next run replaces them all
 * and deletes the staging and retired folders that run made (marked as such: work-folders.ts).
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
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
import { makeFolders } from "../../common/make-folder";
import { ownedListFile, parseOwnedList, surveyFolder } from "./ownership";
import { makeWorkFolders, removeLeftovers, type WorkFolders } from "./work-folders";

export { BUILD_OUTPUTS } from "../support/output-path";

/** What steps 2 and 3 did, in order, so that undo can take it back. */
interface Done {
  made: string[];
  /** New files renamed into place, with the text each replaced (none: there was no file). */
  placed: Array<{ path: string; old?: Buffer }>;
  /** Stale files moved to retired (a Buffer: a name on disk that is not UTF-8). */
  moved: Array<string | Buffer>;
}

/** What a write changed: the files whose text it wrote (new or different) and those it removed. */
export interface WriteReport {
  written: string[];
  removed: string[];
}

/**
 * Makes outDir hold `files` (its own list among them): owned files replaced, owned files no
 * longer generated deleted, everything kept untouched. Throws a ConfigError, writing nothing,
 * when the folder holds a file generate does not own. Returns what it changed.
 */
export function writeOutput(outDir: string, files: readonly GeneratedFile[], label = outDir): WriteReport {
  const survey = surveyFolder(outDir, label);
  // a symlinked output folder (checked to stay inside the project) is written where it leads, so
  // that staging is on the same file system as the folder and every move is a rename
  const dir = existsSync(outDir) ? realpathSync(outDir) : outDir;
  makeFolders(dirname(dir));
  removeLeftovers(dir);

  const list = files.find((f) => f.path === OWNED_LIST);
  const newFiles = [...files.filter((f) => f.path !== OWNED_LIST)].sort((a, b) => compareStrings(a.path, b.path));
  const newPaths = new Set(newFiles.map((f) => f.path));
  const stale = survey.owned.filter((p) => !newPaths.has(p));
  const finalList = list ?? ownedListFile("#", [...newPaths]);
  const previouslyListed = survey.listText === undefined ? [] : parseOwnedList(survey.listText, label);
  const widened = ownedListFile(finalList.content.split("\n")[0]!, [
    ...new Set([...previouslyListed, ...survey.owned, ...newPaths]),
  ]);

  // a file that already holds its new text is left alone: no write, no new mtime for a watcher
  const owned = new Set(survey.owned);
  const changed = newFiles.filter((f) => !(owned.has(f.path) && holds(join(dir, f.path), f.content)));
  const report = { written: changed.map((f) => f.path), removed: [...stale] };
  if (changed.length + stale.length + survey.unreadableNames.length === 0 && survey.listText === finalList.content)
    return report;

  // step 1: stage; the output folder is not touched
  const work = makeWorkFolders(dir);
  // flat (one file a number): a folder tree here would be made and removed again on every write
  const staged = (i: number) => join(work.staging, String(i));
  try {
    changed.forEach((file, i) => writeFileSync(staged(i), file.content));
    writeFileSync(join(work.staging, "list"), finalList.content);
    writeFileSync(join(work.staging, "widened"), widened.content);
  } catch (e) {
    work.remove();
    throw e;
  }

  const done: Done = { made: [], placed: [], moved: [] };
  try {
    makeDirs(dir, dir, done.made);
    move(join(work.staging, "widened"), join(dir, OWNED_LIST));
    // a stale file where a new folder goes (or a stale folder's files where a new file goes)
    const blocking = stale.filter((s) => [...newPaths].some((n) => s.startsWith(n + "/") || n.startsWith(s + "/")));
    for (const path of blocking) retire(dir, work, path, done);
    for (const path of blocking) removeEmptyParents(join(dir, path), dir);
    changed.forEach((file, i) => place(dir, staged(i), file.path, done));
    for (const path of stale) if (!blocking.includes(path)) retire(dir, work, path, done);
    for (const raw of survey.unreadableNames) retire(dir, work, raw, done);
    for (const path of stale) removeEmptyParents(join(dir, path), dir);
    move(join(work.staging, "list"), join(dir, OWNED_LIST));
  } catch (e) {
    const restored = undo(dir, work, survey.listText, done);
    work.remove(!restored);
    if (!restored) {
      if (e instanceof Error)
        e.message += ` (putting ${label} back failed half way: its previous files are in ${work.retired} until the next run)`;
    }
    throw e;
  }
  work.remove();
  return report;
}

/** Renames a staged file over its place, keeping the old text (if any) in memory to undo with. */
function place(dir: string, staged: string, path: string, done: Done): void {
  const target = join(dir, path);
  makeDirs(dirname(target), dir, done.made);
  const old = isFile(target) ? readFileSync(target) : undefined;
  move(staged, target);
  done.placed.push({ path, old });
}

/**
 * Moves a file: a rename, or, when the two places are on different file systems (EXDEV: an output
 * folder that is itself a mounted volume, its work folders beside it on the parent's), a copy to a
 * temporary name beside the target and a rename over it (so the target still changes in one step),
 * then the source removed. A run killed between the copy and the rename leaves the temporary file
 * (`.<name>.mnote-partial-<pid>`), which the next run names as a file generate does not own.
 */
export function move(from: string | Buffer, to: string | Buffer, rename = renameSync): void {
  try {
    rename(from, to);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e;
  }
  const target = to.toString();
  const temporary = join(dirname(target), `.${basename(target)}.mnote-partial-${process.pid}`);
  try {
    copyFileSync(from, temporary);
    renameSync(temporary, to);
  } catch (e) {
    rmSync(temporary, { force: true });
    throw e;
  }
  unlinkSync(from);
}

/** Moves an owned file to retired (a Buffer path: relative, raw bytes of a name that is not UTF-8). */
function retire(dir: string, work: WorkFolders, path: string | Buffer, done: Done): void {
  const from = at(dir, path);
  if (!isFile(from)) return;
  const to = at(work.retired, path);
  makeDirs(dirname(to.toString()), work.retired, []);
  move(from, to);
  done.moved.push(path);
}

/** dir/path, as a string or, for a raw name, as bytes (fs takes both). */
function at(dir: string, path: string | Buffer): string | Buffer {
  return typeof path === "string" ? join(dir, path) : Buffer.concat([Buffer.from(dir + "/"), path]);
}

/** Whether a file holds exactly `content` (compared only when the sizes agree). */
function holds(path: string, content: string): boolean {
  try {
    // bytes, not text: a file that is not UTF-8 could read as the same text
    return lstatSync(path).size === Buffer.byteLength(content) && readFileSync(path).equals(Buffer.from(content));
  } catch {
    return false;
  }
}

function isFile(path: string | Buffer): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
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
    if (!isDirectory(dir) || readdirSync(dir).length > 0) return;
    rmdirSync(dir);
  }
}

/**
 * Puts the folder back as it was: old texts renamed back over new ones, new files out, stale files
 * back, the old list back, folders the write made removed. Returns false when some step failed,
 * so the retired folder (which then still holds old files) is kept for the user to recover from.
 */
function undo(dir: string, work: WorkFolders, oldList: string | undefined, done: Done): boolean {
  let clean = true;
  const attempt = (step: () => void) => {
    try {
      step();
    } catch {
      clean = false;
    }
  };
  // new files first: a stale folder may come back where a new file stood
  for (const { path, old } of [...done.placed].reverse())
    attempt(() => {
      if (old === undefined) return unlinkSync(join(dir, path));
      writeFileSync(join(work.staging, "restored"), old);
      move(join(work.staging, "restored"), join(dir, path));
    });
  for (const path of [...done.moved].reverse())
    attempt(() => {
      const to = at(dir, path);
      makeDirs(dirname(to.toString()), dir, []);
      move(at(work.retired, path), to);
    });
  attempt(() => {
    if (oldList === undefined) rmSync(join(dir, OWNED_LIST), { force: true });
    else {
      writeFileSync(join(work.staging, "restored"), oldList);
      move(join(work.staging, "restored"), join(dir, OWNED_LIST));
    }
  });
  for (const made of [...done.made].reverse())
    attempt(() => {
      if (existsSync(made) && readdirSync(made).length === 0) rmdirSync(made);
    });
  return clean;
}
