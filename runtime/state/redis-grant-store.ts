/**
 * Session grants on Redis, for several runtime instances: a grant registered through any instance
 * is seen by all. One key per session, `<prefix>:grant:<sessionId>`, holding the grant's JSON and
 * expiring (PX) when the grant does.
 */
import type { Redis } from "ioredis";
import { openRedis, redisReady } from "./redis-connection";
import type { SessionGrant } from "../../generated/types";
import type { GrantStore } from "./grant-store";
import { remainingMs } from "../../common/grant-liveness";

export class RedisGrantStore implements GrantStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = "mnote",
    private readonly now: () => number = Date.now,
  ) {
    this.redis = openRedis(url);
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
    if (ttl <= 0) {
      await this.redis.del(this.key(grant.sessionId));
      return;
    }
    await this.redis.set(this.key(grant.sessionId), JSON.stringify(grant), "PX", ttl);
  }

  async get(sessionId: string): Promise<SessionGrant | undefined> {
    const text = await this.redis.get(this.key(sessionId));
    return text ? (JSON.parse(text) as SessionGrant) : undefined;
  }

  async revoke(sessionId: string): Promise<boolean> {
    return (await this.redis.del(this.key(sessionId))) > 0;
  }
}
