/**
 * The per-process grant cache (runtime/state/grant-cache.ts) against revocation, on each grant
 * store: process A (`serve`) has used a session's grant, so it holds it cached; process B (the
 * `session` CLI, another OS process on the same store) revokes or replaces it; A's very next call
 * is refused, and the kernel's database is unchanged by it. The same after the store restarted,
 * and a session's grant is never answered for another session's call.
 */
import { countRows as count } from "../support/db-hash";
import type { SessionGrant } from "../../generated/types";
import { seededProject } from "../support/project";
import { postJson, start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { runCli } from "../support/paths";
import { describePostgres, testPostgres, type TestPostgres } from "../support/postgres";
import { describeRedis } from "../support/redis";
import { privateRedis, redisServerPath } from "../support/fault-world";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { RedisGrantStore } from "../../runtime/state/redis-grant-store";
import { openPgState } from "../../runtime/state/pg-state";
import { grantBelongsTo, type GrantStore } from "../../runtime/state/grants";
import { openDatabase } from "../../common/sqlite";
import { tempDir } from "../support/tmp";

const FULL = "page.read,page.write,artifact.write";
const owner = { sessionId: "s_a", actorId: "user_1" };

/** Where the grants are: the CLI options that name the store, for serve and for session. */
interface Store {
  args(statePath: string): string[];
  /** The store stopped and started again (its data kept, or forgotten when `forgets`). */
  restart?(): Promise<void>;
}

/** What the kernel holds that a write would change. */
const kernelState = (db: string) => [
  count(db, "SELECT revision AS n FROM pages WHERE id = 'doc_1'"),
  count(db, "SELECT COUNT(*) AS n FROM command_log"),
];

/** `mnote-tools session ...` as a process of its own (process B). */
function session(store: Store, state: string, args: string[]): void {
  const run = runCli(["session", ...args, ...store.args(state)]);
  if (run.status !== 0) throw new Error(`session ${args.join(" ")}: ${run.stderr}`);
}

const grant = (store: Store, state: string, id: string, actor: string, scope: string) =>
  session(store, state, [
    "grant",
    "--session",
    id,
    "--workspace",
    "ws_1",
    "--document",
    "doc_1",
    "--actor",
    actor,
    "--scope",
    scope,
  ]);

const save = (text: string, ids = owner) =>
  makeRequest("mnote.page.save", { content: [{ type: "paragraph", text }], mode: "append" }, {}, ids);
const get = (ids: Record<string, unknown> = owner) => makeRequest("mnote.page.get", { includeBody: true }, {}, ids);

/** A call through A; a store-unavailable answer (a restart under way) is asked again, up to ~30 s. */
async function call(a: Running, request: unknown): Promise<any> {
  for (let attempt = 0; ; attempt++) {
    const r = (await postJson(`${a.url}/v1/tools/call`, request, "tok")).body;
    if (r.ok || !r.error.retryable || attempt >= 150) return r;
    await new Promise((done) => setTimeout(done, 200));
  }
}

const refusal = (r: any) => (r.ok ? "ok" : [r.error.code, r.error.reason]);

function scenarios(name: string, store: () => Store) {
  describe(name, () => {
    let p: ReturnType<typeof seededProject>;
    let a: Running;

    beforeEach(async () => {
      p = seededProject([]);
      grant(store(), p.state, owner.sessionId, owner.actorId, FULL);
      a = await start(["serve", "--db", p.db, ...store().args(p.state), "--port", "0", "--token", "tok"]);
      // A's grant is read and cached: a read and a write both pass
      expect((await call(a, get())).ok).toBe(true);
      expect((await call(a, save("cached"))).ok).toBe(true);
    });
    afterEach(async () => {
      await a?.stop();
    });

    it("revoked by another process: A's very next call is refused and the kernel is unchanged", async () => {
      const before = kernelState(p.db);
      session(store(), p.state, ["revoke", owner.sessionId]);
      expect(refusal(await call(a, save("after revoke")))).toEqual(["mnote_tool_not_authenticated", "session_unknown"]);
      expect(refusal(await call(a, get()))).toEqual(["mnote_tool_not_authenticated", "session_unknown"]);
      expect(kernelState(p.db)).toEqual(before);
    });

    it("replaced by another process with narrower capabilities: A's next write is refused, a read still passes", async () => {
      const before = kernelState(p.db);
      grant(store(), p.state, owner.sessionId, owner.actorId, "page.read");
      expect(refusal(await call(a, save("after narrowing")))).toEqual([
        "mnote_tool_permission_denied",
        "session_mismatch",
      ]);
      expect(kernelState(p.db)).toEqual(before);
      expect((await call(a, get({ ...owner, capabilityScope: ["page.read"] }))).ok).toBe(true);
      // and widened again: seen at once as well
      grant(store(), p.state, owner.sessionId, owner.actorId, FULL);
      expect((await call(a, save("widened"))).ok).toBe(true);
      expect(kernelState(p.db)[0]).toBe(before[0]! + 1);
    });

    it("another session's call is never answered with the cached grant", async () => {
      grant(store(), p.state, "s_b", "user_2", FULL);
      const before = kernelState(p.db);
      // s_a's grant is cached in A; a call naming s_b as user_1 is judged by s_b's own grant
      expect(refusal(await call(a, save("as s_b", { sessionId: "s_b", actorId: "user_1" })))).toEqual([
        "mnote_tool_permission_denied",
        "session_mismatch",
      ]);
      expect(kernelState(p.db)).toEqual(before);
      expect((await call(a, get({ sessionId: "s_b", actorId: "user_2" }))).ok).toBe(true);
      // and a session nobody granted is unknown, whatever A holds
      expect(refusal(await call(a, get({ sessionId: "s_none", actorId: "user_1" })))).toEqual([
        "mnote_tool_not_authenticated",
        "session_unknown",
      ]);
    });

    if (store().restart)
      it("after the store restarted, revoked by another process: A's next call is refused", async () => {
        await store().restart!();
        const before = kernelState(p.db);
        session(store(), p.state, ["revoke", owner.sessionId]);
        expect(refusal(await call(a, save("after restart")))).toEqual([
          "mnote_tool_not_authenticated",
          "session_unknown",
        ]);
        expect(kernelState(p.db)).toEqual(before);
      });
  });
}

scenarios("SQLite state file", () => ({ args: (state) => ["--state", state] }));

let postgres: TestPostgres;
describePostgres("PostgreSQL state", () => {
  beforeAll(async () => {
    postgres = await testPostgres(true);
  });
  afterAll(async () => {
    await postgres?.close();
  });
  scenarios("on one database", () => ({
    args: () => ["--state", postgres.url],
    restart: () => postgres.server!.restart("immediate"),
  }));
});

const redisMissing = redisServerPath() ? undefined : "redis-server not found";
let redis: Awaited<ReturnType<typeof privateRedis>>;
let volatile: Awaited<ReturnType<typeof privateRedis>>;
(redisMissing ? describe.skip : describeRedis)("Redis grants (a private server, restartable)", () => {
  beforeAll(async () => {
    redis = await privateRedis(true);
    volatile = await privateRedis(false);
  });
  afterAll(async () => {
    await redis?.stop();
    await volatile?.stop();
  });
  scenarios("with persistence", () => ({
    args: (state) => ["--state", state, "--grants", redis.url],
    restart: () => redis.restart(),
  }));

  it("a restart that forgot every grant: A's next call is refused, nothing written", async () => {
    const args = (state: string) => ["--state", state, "--grants", volatile.url];
    const p = seededProject([]);
    grant({ args }, p.state, owner.sessionId, owner.actorId, FULL);
    const a = await start(["serve", "--db", p.db, ...args(p.state), "--port", "0", "--token", "tok"]);
    try {
      expect((await call(a, save("cached"))).ok).toBe(true);
      const before = kernelState(p.db);
      await volatile.restart();
      expect(refusal(await call(a, save("forgotten")))).toEqual(["mnote_tool_not_authenticated", "session_unknown"]);
      expect(kernelState(p.db)).toEqual(before);
    } finally {
      await a.stop();
    }
  });
});

/** The stores in process: a cached grant is the session's own, frozen, and expiry still counts. */
describe("the cache in one process", () => {
  const P1 = { issuer: "https://issuer.example", subject: "alice" };
  const P2 = { issuer: "https://issuer.example", subject: "bob" };
  let clock = 1_800_000_000_000;
  const g = (sessionId: string, principal: typeof P1, ttlMs = 60_000): SessionGrant => ({
    sessionId,
    workspaceId: "ws_1",
    documentId: "doc_1",
    actorId: "user_1",
    capabilityScope: ["page.read"],
    expiresAt: new Date(clock + ttlMs).toISOString(),
    principal,
  });

  async function checks(store: GrantStore) {
    await store.put(g("s1", P1));
    await store.put(g("s2", P2));
    const first = await store.get("s1");
    expect(await store.get("s1")).toBe(first); // the cached object itself
    expect(Object.isFrozen(first) && Object.isFrozen(first!.capabilityScope)).toBe(true);
    expect(grantBelongsTo(first!, P1)).toBe(true);
    expect(grantBelongsTo(first!, P2)).toBe(false);
    const second = await store.get("s2");
    expect(second?.principal).toEqual(P2);
    expect(grantBelongsTo(second!, P1)).toBe(false);
    expect(await store.get("s3")).toBeUndefined();
    await store.put(g("s3", P1));
    expect((await store.get("s3"))?.sessionId).toBe("s3"); // an absent grant was not cached
  }

  it("SQLite: two connections on one file (as two processes): a write through one is seen by the other", async () => {
    const file = `${tempDir("mnote-grants-")}/state.db`;
    const [dbA, dbB] = [openDatabase(file), openDatabase(file)];
    const a = new SqliteGrantStore(dbA, () => clock);
    const b = new SqliteGrantStore(dbB, () => clock);
    try {
      await checks(a);
      expect((await a.get("s1"))?.capabilityScope).toEqual(["page.read"]);
      await b.put({ ...g("s1", P1), capabilityScope: [] });
      expect((await a.get("s1"))?.capabilityScope).toEqual([]);
      expect(await b.revoke("s1")).toBe(true);
      expect(await a.get("s1")).toBeUndefined();
      // a grant that expires while cached: the row is read again (and the dispatcher refuses it)
      await a.put(g("short", P1, 1_000));
      const cached = await a.get("short");
      clock += 2_000;
      const again = await a.get("short");
      expect(again).not.toBe(cached);
      expect(again?.sessionId).toBe("short");
    } finally {
      dbA.close();
      dbB.close();
    }
  });

  (redisMissing ? it.skip : it)("Redis: the same checks, and a write waits out the lease", async () => {
    const server = await privateRedis(false);
    const store = new RedisGrantStore(server.url, "lease", () => clock, 50);
    const other = new RedisGrantStore(server.url, "lease", () => clock, 50);
    try {
      await Promise.all([store.ping(), other.ping()]);
      await checks(store);
      const cached = await store.get("s1");
      const t0 = performance.now();
      expect(await other.revoke("s1")).toBe(true);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(50);
      expect(await store.get("s1")).toBeUndefined();
      expect(cached).toBeDefined();
    } finally {
      store.close();
      other.close();
      await server.stop();
    }
  });
});

describePostgres("the cache in one process, PostgreSQL", () => {
  it("two instances on one database: a revoke through one is seen by the other at once after it returns", async () => {
    const own = await testPostgres();
    const [a, b] = [await openPgState({ url: own.url }), await openPgState({ url: own.url })];
    try {
      const grantOf = (id: string): SessionGrant => ({
        sessionId: id,
        workspaceId: "ws_1",
        documentId: "doc_1",
        actorId: "user_1",
        capabilityScope: ["page.read"],
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      });
      await a.grants.put(grantOf("s1"));
      await a.grants.put(grantOf("s2"));
      const first = await a.grants.get("s1");
      expect(await a.grants.get("s1")).toBe(first);
      expect((await a.grants.get("s2"))?.sessionId).toBe("s2");
      expect(await b.grants.revoke("s1")).toBe(true);
      expect(await a.grants.get("s1")).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
      await own.close();
    }
  });
});
