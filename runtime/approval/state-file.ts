/**
 * The runtime's state file may hold the approval tokens' signing key (runtime/approval/secret.ts):
 * whoever reads it and has the tool token can mint an approval. So the file is created 0600 (SQLite
 * gives its -wal and -shm files the database file's mode), and an existing one that group or
 * others can read is refused at start-up when the key lives there (no MNOTE_APPROVAL_SECRET):
 * refused rather than fixed, since the key may already have been read (docs/APPROVAL.md).
 */
import { closeSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { makeFolders } from "../../common/make-folder";

/** A state file holding the signing key that group or others can read (exit 3 in the CLI). */
export class StateFileExposedError extends Error {
  constructor(
    readonly path: string,
    readonly mode: number,
  ) {
    super(
      `the state file ${path} holds the approval signing key and is readable by group or others ` +
        `(mode ${(mode & 0o777).toString(8).padStart(4, "0")}): make it private (chmod 600 ${path}) ` +
        `and set MNOTE_APPROVAL_SECRET to a new secret, or start from a new state file, since the old key may have been read`,
    );
    this.name = "StateFileExposedError";
  }
}

/** Whether a path is a file on disk whose mode means anything (not SQLite's in-memory database, not Windows). */
function onDisk(path: string): boolean {
  return path !== ":memory:" && path !== "" && !path.startsWith("file:") && process.platform !== "win32";
}

/** Creates the state file 0600 when it does not exist yet (a folder that cannot be made is left to the opener to report). */
export function createPrivateFile(path: string): void {
  if (!onDisk(path)) return;
  try {
    makeFolders(dirname(path));
    closeSync(openSync(path, "wx", 0o600));
  } catch {
    // it exists (the caller checks its mode), or the opener reports why it cannot be made
  }
}

/**
 * Creates the state file 0600 if it is new; when it holds the key, refuses an existing one that
 * group or others can read.
 */
export function privateStateFile(path: string, holdsKey: boolean): void {
  createPrivateFile(path);
  if (!onDisk(path) || !holdsKey) return;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return; // not there: the opener says why
  }
  if ((mode & 0o077) !== 0) throw new StateFileExposedError(path, mode);
}
