/**
 * Session grants: the trusted binding of a Hermes session to an actor, a page and capabilities,
 * registered by the mnote app. Stored where the runtime keeps its state, so every process serving
 * the same state file sees the same grants. Expired grants are deleted: all of them when the store
 * opens, and a bounded batch on every registration.
 *
 * Each store keeps the grants it read (grant-cache.ts): triggers bump a revision row on every write
 * to the grants table, by any connection or process (and by a runtime of an older version, since
 * the triggers are in the file), and a cached grant is used only while that revision is the one it
 * was read under, so a put or revoke is seen by the very next call everywhere. The revision is one
 * integer read per call, where the grant was a row and a JSON.parse.
 */
import type { SessionGrant } from "../../generated/types";
import { purgeIfFree, statementCache, type Db } from "../../common/sqlite";
import { expiryMs, isGrantLive } from "../../common/grant-liveness";
import type { GrantStore } from "./grants";
import { GrantCache } from "./grant-cache";

// the interface and the principal rule live in grants.ts, apart from SQLite, so the dispatcher's
// types need no driver's
export { grantBelongsTo, type GrantStore, type Principal } from "./grants";

/** How many expired grants one registration removes at most. */
const PURGE_BATCH = 64;

/** The revision row and the triggers that bump it on any write to the grants table. */
const REVISION_SCHEMA = `CREATE TABLE IF NOT EXISTS session_grants_revision (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    n INTEGER NOT NULL
  );
  CREATE TRIGGER IF NOT EXISTS session_grants_inserted AFTER INSERT ON session_grants
    BEGIN UPDATE session_grants_revision SET n = n + 1 WHERE id = 0; END;
  CREATE TRIGGER IF NOT EXISTS session_grants_updated AFTER UPDATE ON session_grants
    BEGIN UPDATE session_grants_revision SET n = n + 1 WHERE id = 0; END;
  CREATE TRIGGER IF NOT EXISTS session_grants_deleted AFTER DELETE ON session_grants
    BEGIN UPDATE session_grants_revision SET n = n + 1 WHERE id = 0; END`;

const REVISION = "SELECT n FROM session_grants_revision WHERE id = 0";

/** The grant and the revision it is current at, read in one statement (one snapshot). */
const GRANT_AT_REVISION = `SELECT (${REVISION}) AS n, (SELECT grant_json FROM session_grants WHERE session_id = ?) AS grant_json`;

export class SqliteGrantStore implements GrantStore {
  private readonly sql: ReturnType<typeof statementCache>;
  private readonly cache = new GrantCache();
  private readonly revision: () => unknown;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS session_grants (
      session_id TEXT PRIMARY KEY,
      grant_json TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS session_grants_expiry ON session_grants(expires_at);
    ${REVISION_SCHEMA}`);
    this.sql = statementCache(db);
    const revision = db.prepare(REVISION).pluck();
    // the row is written once per file (a write lock taken only when it is missing)
    if (revision.get() === undefined)
      db.prepare("INSERT OR IGNORE INTO session_grants_revision (id, n) VALUES (0, 0)").run();
    this.revision = () => revision.get();
    purgeIfFree(db, () => this.sql("DELETE FROM session_grants WHERE expires_at <= ?").run(this.now()));
  }

  async put(grant: SessionGrant): Promise<void> {
    this.cache.drop(grant.sessionId);
    this.sql(
      `DELETE FROM session_grants WHERE session_id IN (SELECT session_id FROM session_grants WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`,
    ).run(this.now());
    // an expiry that cannot be read is stored as already expired (0), never as "forever"
    const expires = expiryMs(grant);
    this.sql(
      "INSERT INTO session_grants (session_id, grant_json, expires_at) VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET grant_json = excluded.grant_json, expires_at = excluded.expires_at",
    ).run(grant.sessionId, JSON.stringify(grant), Number.isFinite(expires) ? expires : 0);
  }

  async get(sessionId: string): Promise<SessionGrant | undefined> {
    const hit = this.cache.find(sessionId);
    // an expired grant is never served from the cache: the row is read and judged as before
    if (hit && isGrantLive(hit.grant, this.now()) && this.revision() === hit.tag) return hit.grant;
    const row = this.sql(GRANT_AT_REVISION).get(sessionId) as { n: number | null; grant_json: string | null };
    const grant = row.grant_json === null ? undefined : (JSON.parse(row.grant_json) as SessionGrant);
    // without the revision row (removed by hand) nothing is cached: NaN equals no revision read
    return this.cache.keep(sessionId, grant, row.n ?? Number.NaN);
  }

  async revoke(sessionId: string): Promise<boolean> {
    this.cache.drop(sessionId);
    return this.sql("DELETE FROM session_grants WHERE session_id = ?").run(sessionId).changes > 0;
  }
}
