/**
 * Session grants on PostgreSQL, for instances on several machines: a grant registered through any
 * instance is seen by all, and survives a restart of any of them and of Postgres. A grant's expiry
 * is its own absolute expiresAt (the host's clock, as with every store); liveness is judged by the
 * dispatcher, and expired rows are deleted by the periodic purge (pg-state.ts) on the database's
 * clock.
 */
import type pg from "pg";
import type { SessionGrant } from "../../generated/types";
import type { GrantStore } from "./grant-store";
import { expiryMs } from "../../common/grant-liveness";
import { query } from "./pg-pool";
import { PURGE_BATCH } from "./pg-idempotency-store";

export class PgGrantStore implements GrantStore {
  /** closePool: whoever owns the pool closes it (pg-state.ts); the store only uses it. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly closePool: () => Promise<void> = async () => undefined,
  ) {}

  async put(grant: SessionGrant): Promise<void> {
    // an expiry that cannot be read is stored as already expired (the epoch), never as "forever"
    const expires = expiryMs(grant);
    await query(
      this.pool,
      `INSERT INTO mnote_session_grants (session_id, grant_json, expires_at) VALUES ($1, $2, to_timestamp($3::double precision / 1000))
         ON CONFLICT (session_id) DO UPDATE SET grant_json = excluded.grant_json, expires_at = excluded.expires_at`,
      [grant.sessionId, JSON.stringify(grant), Number.isFinite(expires) ? expires : 0],
    );
  }

  async get(sessionId: string): Promise<SessionGrant | undefined> {
    const result = await query<{ grant_json: string }>(
      this.pool,
      "SELECT grant_json FROM mnote_session_grants WHERE session_id = $1",
      [sessionId],
    );
    const row = result.rows[0];
    return row ? (JSON.parse(row.grant_json) as SessionGrant) : undefined;
  }

  async revoke(sessionId: string): Promise<boolean> {
    const result = await query(this.pool, "DELETE FROM mnote_session_grants WHERE session_id = $1", [sessionId]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Deletes a batch of expired grants; returns how many went. */
  async purgeExpired(): Promise<number> {
    const result = await query(
      this.pool,
      `DELETE FROM mnote_session_grants WHERE session_id IN
         (SELECT session_id FROM mnote_session_grants WHERE expires_at <= now() LIMIT ${PURGE_BATCH})`,
    );
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.closePool();
  }
}
