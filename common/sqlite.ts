/** Opening an embedded SQLite database the way every store here wants it. */
import type Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeFolders } from "./make-folder";

export type Db = Database.Database;

/**
 * A database file that cannot be opened: its folder cannot be made, the disk is full or read-only,
 * the file is not a database. `code` is the cause's (EROFS, SQLITE_FULL, ...), so the CLI can tell
 * an environment problem from a bug (cli/exit.ts) and say which file.
 */
export class DatabaseOpenError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
    cause: Error,
  ) {
    // Node's "EROFS: read-only file system, mkdir '/x'" -> "read-only file system"
    const words = cause.message.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "");
    super(`cannot open the database ${path}: ${words} (${code})`, { cause });
    this.name = "DatabaseOpenError";
  }
}

/**
 * WAL, so several processes (two `serve`s) share one file; a busy timeout, so they wait for each
 * other's transactions instead of failing; NORMAL sync, which survives a killed process (the
 * guarantee the crash tests check), not a power cut.
 */
export function openDatabase(path: string): Db {
  let db: Db | undefined;
  try {
    if (path !== ":memory:") makeFolders(dirname(path));
    // loaded here, not with this module: the dispatcher reads isStoreUnavailable below, and a runtime
    // whose state is on Redis or PostgreSQL never installs the native module (docs/PACKAGES.md)
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (see above)
    const Sqlite = require("better-sqlite3") as typeof Database;
    db = new Sqlite(path, { nativeBinding: nativeBinding() });
    if (path !== ":memory:") db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 10000");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    return db;
  } catch (e) {
    db?.close();
    const code = (e as { code?: unknown }).code;
    if (e instanceof Error && typeof code === "string") throw new DatabaseOpenError(path, code, e);
    throw e;
  }
}

/**
 * Where better-sqlite3's compiled addon is: its own build/Release folder, where `npm install` puts
 * it (prebuilt or compiled). Named, the addon is loaded at once; unnamed, better-sqlite3 asks the
 * `bindings` package, which tries a dozen folders (a one-shot `call` paid for the search and two
 * more modules). Looked up once per process. The package's own search (undefined) when the addon is
 * not there, or when a folder that search tries before build/Release has one (build/, build/Debug/:
 * a debug build), so the addon loaded is always the one the package would load.
 */
let addonPath: string | null | undefined = null;
function nativeBinding(): string | undefined {
  if (addonPath === null) {
    const build = join(dirname(require.resolve("better-sqlite3")), "..", "build");
    const at = (...folder: string[]) => join(build, ...folder, "better_sqlite3.node");
    const first = existsSync(at()) || existsSync(at("Debug"));
    addonPath = !first && existsSync(at("Release")) ? at("Release") : undefined;
  }
  return addonPath;
}

/**
 * Statements compiled once per SQL text and reused: better-sqlite3 would otherwise recompile the
 * same SQL on every call, which the dispatch profile showed as a third of its time.
 */
export function statementCache(db: Db): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * SQLite result codes that mean the store cannot take a write right now, through no fault of the
 * request: a full disk (SQLITE_FULL), a read-only file or folder (SQLITE_READONLY*), an I/O error
 * (SQLITE_IOERR*), a file that cannot be opened (SQLITE_CANTOPEN*), or a lock held past the busy
 * timeout (SQLITE_BUSY*, SQLITE_LOCKED*). Extended codes (SQLITE_IOERR_WRITE...) included.
 */
const STORE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED)(_|$)/;

/** The same answer from another store (runtime/state/pg-pool.ts StoreUnavailableError: Postgres down). */
const OTHER_STORE_UNAVAILABLE = "MNOTE_STORE_UNAVAILABLE";

/**
 * Whether an error is one of those (an answer of "retry later", not a bug). Read by its code, not
 * by `instanceof`: better-sqlite3's native binding keeps the error class of the realm that first
 * loaded it, which need not be the caller's (a test runner's module sandbox, for one).
 */
export function isStoreUnavailable(e: unknown): boolean {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" && (STORE_UNAVAILABLE.test(code) || code === OTHER_STORE_UNAVAILABLE);
}

/**
 * Runs a housekeeping write (purging expired rows when a store opens) only if the database can take
 * it at once: a store that is locked by another writer, full or read-only must not keep a process
 * from starting, nor make it wait a busy timeout before its real work. A purge skipped here runs
 * later, a bounded batch with a write.
 */
export function purgeIfFree(db: Db, purge: () => void): void {
  const timeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma("busy_timeout = 0");
  try {
    purge();
  } catch (e) {
    if (!isStoreUnavailable(e)) throw e;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
