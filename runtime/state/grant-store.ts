/**
 * Session grants: the trusted binding of a Hermes session to an actor, a page and capabilities,
 * registered by the mnote app. Stored where the runtime keeps its state, so every process serving
 * the same state file sees the same grants.
 */
import type { SessionGrant } from "../../generated/types";
import { statementCache, type Db } from "../../common/sqlite";

export interface GrantStore {
  put(grant: SessionGrant): Promise<void>;
  get(sessionId: string): Promise<SessionGrant | undefined>;
  revoke(sessionId: string): Promise<boolean>;
  /** Releases a connection the store holds, if any. */
  close?(): void | Promise<void>;
}

export class SqliteGrantStore implements GrantStore {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(db: Db) {
    db.exec(`CREATE TABLE IF NOT EXISTS session_grants (
      session_id TEXT PRIMARY KEY,
      grant_json TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    )`);
    this.sql = statementCache(db);
  }

  async put(grant: SessionGrant): Promise<void> {
    this.sql(
      "INSERT INTO session_grants (session_id, grant_json, expires_at) VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET grant_json = excluded.grant_json, expires_at = excluded.expires_at",
    ).run(grant.sessionId, JSON.stringify(grant), Date.parse(grant.expiresAt));
  }

  async get(sessionId: string): Promise<SessionGrant | undefined> {
    const row = this.sql("SELECT grant_json FROM session_grants WHERE session_id = ?").get(sessionId) as { grant_json: string } | undefined;
    return row ? (JSON.parse(row.grant_json) as SessionGrant) : undefined;
  }

  async revoke(sessionId: string): Promise<boolean> {
    return this.sql("DELETE FROM session_grants WHERE session_id = ?").run(sessionId).changes > 0;
  }
}
