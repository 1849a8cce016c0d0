/**
 * The Redis grant store and times it cannot read (issue 12.7): a grant whose expiresAt is a leap
 * second used to reach Redis as "PX NaN" (a 500); it is now removed as expired, never kept forever.
 * Runs on the test Redis (its own db) under a prefix of its own, so it disturbs no other test.
 */
import { randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { RedisGrantStore } from "../../runtime/state/redis-grant-store";
import { describeRedis, REDIS_DB, redisUrl, requireRedis } from "../support/redis";
import type { SessionGrant } from "../../generated/types";

const DB = REDIS_DB.grantStore;
const prefix = `test-grants-${randomBytes(4).toString("hex")}`;
let admin: Redis;
let store: RedisGrantStore;
const now = 1_800_000_000_000;

const grant = (sessionId: string, expiresAt: string): SessionGrant => ({
  sessionId,
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read"],
  expiresAt,
});

describeRedis("RedisGrantStore", () => {
  beforeAll(async () => {
    admin = await requireRedis(DB);
    store = new RedisGrantStore(redisUrl(DB), prefix, () => now);
    await store.ping();
  });
  afterAll(async () => {
    if (admin) {
      const keys = await admin.keys(`${prefix}:*`);
      if (keys.length > 0) await admin.del(...keys);
    }
    store?.close();
    admin?.disconnect();
  });

  it("an unreadable expiresAt is stored as expired: put succeeds and nothing is kept", async () => {
    await store.put(grant("leap", "2026-12-31T23:59:60Z"));
    expect(await store.get("leap")).toBeUndefined();
    expect(await admin.exists(`${prefix}:grant:leap`)).toBe(0);
  });

  it("a live grant expires with a TTL measured by the store's injected clock", async () => {
    await store.put(grant("live", new Date(now + 60_000).toISOString()));
    expect((await store.get("live"))?.sessionId).toBe("live");
    const ttl = await admin.pttl(`${prefix}:grant:live`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
