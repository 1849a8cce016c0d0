/**
 * The combined step of a keyOrigin "tool_call" write (IdempotencyStore.claimUncertain): the slot's
 * key read, the slot remembered and the claim taken in one step of the store (one SQLite
 * transaction, one Redis script, one call of a PostgreSQL function). The same cases run against
 * the three stores, and each checks the store's state after (the slot's key, the claim held), so a
 * store's one step answers what the three steps one by one would.
 */
import { createHash, randomBytes } from "node:crypto";
import type { IdempotencyStore, SlotOfWrite } from "../../runtime/state/idempotency-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import { PgIdempotencyStore } from "../../runtime/state/pg-idempotency-store";
import { openPgState, type PgState } from "../../runtime/state/pg-state";
import { migrate, MIGRATIONS } from "../../runtime/state/pg-migrations";
import { openPgPool } from "../../runtime/state/pg-pool";
import { openDatabase } from "../../common/sqlite";
import { describeRedis, REDIS_DB, redisUrl } from "../support/redis";
import { describePostgres, freshDatabase, testPostgres, type TestPostgres } from "../support/postgres";
import { tempDir } from "../support/tmp";
import { join } from "node:path";
import { STORE_UNAVAILABLE_CODE } from "../../runtime/state/pg-pool";
import { testRuntime } from "../support/runtime";
import { makeRequest } from "../support/requests";

type Combined = IdempotencyStore & Required<Pick<IdempotencyStore, "claimUncertain">>;

interface Backend {
  name: string;
  describe: (name: string, body: () => void) => void;
  open(): Promise<{ store: Combined; close(): Promise<void> }>;
}

let postgres: TestPostgres | undefined;

const BACKENDS: Backend[] = [
  {
    name: "SQLite (embedded)",
    describe,
    async open() {
      const db = openDatabase(join(tempDir("mnote-claim-uncertain-"), "runtime.db"));
      return { store: new SqliteIdempotencyStore(db) as Combined, close: async () => void db.close() };
    },
  },
  {
    name: "Redis",
    describe: describeRedis,
    async open() {
      const store = new RedisIdempotencyStore({
        url: redisUrl(REDIS_DB.storeSuite),
        prefix: `claim-uncertain-${randomBytes(4).toString("hex")}`,
      });
      await store.ping();
      return { store: store as Combined, close: () => store.close() };
    },
  },
  {
    name: "PostgreSQL",
    describe: describePostgres,
    async open() {
      postgres ??= await testPostgres();
      const state: PgState = await openPgState({ url: postgres.url, purgeEveryMs: 0 });
      return { store: state.idempotency as Combined, close: () => state.close() };
    },
  },
];

afterAll(async () => {
  await postgres?.close();
});

const fresh = (what: string) => `${what}-${randomBytes(6).toString("hex")}`;
/** The runtime hashes a key into its scope; any function of the key does for the store. */
const scopeOf = (key: string) => createHash("sha256").update(`scope:${key}`).digest("hex");
const slotFor = (sessionId: string, key: string, cap = 8): SlotOfWrite => ({
  sessionId,
  slot: createHash("sha256").update(fresh("slot")).digest("hex"),
  key,
  ttlMs: 600_000,
  cap,
});
const outcome = { commandId: "page_body_save_abc", result: { revision: 4, 名: "页" } };

for (const backend of BACKENDS) {
  backend.describe(`claimUncertain on ${backend.name}`, () => {
    let store: Combined;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await backend.open());
      expect(typeof store.claimUncertain).toBe("function");
    });
    afterAll(async () => {
      await close?.();
    });

    it("a fresh slot: the request's key is remembered and its scope claimed, in one step", async () => {
      const slot = slotFor(fresh("session"), fresh("key"));
      const taken = await store.claimUncertain(slot, scopeOf, "fp", 10_000);
      expect(taken.remembered).toBeUndefined();
      expect(taken.key).toBe(slot.key);
      expect(taken.scope).toBe(scopeOf(slot.key));
      expect(taken.claim.kind).toBe("claimed");
      // the state after: the slot holds the key, the scope is held
      expect(await store.uncertainKey(slot.sessionId, slot.slot)).toBe(slot.key);
      expect(await store.claim(taken.scope, "fp", 10_000)).toEqual({ kind: "in_progress" });
      expect(await store.claim(taken.scope, "other-fp", 10_000)).toEqual({ kind: "conflict" });
    });

    it("a slot holding an earlier write's key: that key wins, its scope is claimed, the request's is left free", async () => {
      const slot = slotFor(fresh("session"), fresh("new-key"));
      const earlier = fresh("earlier-key");
      await store.rememberUncertain(slot.sessionId, slot.slot, earlier, 600_000, 8);
      const taken = await store.claimUncertain(slot, scopeOf, "fp", 10_000);
      expect(taken).toMatchObject({ remembered: earlier, key: earlier, scope: scopeOf(earlier) });
      expect(taken.claim.kind).toBe("claimed");
      expect(await store.uncertainKey(slot.sessionId, slot.slot)).toBe(earlier);
      expect(await store.claim(scopeOf(earlier), "fp", 10_000)).toEqual({ kind: "in_progress" });
      expect((await store.claim(scopeOf(slot.key), "fp", 10_000)).kind).toBe("claimed");
    });

    it("the earlier write done: its outcome replays exactly; another fingerprint is a conflict", async () => {
      const sessionId = fresh("session");
      const first = slotFor(sessionId, fresh("key"));
      const taken = await store.claimUncertain(first, scopeOf, "fp", 10_000);
      if (taken.claim.kind !== "claimed") throw new Error(`expected a claim, got ${taken.claim.kind}`);
      await store.complete(taken.scope, taken.claim.token, "fp", outcome, 600_000);
      const retry = await store.claimUncertain({ ...first, key: fresh("retry-key") }, scopeOf, "fp", 10_000);
      expect(retry).toEqual({
        remembered: first.key,
        key: first.key,
        scope: taken.scope,
        claim: { kind: "replay", outcome },
      });
      const other = await store.claimUncertain({ ...first, key: fresh("k") }, scopeOf, "fp-2", 10_000);
      expect(other.claim).toEqual({ kind: "conflict" });
    });

    it("past the session's cap the oldest slots go; the new one stays", async () => {
      const sessionId = fresh("session");
      const older = [slotFor(sessionId, fresh("a"), 2), slotFor(sessionId, fresh("b"), 2)];
      for (const s of older) {
        await store.rememberUncertain(sessionId, s.slot, s.key, 600_000, 2);
        await new Promise((r) => setTimeout(r, 20));
      }
      const slot = slotFor(sessionId, fresh("c"), 2);
      expect((await store.claimUncertain(slot, scopeOf, "fp", 10_000)).claim.kind).toBe("claimed");
      expect(await store.uncertainKey(sessionId, older[0]!.slot)).toBeUndefined();
      expect(await store.uncertainKey(sessionId, older[1]!.slot)).toBe(older[1]!.key);
      expect(await store.uncertainKey(sessionId, slot.slot)).toBe(slot.key);
    });

    it("ten callers of one fresh slot at once, each with a key of its own: one key, one claim", async () => {
      const base = slotFor(fresh("session"), "unused");
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.claimUncertain({ ...base, key: `key-${i}` }, scopeOf, "fp", 10_000)),
      );
      const keys = new Set(answers.map((a) => a.key));
      expect(keys.size).toBe(1);
      const [key] = [...keys] as [string];
      expect(answers.filter((a) => a.claim.kind === "claimed")).toHaveLength(1);
      expect(answers.filter((a) => a.claim.kind === "in_progress")).toHaveLength(9);
      expect(answers.every((a) => a.scope === scopeOf(key))).toBe(true);
      expect(await store.uncertainKey(base.sessionId, base.slot)).toBe(key);
    });
  });
}

describePostgres("PostgreSQL before migration 3 (an instance opened with migrate off)", () => {
  it("takes the claim in statements of its own and offers no combined step", async () => {
    postgres ??= await testPostgres();
    const url = await freshDatabase(postgres.url);
    const pool = openPgPool({ url, max: 2 });
    try {
      await migrate(pool, MIGRATIONS.slice(0, 2));
      const state = await openPgState({ url, migrate: false, purgeEveryMs: 0 });
      try {
        expect(state.idempotency.claimUncertain).toBeUndefined();
        const scope = fresh("scope");
        const claim = await state.idempotency.claim(scope, "fp", 10_000);
        if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
        expect(await state.idempotency.claim(scope, "fp", 10_000)).toEqual({ kind: "in_progress" });
        await state.idempotency.complete(scope, claim.token, "fp", outcome, 600_000);
        expect(await state.idempotency.claim(scope, "fp", 10_000)).toEqual({ kind: "replay", outcome });
        expect(await state.idempotency.claim(scope, "fp-2", 10_000)).toEqual({ kind: "conflict" });
      } finally {
        await state.close();
      }
      // and once migrated, the same store answers the same through the functions
      await migrate(pool);
      const store = new PgIdempotencyStore(pool);
      expect(typeof store.claimUncertain).toBe("function");
      expect(await store.claim(fresh("scope"), "fp", 10_000)).toMatchObject({ kind: "claimed" });
    } finally {
      await pool.end();
    }
  });
});

describe("the combined step's answer lost after it ran (a store restarted or a command timed out mid-call)", () => {
  it("the slot and the claim stand: in_progress (retryable, nothing written) until the lease runs out, then one write", async () => {
    // one clock for the store and the runtime, moved by the test: no timing in the assertions
    let clock = Date.now();
    const now = () => clock;
    const real = new SqliteIdempotencyStore(openDatabase(":memory:"), now);
    let lose = true;
    // the step runs and commits; its answer never arrives
    const store: IdempotencyStore = Object.create(real);
    store.claimUncertain = async (...args) => {
      const answer = await real.claimUncertain!(...args);
      if (lose) throw Object.assign(new Error("Connection terminated unexpectedly"), { code: STORE_UNAVAILABLE_CODE });
      return answer;
    };
    const t = await testRuntime({ idempotency: store, leaseMs: 5_000, now });
    try {
      const as = await t.session({ actorId: "user_1" });
      const call = () =>
        t.runtime.dispatcher.dispatch(
          makeRequest("mnote.artifact.create_ai_note", { content: "lost answer" }, { keyOrigin: "tool_call" }, as),
        );
      const written = () => t.count("artifacts", "content = ?", "lost answer");
      const before = t.kernelStateHash();
      const first = await call();
      expect(first.error).toMatchObject({ code: "mnote_tool_in_progress", retryable: true });
      lose = false;
      // the model's retry (a new key) within the lease: the slot's key is held, still in progress
      expect((await call()).error).toMatchObject({ code: "mnote_tool_in_progress" });
      expect(t.kernelStateHash()).toBe(before);
      clock += 6_000; // the lost claim's lease runs out
      const done = await call();
      expect(done.ok).toBe(true);
      expect(written()).toBe(1);
    } finally {
      await t.close();
    }
  });
});
