/** Opening an embedded SQLite database the way every store here wants it. */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

export type Db = Database.Database;

/**
 * WAL, so several processes (two `serve`s) share one file; a busy timeout, so they wait for each
 * other's transactions instead of failing; NORMAL sync, which survives a killed process (the
 * guarantee the crash tests check), not a power cut.
 */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  if (path !== ":memory:") db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 10000");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  return db;
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
