/**
 * One suite for every state store: the same cases, in one table, run against the embedded SQLite
 * store, Redis and PostgreSQL (real servers: the test Redis of the global setup, and a Postgres the
 * suite starts or MNOTE_TEST_POSTGRES_URL names). A store is a drop-in for another only if it
 * passes all of them. A backend whose server cannot be had here is skipped with the reason and
 * the install line (a failure under MNOTE_REQUIRE_REDIS=1 / MNOTE_REQUIRE_POSTGRES=1, as in CI).
 *
 * Every case uses keys of its own (a random suffix), so cases share a store without a reset.
 * Times: what must still hold is checked well inside its lease or lifetime (10 s or more), what
 * must have run out is checked well after it (a 200 ms life, looked at after 1 s or more).
 */
import { randomBytes } from "node:crypto";
import type { GrantStore } from "../../runtime/state/grant-store";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import type { IdempotencyStore } from "../../runtime/state/idempotency-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import { RedisGrantStore } from "../../runtime/state/redis-grant-store";
import { openPgState } from "../../runtime/state/pg-state";
import { openDatabase } from "../../common/sqlite";
import type { SessionGrant } from "../../generated/types";
import { describeRedis, REDIS_DB, redisUrl } from "../support/redis";
import { describePostgres, testPostgres, type TestPostgres } from "../support/postgres";
import { tempDir } from "../support/tmp";
import { join } from "node:path";

interface Stores {
  idempotency: IdempotencyStore;
  grants: GrantStore;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  describe: (name: string, body: () => void) => void;
  /** Prepares the server (if any); returns a function opening the stores, the same data each time. */
  setUp(): Promise<{ open(): Promise<Stores>; tearDown(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: "SQLite (embedded)",
    describe,
    async setUp() {
      const file = join(tempDir("mnote-stores-"), "runtime.db");
      return {
        async open() {
          const db = openDatabase(file);
          const idempotency = new SqliteIdempotencyStore(db);
          return { idempotency, grants: new SqliteGrantStore(db), close: async () => void db.close() };
        },
        tearDown: async () => undefined,
      };
    },
  },
  {
    name: "Redis",
    describe: describeRedis,
    async setUp() {
      const prefix = `stores-${randomBytes(4).toString("hex")}`;
      const url = redisUrl(REDIS_DB.storeSuite);
      return {
        async open() {
          const idempotency = new RedisIdempotencyStore({ url, prefix });
          const grants = new RedisGrantStore(url, prefix);
          await idempotency.ping();
          await grants.ping();
          return {
            idempotency,
            grants,
            async close() {
              await idempotency.close();
              grants.close();
            },
          };
        },
        tearDown: async () => undefined,
      };
    },
  },
  {
    name: "PostgreSQL",
    describe: describePostgres,
    async setUp() {
      const pg: TestPostgres = await testPostgres();
      return {
        async open() {
          const state = await openPgState({ url: pg.url, purgeEveryMs: 0 });
          return { idempotency: state.idempotency, grants: state.grants, close: () => state.close() };
        },
        tearDown: () => pg.close(),
      };
    },
  },
];

const outcome = { commandId: "page_body_save_abc", result: { commandName: "page.body.save", revision: 3, 名: "页" } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fresh = (what: string) => `${what}-${randomBytes(6).toString("hex")}`;

async function claimed(store: IdempotencyStore, scope: string, fp: string, leaseMs = 10_000): Promise<string> {
  const claim = await store.claim(scope, fp, leaseMs);
  if (claim.kind !== "claimed") throw new Error(`expected a claim of ${scope}, got ${claim.kind}`);
  return claim.token;
}

const grant = (sessionId: string, actorId = "user_1"): SessionGrant => ({
  sessionId,
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId,
  capabilityScope: ["page.read", "page.write"],
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
});

type Case = [string, (s: Stores, reopen: () => Promise<Stores>) => Promise<void>];

/** The cases: each gets the open stores and a way to open them again (a restarted process). */
const CASES: Case[] = [
  [
    "claims a free scope; the same fingerprint in flight is in_progress, another is a conflict",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      await claimed(s, scope, "fp-a");
      expect(await s.claim(scope, "fp-a", 10_000)).toEqual({ kind: "in_progress" });
      expect(await s.claim(scope, "fp-b", 10_000)).toEqual({ kind: "conflict" });
    },
  ],
  [
    "completed: the same fingerprint replays the outcome exactly, another is a conflict",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      const token = await claimed(s, scope, "fp-a");
      await s.complete(scope, token, "fp-a", outcome, 60_000);
      const replay = await s.claim(scope, "fp-a", 10_000);
      expect(replay).toEqual({ kind: "replay", outcome });
      if (replay.kind === "replay") expect(JSON.stringify(replay.outcome)).toBe(JSON.stringify(outcome));
      expect(await s.claim(scope, "fp-b", 10_000)).toEqual({ kind: "conflict" });
    },
  ],
  [
    "twenty concurrent claims of one scope: exactly one is claimed, the rest in_progress",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      const claims = await Promise.all(Array.from({ length: 20 }, () => s.claim(scope, "fp-a", 10_000)));
      expect(claims.filter((c) => c.kind === "claimed")).toHaveLength(1);
      expect(claims.filter((c) => c.kind === "in_progress")).toHaveLength(19);
    },
  ],
  [
    "a lease that runs out frees the scope; the late holder can neither complete nor release the new claim",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      const first = await claimed(s, scope, "fp-a", 200);
      await sleep(1_000);
      await claimed(s, scope, "fp-a");
      await s.complete(scope, first, "fp-a", outcome, 60_000);
      await s.release(scope, first);
      expect(await s.claim(scope, "fp-a", 10_000)).toEqual({ kind: "in_progress" });
    },
  ],
  [
    "renew keeps a claim alive past its first lease",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      const token = await claimed(s, scope, "fp-a", 2_000);
      await s.renew(scope, token, 60_000);
      await sleep(2_500);
      expect(await s.claim(scope, "fp-a", 10_000)).toEqual({ kind: "in_progress" });
      await s.renew(scope, "not-the-holder", 1);
      expect(await s.claim(scope, "fp-a", 10_000)).toEqual({ kind: "in_progress" });
    },
  ],
  [
    "release frees a pending claim for its holder only; a done record stays",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      const token = await claimed(s, scope, "fp-a");
      await s.release(scope, "someone-else");
      expect(await s.claim(scope, "fp-a", 10_000)).toEqual({ kind: "in_progress" });
      await s.release(scope, token);
      const again = await claimed(s, scope, "fp-a");
      await s.complete(scope, again, "fp-a", outcome, 60_000);
      await s.release(scope, again);
      expect(await s.claim(scope, "fp-a", 10_000)).toEqual({ kind: "replay", outcome });
    },
  ],
  [
    "a done record lives its ttl, then the key is free again",
    async ({ idempotency: s }) => {
      const scope = fresh("s");
      const token = await claimed(s, scope, "fp-a");
      await s.complete(scope, token, "fp-a", outcome, 200);
      await sleep(1_000);
      expect((await s.claim(scope, "fp-b", 10_000)).kind).toBe("claimed");
    },
  ],
  [
    "a done record survives closing and reopening the store (a restarted instance)",
    async ({ idempotency: s }, reopen) => {
      const scope = fresh("s");
      const token = await claimed(s, scope, "fp-a");
      await s.complete(scope, token, "fp-a", outcome, 60_000);
      const nonce = fresh("n");
      expect(await s.consumeApproval(nonce, "owner-1", 60_000)).toBe("fresh");
      const again = await reopen();
      try {
        expect(await again.idempotency.claim(scope, "fp-a", 10_000)).toEqual({ kind: "replay", outcome });
        expect(await again.idempotency.consumeApproval(nonce, "owner-2", 60_000)).toBe("used");
      } finally {
        await again.close();
      }
    },
  ],
  [
    "uncertain writes: remembered per session and slot, forgotten on demand, gone after their ttl",
    async ({ idempotency: s }) => {
      const session = fresh("sess");
      expect(await s.uncertainKey(session, "slot-1")).toBeUndefined();
      await s.rememberUncertain(session, "slot-1", "key-1", 60_000, 8);
      await s.rememberUncertain(session, "slot-2", "key-2", 200, 8);
      expect(await s.uncertainKey(session, "slot-1")).toBe("key-1");
      expect(await s.uncertainKey(fresh("other"), "slot-1")).toBeUndefined();
      await s.rememberUncertain(session, "slot-1", "key-1b", 60_000, 8);
      expect(await s.uncertainKey(session, "slot-1")).toBe("key-1b");
      await s.forgetUncertain(session, "slot-1");
      expect(await s.uncertainKey(session, "slot-1")).toBeUndefined();
      await sleep(1_000);
      expect(await s.uncertainKey(session, "slot-2")).toBeUndefined();
    },
  ],
  [
    "uncertain writes: forgetting with a key deletes the slot only while it still holds that key",
    async ({ idempotency: s }) => {
      const session = fresh("sess");
      await s.rememberUncertain(session, "slot-1", "key-old", 60_000, 8);
      await s.rememberUncertain(session, "slot-1", "key-new", 60_000, 8);
      // a late delivery of the older write must not release the newer write's slot
      await s.forgetUncertain(session, "slot-1", "key-old");
      expect(await s.uncertainKey(session, "slot-1")).toBe("key-new");
      await s.forgetUncertain(session, "slot-1", "key-new");
      expect(await s.uncertainKey(session, "slot-1")).toBeUndefined();
    },
  ],
  [
    "uncertain writes and the store id survive a restart of the process; the id is one for every opener",
    async ({ idempotency: s }, reopen) => {
      const session = fresh("sess");
      await s.rememberUncertain(session, "slot-1", "key-1", 60_000, 8);
      const id = await s.storeId!();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      const again = await reopen();
      try {
        expect(await again.idempotency.uncertainKey(session, "slot-1")).toBe("key-1");
        expect(await again.idempotency.storeId!()).toBe(id);
      } finally {
        await again.close();
      }
    },
  ],
  [
    "uncertain writes: past the cap, a session keeps its newest slots",
    async ({ idempotency: s }) => {
      const session = fresh("sess");
      for (let i = 0; i < 5; i++) {
        await s.rememberUncertain(session, `slot-${i}`, `key-${i}`, 60_000, 3);
        await sleep(20); // distinct creation times
      }
      const kept = await Promise.all([0, 1, 2, 3, 4].map((i) => s.uncertainKey(session, `slot-${i}`)));
      expect(kept).toEqual([undefined, undefined, "key-2", "key-3", "key-4"]);
    },
  ],
  [
    "an approval nonce is used once: fresh, then same for its owner, used for anyone else",
    async ({ idempotency: s }) => {
      const nonce = fresh("n");
      expect(await s.consumeApproval(nonce, "owner-1", 60_000)).toBe("fresh");
      expect(await s.consumeApproval(nonce, "owner-1", 60_000)).toBe("same");
      expect(await s.consumeApproval(nonce, "owner-2", 60_000)).toBe("used");
    },
  ],
  [
    "twenty owners race for one nonce: exactly one gets fresh",
    async ({ idempotency: s }) => {
      const nonce = fresh("n");
      const uses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.consumeApproval(nonce, `owner-${i}`, 60_000)),
      );
      expect(uses.filter((u) => u === "fresh")).toHaveLength(1);
      expect(uses.filter((u) => u === "used")).toHaveLength(19);
    },
  ],
  [
    "grants: put, get, replace, revoke; revoking an unknown session says so",
    async ({ grants }) => {
      const id = fresh("sess");
      expect(await grants.get(id)).toBeUndefined();
      const first = grant(id);
      await grants.put(first);
      expect(await grants.get(id)).toEqual(first);
      await grants.put(grant(id, "user_2"));
      expect((await grants.get(id))?.actorId).toBe("user_2");
      // the principal a grant was issued to (issuer + sub) is kept with it
      const principal = { issuer: "https://auth.example.com", subject: "alice" };
      await grants.put({ ...grant(id, "user_2"), principal });
      expect((await grants.get(id))?.principal).toEqual(principal);
      expect(await grants.revoke(id)).toBe(true);
      expect(await grants.get(id)).toBeUndefined();
      expect(await grants.revoke(id)).toBe(false);
    },
  ],
  [
    "grants survive closing and reopening the store",
    async ({ grants }, reopen) => {
      const id = fresh("sess");
      await grants.put(grant(id));
      const again = await reopen();
      try {
        expect((await again.grants.get(id))?.sessionId).toBe(id);
      } finally {
        await again.close();
      }
    },
  ],
];

for (const backend of BACKENDS) {
  backend.describe(`state stores: ${backend.name}`, () => {
    let setup: Awaited<ReturnType<Backend["setUp"]>>;
    let stores: Stores;
    beforeAll(async () => {
      setup = await backend.setUp();
      stores = await setup.open();
    });
    afterAll(async () => {
      await stores?.close();
      await setup?.tearDown();
    });
    it.each(CASES)("%s", async (_name, body) => body(stores, () => setup.open()));
  });
}
