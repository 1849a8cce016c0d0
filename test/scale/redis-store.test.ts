/** The Redis idempotency store against a real Redis (its own db, flushed before each test). */
import type Redis from "ioredis";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import { describeRedis, REDIS_DB, redisUrl, requireRedis } from "../support/redis";

const DB = REDIS_DB.idempotencyStore;
let admin: Redis;
let store: RedisIdempotencyStore;

const outcome = { commandId: "page_body_save_abc", result: { commandName: "page.body.save", revision: 3 } };

describeRedis("RedisIdempotencyStore", () => {
  beforeAll(async () => {
    admin = await requireRedis(DB);
    store = new RedisIdempotencyStore({ url: redisUrl(DB), prefix: "test" });
    await store.ping();
  });
  beforeEach(() => admin.flushdb());
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
  });

  it("claims a free scope; the same fingerprint in flight is in_progress, another is a conflict", async () => {
    const claim = await store.claim("s1", "fp-a", 10_000);
    expect(claim.kind).toBe("claimed");
    expect(await store.claim("s1", "fp-a", 10_000)).toEqual({ kind: "in_progress" });
    expect(await store.claim("s1", "fp-b", 10_000)).toEqual({ kind: "conflict" });
  });

  it("completed: the same fingerprint replays the outcome, another is a conflict; the record lives ttl ms", async () => {
    const claim = await store.claim("s2", "fp-a", 10_000);
    if (claim.kind !== "claimed") throw new Error("not claimed");
    await store.complete("s2", claim.token, "fp-a", outcome, 60_000);
    expect(await store.claim("s2", "fp-a", 10_000)).toEqual({ kind: "replay", outcome });
    expect(await store.claim("s2", "fp-b", 10_000)).toEqual({ kind: "conflict" });
    const ttl = await admin.pttl("test:idem:s2");
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(JSON.parse((await admin.get("test:idem:s2"))!)).toMatchObject({ state: "done", fp: "fp-a" });
  });

  it("a lease that runs out frees the scope; the late holder cannot complete over the new claim", async () => {
    const first = await store.claim("s3", "fp-a", 100);
    await new Promise((r) => setTimeout(r, 200));
    const second = await store.claim("s3", "fp-a", 10_000);
    expect(second.kind).toBe("claimed");
    if (first.kind !== "claimed" || second.kind !== "claimed") throw new Error("not claimed");
    await store.complete("s3", first.token, "fp-a", outcome, 60_000);
    expect(JSON.parse((await admin.get("test:idem:s3"))!).state).toBe("pending");
  });

  it("release frees a pending claim for its holder only; a done record stays", async () => {
    const claim = await store.claim("s4", "fp-a", 10_000);
    if (claim.kind !== "claimed") throw new Error("not claimed");
    await store.release("s4", "someone-else");
    expect(await admin.exists("test:idem:s4")).toBe(1);
    await store.release("s4", claim.token);
    expect(await admin.exists("test:idem:s4")).toBe(0);
    const again = await store.claim("s4", "fp-a", 10_000);
    if (again.kind !== "claimed") throw new Error("not claimed");
    await store.complete("s4", again.token, "fp-a", outcome, 60_000);
    await store.release("s4", again.token);
    expect(await store.claim("s4", "fp-a", 10_000)).toEqual({ kind: "replay", outcome });
  });

  it("an unreachable Redis fails fast with an error, not a hang", async () => {
    const dead = new RedisIdempotencyStore({ url: "redis://127.0.0.1:9/0" });
    const started = Date.now();
    await expect(dead.claim("x", "y", 1000)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3_000);
    await dead.close();
  });
});
