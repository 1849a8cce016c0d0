/**
 * Session grants: the trusted binding of a Hermes session to an actor, a page and capabilities,
 * registered by the mnote app. Stored where the runtime keeps its state, so every process serving
 * the same state file sees the same grants. Expired grants are deleted: all of them when the store
 * opens, and a bounded batch on every registration.
 */
import type { SessionGrant } from "../../generated/types";
import { purgeIfFree, statementCache, type Db } from "../../common/sqlite";
import { expiryMs } from "../../common/grant-liveness";
import type { GrantStore } from "./grants";

// the interface and the principal rule live in grants.ts, apart from SQLite, so the dispatcher's
// types need no driver's
export { grantBelongsTo, type GrantStore, type Principal } from "./grants";

/** How many expired grants one registration removes at most. */
const PURGE_BATCH = 64;

export class SqliteGrantStore implements GrantStore {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS session_grants (
      session_id TEXT PRIMARY KEY,
      grant_json TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS session_grants_expiry ON session_grants(expires_at)`);
    this.sql = statementCache(db);
    purgeIfFree(db, () => this.sql("DELETE FROM session_grants WHERE expires_at <= ?").run(this.now()));
  }

  async put(grant: SessionGrant): Promise<void> {
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
    const row = this.sql("SELECT grant_json FROM session_grants WHERE session_id = ?").get(sessionId) as
      { grant_json: string } | undefined;
    return row ? (JSON.parse(row.grant_json) as SessionGrant) : undefined;
  }

  async revoke(sessionId: string): Promise<boolean> {
    return this.sql("DELETE FROM session_grants WHERE session_id = ?").run(sessionId).changes > 0;
  }
}
