/**
 * Session grants on PostgreSQL, for instances on several machines: a grant registered through any
 * instance is seen by all, and survives a restart of any of them and of Postgres. A grant's expiry
 * is its own absolute expiresAt (the host's clock, as with every store); liveness is judged by the
 * dispatcher, and expired rows are deleted by the periodic purge (pg-state.ts) on the database's
 * clock.
 *
 * Grants read are cached per process under a lease (grant-cache.ts, `LeasedGrants`): a cached grant
 * is used for at most `leaseMs` after its read was sent, and put and revoke return only once
 * every copy read before their commit has run out of lease, so a revocation is seen by the next call
 * of every instance without a round trip per call to learn it. The pool losing a connection drops
 * the cache too.
 */
import type pg from "pg";
import type { SessionGrant } from "../../generated/types";
import type { GrantStore } from "./grant-store";
import { expiryMs } from "../../common/grant-liveness";
import { query } from "./pg-pool";
import { LeasedGrants, GRANT_LEASE_MS } from "./grant-cache";
import { PURGE_BATCH } from "./pg-idempotency-store";

export class PgGrantStore implements GrantStore {
  private readonly leased: LeasedGrants;

  /**
   * closePool: whoever owns the pool closes it (pg-state.ts); the store only uses it. leaseMs: how
   * long a cached grant is used, and how long put and revoke wait (0: no cache, no wait).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly closePool: () => Promise<void> = async () => undefined,
    leaseMs: number = GRANT_LEASE_MS,
  ) {
    this.leased = new LeasedGrants(leaseMs);
    pool.on("error", () => this.leased.clear());
  }

  async put(grant: SessionGrant): Promise<void> {
    // an expiry that cannot be read is stored as already expired (the epoch), never as "forever"
    const expires = expiryMs(grant);
    await this.leased.write(grant.sessionId, () =>
      query(
        this.pool,
        `INSERT INTO mnote_session_grants (session_id, grant_json, expires_at) VALUES ($1, $2, to_timestamp($3::double precision / 1000))
         ON CONFLICT (session_id) DO UPDATE SET grant_json = excluded.grant_json, expires_at = excluded.expires_at`,
        [grant.sessionId, JSON.stringify(grant), Number.isFinite(expires) ? expires : 0],
      ),
    );
  }

  get(sessionId: string): Promise<SessionGrant | undefined> {
    return this.leased.read(sessionId, Date.now(), async () => {
      const result = await query<{ grant_json: string }>(
        this.pool,
        "SELECT grant_json FROM mnote_session_grants WHERE session_id = $1",
        [sessionId],
      );
      const row = result.rows[0];
      return row ? (JSON.parse(row.grant_json) as SessionGrant) : undefined;
    });
  }

  async revoke(sessionId: string): Promise<boolean> {
    const result = await this.leased.write(sessionId, () =>
      query(this.pool, "DELETE FROM mnote_session_grants WHERE session_id = $1", [sessionId]),
    );
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
