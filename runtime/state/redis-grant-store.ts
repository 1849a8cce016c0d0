/**
 * Session grants on Redis, for several runtime instances: a grant registered through any instance
 * is seen by all. One key per session, `<prefix>:grant:<sessionId>`, holding the grant's JSON and
 * expiring (PX) when the grant does.
 *
 * Grants read are cached per process under a lease (grant-cache.ts, `LeasedGrants`): a cached grant
 * is used for at most `leaseMs` after its read was sent, and put and revoke return only once every
 * copy read before their write has run out of lease, so a revocation is seen by the next call of
 * every instance. The connection closing (Redis restarted, or unreachable) drops the cache too.
 */
import type { Redis } from "ioredis";
import { openRedis, redisReady } from "./redis-connection";
import type { SessionGrant } from "../../generated/types";
import type { GrantStore } from "./grant-store";
import { remainingMs } from "../../common/grant-liveness";
import { LeasedGrants, GRANT_LEASE_MS } from "./grant-cache";

export class RedisGrantStore implements GrantStore {
  private readonly redis: Redis;
  private readonly leased: LeasedGrants;

  /** leaseMs: how long a cached grant is used, and how long put and revoke wait (0: no cache, no wait). */
  constructor(
    url: string,
    private readonly prefix = "mnote",
    private readonly now: () => number = Date.now,
    leaseMs: number = GRANT_LEASE_MS,
  ) {
    this.redis = openRedis(url);
    this.leased = new LeasedGrants(leaseMs);
    this.redis.on("close", () => this.leased.clear());
  }

  ping(): Promise<void> {
    return redisReady(this.redis);
  }

  close(): void {
    this.redis.disconnect();
  }

  private key(sessionId: string): string {
    return `${this.prefix}:grant:${sessionId}`;
  }

  async put(grant: SessionGrant): Promise<void> {
    // 0 for an expired or unreadable expiresAt: such a grant is removed, never kept forever
    const ttl = remainingMs(grant, this.now());
    const key = this.key(grant.sessionId);
    await this.leased.write(grant.sessionId, async () => {
      if (ttl <= 0) await this.redis.del(key);
      else await this.redis.set(key, JSON.stringify(grant), "PX", ttl);
    });
  }

  get(sessionId: string): Promise<SessionGrant | undefined> {
    return this.leased.read(sessionId, this.now(), async () => {
      const text = await this.redis.get(this.key(sessionId));
      return text ? (JSON.parse(text) as SessionGrant) : undefined;
    });
  }

  async revoke(sessionId: string): Promise<boolean> {
    return (await this.leased.write(sessionId, () => this.redis.del(this.key(sessionId)))) > 0;
  }
}
