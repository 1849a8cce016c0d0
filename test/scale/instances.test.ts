/**
 * Several runtime instances behave as one: four `serve` processes sharing one Redis (a db of its own) for
 * idempotency records and one kernel behind `mnote-tools kernel serve`. Grants live in one shared
 * state file (the instances run on one machine here; across machines, --grants redis://). The
 * races run again with two instances of `serve --workers 2` (four processes all the same).
 */
import Database from "better-sqlite3";
import { countRows as count } from "../support/db-hash";
import { createServer, request as httpRequest } from "node:http";
import type Redis from "ioredis";
import { seededProject } from "../support/project";
import { postJson, start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { describeRedis, REDIS_DB, redisUrl, requireRedis } from "../support/redis";
import { privateRedis, redisServerPath } from "../support/fault-world";

const DB = REDIS_DB.instances;
const owner = { sessionId: "s_owner", actorId: "user_1" };
let redis: Redis;

async function cluster(
  instances: number,
  options: { kernelUrl?: string; store?: string; lease?: number; workers?: number } = {},
) {
  const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
  const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
  const servers = await Promise.all(
    Array.from({ length: instances }, () =>
      start([
        "serve",
        "--kernel-url",
        options.kernelUrl ?? kernel.url,
        "--kernel-token",
        "ktok",
        "--store",
        options.store ?? redisUrl(DB),
        "--state",
        p.state,
        "--port",
        "0",
        "--token",
        "tok",
        "--lease",
        String(options.lease ?? 30_000),
        "--workers",
        String(options.workers ?? 1),
      ]),
    ),
  );
  return {
    p,
    kernel,
    servers,
    call: (i: number, request: unknown) =>
      postJson(`${servers[i % servers.length]!.url}/v1/tools/call`, request, "tok").then((r) => r.body),
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await kernel.stop();
    },
  };
}

const note = (key: string, content = `content of ${key}`) =>
  makeRequest("mnote.artifact.create_ai_note", { content }, { idempotencyKey: key }, owner);

/** Four serving processes: four instances, or two instances of two workers each. */
const TOPOLOGIES = [
  ["four instances, one Redis, one kernel", { instances: 4, workers: 1 }],
  ["two instances of serve --workers 2, one Redis, one kernel", { instances: 2, workers: 2 }],
] as const;

describeRedis("several instances on one Redis", () => {
  beforeAll(async () => {
    redis = await requireRedis(DB);
  });
  beforeEach(() => redis.flushdb());
  afterAll(() => redis?.disconnect());

  describe.each(TOPOLOGIES)("%s", (_name, topology) => {
    const four = (options: { store?: string } = {}) =>
      cluster(topology.instances, { ...options, workers: topology.workers });

    it("200 concurrent requests, 20 keys x 10 duplicates: exactly 20 writes; every duplicate gets its key's result or in-progress", async () => {
      const c = await four();
      const keys = Array.from({ length: 20 }, (_, k) => `key-${k}`);
      const jobs = keys.flatMap((key) => Array.from({ length: 10 }, () => key)).sort(() => Math.random() - 0.5);
      const answers = await Promise.all(jobs.map((key, i) => c.call(i, note(key)).then((r) => ({ key, r }))));
      for (const key of keys) {
        const mine = answers.filter((a) => a.key === key).map((a) => a.r);
        const results = mine.filter((r) => r.ok);
        expect([key, results.length > 0]).toEqual([key, true]);
        expect([key, new Set(results.map((r) => r.audit.commandId)).size]).toEqual([key, 1]);
        for (const r of mine.filter((x) => !x.ok))
          expect([key, r.error.code, r.error.retryable]).toEqual([key, "mnote_tool_in_progress", true]);
      }
      expect(count(c.p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(20);
      expect(count(c.p.db, "SELECT COUNT(*) AS n FROM artifacts")).toBe(20);
      expect(await redis.dbsize()).toBe(20);
      // every instance took calls (each process logs its own pid). Which worker of an instance
      // takes a connection is the operating system's choice since serve --workers hands
      // connections out with SCHED_NONE (a dying worker is never handed one, docs/RELIABILITY.md),
      // so a burst may land on one worker of an instance: the instances are what is asserted.
      const pidsOf = (s: (typeof c.servers)[number]) =>
        new Set(
          s.stderr.filter((l) => l.includes('"event":"tool_call"')).map((l) => (JSON.parse(l) as { pid: number }).pid),
        );
      for (const s of c.servers) expect(pidsOf(s).size).toBeGreaterThanOrEqual(1);
      await c.stop();
    });

    it("one key sent with two different payloads: one write; the other payload gets idempotency_conflict", async () => {
      const c = await four();
      const jobs = Array.from({ length: 40 }, (_, i) => (i % 2 ? "A" : "B")).sort(() => Math.random() - 0.5);
      const answers = await Promise.all(
        jobs.map((payload, i) => c.call(i, note("shared", `payload ${payload}`)).then((r) => ({ payload, r }))),
      );
      expect(count(c.p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(1);
      const content = (
        new Database(c.p.db, { readonly: true }).prepare("SELECT content FROM artifacts").get() as { content: string }
      ).content;
      const winner = content.endsWith("A") ? "A" : "B";
      for (const { payload, r } of answers) {
        if (payload === winner) expect(r.ok || r.error.code === "mnote_tool_in_progress").toBe(true);
        else expect(r.error.code).toBe("mnote_tool_idempotency_conflict");
      }
      await c.stop();
    });

    it("Redis flushed in the middle: retries reach the kernel, which replays: still no second write", async () => {
      const c = await four();
      const keys = Array.from({ length: 20 }, (_, k) => `flush-${k}`);
      const first = await Promise.all(keys.map((key, i) => c.call(i, note(key))));
      await redis.flushdb();
      const second = await Promise.all(keys.map((key, i) => c.call(i + 1, note(key))));
      await redis.flushdb();
      const third = await Promise.all(keys.map((key, i) => c.call(i + 2, note(key))));
      keys.forEach((key, i) => {
        expect([key, first[i].ok, second[i].ok, third[i].ok]).toEqual([key, true, true, true]);
        expect([key, second[i].audit.commandId, third[i].audit.commandId]).toEqual([
          key,
          first[i].audit.commandId,
          first[i].audit.commandId,
        ]);
        expect([key, second[i].audit.replayed]).toEqual([key, true]);
      });
      expect(count(c.p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(20);
      await c.stop();
    });

    // a private redis-server is started and stopped (not the suite's, which another test uses)
    (redisServerPath() ? it : it.skip)(
      `Redis down: keyed writes still happen exactly once, guarded by the kernel (no in-progress answers then)${redisServerPath() ? "" : " (skipped: redis-server not found)"}`,
      async () => {
        // a Redis that answers at start (one that does not stops serve, exit 3), stopped before the calls
        const down = await privateRedis(false);
        const c = await four({ store: down.url });
        await down.stop();
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => c.call(i, note("no-redis"))));
        for (const r of answers) expect(r.ok).toBe(true);
        expect(new Set(answers.map((r) => r.audit.commandId)).size).toBe(1);
        expect(count(c.p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(1);
        expect(c.servers.some((s) => s.stderr.some((l) => l.includes('"event":"store_unavailable"')))).toBe(true);
        await c.stop();
      },
    );
  });

  describe("two instances, one Redis, one kernel behind a proxy", () => {
    it("a slow write keeps its claim alive (heartbeat); a lease that runs out anyway (the heartbeat lost) makes no second write", async () => {
      const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
      const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
      // A proxy that holds the ai_note writes by events, not by a timer: the first write waits until
      // the second instance's write has arrived too (or 30 s have passed, so a failure cannot hang).
      // The second request is sent only once the first write is held, plus five leases: without
      // the heartbeat the first claim would have run out; with it, the second instance is told
      // in_progress. Then the claim is made to run out (its Redis record expires, as when the
      // heartbeat cannot reach Redis) while the write is still running.
      const held: Array<() => void> = [];
      let firstHeld!: () => void;
      const heldOnce = new Promise<void>((r) => (firstHeld = r));
      const proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (d: Buffer) => chunks.push(d));
        req.on("end", () => {
          const forward = () => {
            const up = httpRequest(kernel.url + req.url, { method: req.method, headers: req.headers }, (u) => {
              res.writeHead(u.statusCode ?? 502, u.headers);
              u.pipe(res);
            });
            up.on("error", () => res.destroy());
            up.end(Buffer.concat(chunks));
          };
          if (!(req.url ?? "").endsWith("artifact.aiNote.create")) return forward();
          held.push(forward);
          if (held.length === 1) {
            firstHeld();
            setTimeout(() => held.splice(0).forEach((f) => f()), 30_000).unref();
          } else held.splice(0).forEach((f) => f());
        });
      });
      await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const leaseMs = 400;
      const servers = await Promise.all(
        [0, 1].map(() =>
          start([
            "serve",
            "--kernel-url",
            proxyUrl,
            "--kernel-token",
            "ktok",
            "--store",
            redisUrl(DB),
            "--state",
            p.state,
            "--port",
            "0",
            "--token",
            "tok",
            "--lease",
            String(leaseMs),
          ]),
        ),
      );
      const request = note("slow-key");
      const a = postJson(`${servers[0]!.url}/v1/tools/call`, request, "tok");
      await heldOnce; // the first instance holds the claim and its write is in flight
      await new Promise((r) => setTimeout(r, 5 * leaseMs)); // five leases: renewed all along by the heartbeat
      const early = await postJson(`${servers[1]!.url}/v1/tools/call`, request, "tok");
      expect(early.body.error).toMatchObject({ code: "mnote_tool_in_progress", retryable: true });
      const [record] = await redis.keys("mnote:idem:*");
      expect(JSON.parse((await redis.get(record!))!)).toMatchObject({ state: "pending" });
      await redis.pexpire(record!, 1); // the lease runs out while the write is still held
      await new Promise((r) => setTimeout(r, 20));
      const b = postJson(`${servers[1]!.url}/v1/tools/call`, request, "tok");
      const [ra, rb] = [(await a).body, (await b).body];
      expect([ra.ok, rb.ok]).toEqual([true, true]);
      expect(rb.audit.commandId).toBe(ra.audit.commandId);
      expect([ra.audit.replayed, rb.audit.replayed].filter(Boolean)).toHaveLength(1);
      expect(count(p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(1);
      await Promise.all(servers.map((s: Running) => s.stop()));
      await new Promise<void>((r) => {
        proxy.closeAllConnections();
        proxy.close(() => r());
      });
      await kernel.stop();
    });
  });
});
