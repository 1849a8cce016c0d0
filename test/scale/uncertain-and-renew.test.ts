/**
 * The two idempotency stores (SQLite, the state file; Redis, its own database, flushed before each test) on
 * what issue 18 added: renewing a running claim's lease (the heartbeat) and the keys of uncertain
 * writes (per session, a slot -> key, with a time to live and a cap of slots per session).
 */
import type Redis from "ioredis";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import type { IdempotencyStore } from "../../runtime/state/idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { REDIS_DB, redisUrl, requireRedis } from "../support/redis";

const DB = REDIS_DB.uncertainAndRenew;
let admin: Redis;
let redisStore: RedisIdempotencyStore;

beforeAll(async () => {
  admin = await requireRedis(DB);
  redisStore = new RedisIdempotencyStore({ url: redisUrl(DB), prefix: "test" });
  await redisStore.ping();
});
beforeEach(() => admin.flushdb());
afterAll(async () => {
  await redisStore?.close();
  admin?.disconnect();
});

const slot = (i: number) => i.toString(16).padStart(64, "0");
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const stores: Array<[string, () => IdempotencyStore]> = [
  ["SQLite", () => new SqliteIdempotencyStore(openDatabase(":memory:"))],
  ["Redis", () => redisStore],
];

describe.each(stores)("%s store", (_name, make) => {
  it("renew keeps a running claim past its first lease; only the holder's token renews; a done record is not touched", async () => {
    const store = make();
    const claim = await store.claim("r1", "fp", 300);
    if (claim.kind !== "claimed") throw new Error("not claimed");
    for (let i = 0; i < 4; i++) {
      await pause(150);
      await store.renew("r1", claim.token, 300);
      await store.renew("r1", "someone-else", 1); // not the holder: nothing happens
    }
    // 600 ms after the claim, twice its lease: still held
    expect(await store.claim("r1", "fp", 300)).toEqual({ kind: "in_progress" });
    await pause(450); // no heartbeat: the lease runs out
    expect((await store.claim("r1", "fp", 300)).kind).toBe("claimed");

    const done = await store.claim("r2", "fp", 300);
    if (done.kind !== "claimed") throw new Error("not claimed");
    await store.complete("r2", done.token, "fp", { commandId: "c", result: {} }, 60_000);
    await store.renew("r2", done.token, 1);
    await pause(50);
    expect(await store.claim("r2", "fp", 300)).toEqual({ kind: "replay", outcome: { commandId: "c", result: {} } });
  });

  it("remembers slot -> key per session, forgets it, and lets it expire", async () => {
    const store = make();
    expect(await store.uncertainKey("s1", slot(1))).toBeUndefined();
    await store.rememberUncertain("s1", slot(1), "key-1", 60_000, 64);
    expect(await store.uncertainKey("s1", slot(1))).toBe("key-1");
    expect(await store.uncertainKey("s2", slot(1))).toBeUndefined(); // another session's slot
    await store.rememberUncertain("s1", slot(1), "key-1b", 60_000, 64); // the newest key wins
    expect(await store.uncertainKey("s1", slot(1))).toBe("key-1b");
    await store.forgetUncertain("s1", slot(1));
    expect(await store.uncertainKey("s1", slot(1))).toBeUndefined();
    await store.rememberUncertain("s1", slot(2), "key-2", 100, 64);
    await pause(250);
    expect(await store.uncertainKey("s1", slot(2))).toBeUndefined();
  });

  it("keeps at most `cap` slots per session, the newest, whatever else the session sends", async () => {
    const store = make();
    for (let i = 0; i < 70; i++) {
      await store.rememberUncertain("s_cap", slot(i), `key-${i}`, 60_000, 64);
      await pause(2); // distinct times, so "newest" is well defined
    }
    const kept: number[] = [];
    for (let i = 0; i < 70; i++) if ((await store.uncertainKey("s_cap", slot(i))) !== undefined) kept.push(i);
    expect(kept).toHaveLength(64);
    expect(kept).toContain(69); // the one just remembered always stays
    expect(kept).not.toContain(0);
    await store.rememberUncertain("s_other", slot(0), "other", 60_000, 64);
    expect(await store.uncertainKey("s_other", slot(0))).toBe("other");
  });
});

describe("Redis layout of uncertain writes", () => {
  it("one hash per session, a field per slot, expiring with its newest slot", async () => {
    await redisStore.rememberUncertain("s_layout", slot(7), "k7", 60_000, 64);
    expect(await admin.hkeys("test:uncertain:s_layout")).toEqual([slot(7)]);
    expect(JSON.parse((await admin.hget("test:uncertain:s_layout", slot(7)))!)).toMatchObject({ k: "k7" });
    const ttl = await admin.pttl("test:uncertain:s_layout");
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});
