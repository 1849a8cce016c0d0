/** Every row of every table of a SQLite file, hashed: "nothing was written" is this hash unchanged. */
import { createHash } from "node:crypto";
import Database from "better-sqlite3";

/** The hash of every row of every table of the database at `path` (opened read-only). */
export function dbFileHash(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const hash = createHash("sha256");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>;
    for (const { name } of tables) {
      hash.update(`#${name}\n`);
      for (const row of db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all()) hash.update(JSON.stringify(row) + "\n");
    }
    return hash.digest("hex");
  } finally {
    db.close();
  }
}

/** The `n` a counting query (`SELECT count(*) AS n ...`) answers on the SQLite file at `path` (opened read-only). */
export function countRows(path: string, sql: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
