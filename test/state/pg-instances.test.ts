/**
 * Several machines, simulated: three `serve` processes, no shared memory and no shared file, each
 * with its own --state URL to one PostgreSQL database (a private server this suite starts, since
 * it restarts it), and one kernel behind `mnote-tools kernel serve`. Grants, idempotency records,
 * approval nonces and the approval key are all in Postgres. Every scenario asserts the kernel's
 * tables (and the state's), not only the answers:
 * - the same idempotency key sent to all three at once: one write;
 * - one approved token sent to all three at once: one write;
 * - one process killed mid-write, every request retried through another: one write each;
 * - Postgres crashed and restarted under a stream of writes: the retryable code while it is down,
 *   then no write lost and none doubled.
 */
import { countRows as count } from "../support/db-hash";
import pg from "pg";
import { seededProject } from "../support/project";
import { postJson, start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { runCli } from "../support/paths";
import {
  describePostgres,
  freshDatabase,
  privatePostgresMissing,
  testPostgres,
  type TestPostgres,
} from "../support/postgres";

const owner = { sessionId: "s_owner", actorId: "user_1" };
const REPLACE = { content: [{ type: "paragraph", text: "Approved body." }], mode: "replace" };
let postgres: TestPostgres;

async function pgCount(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

interface Cluster {
  db: string;
  state: string;
  servers: Running[];
  call(i: number, request: unknown): Promise<any>;
  stop(): Promise<void>;
}

/**
 * Three instances on a fresh database: the grant registered through the CLI (as the app would,
 * through any instance), the instances started with the host's approval policy unless `contract`
 * asks for the contract's own levels (page.save replace: ask).
 */
async function cluster(options: { lease?: number; contract?: boolean } = {}): Promise<Cluster> {
  const p = seededProject([]);
  const state = await freshDatabase(postgres.url);
  const grant = runCli([
    ...["session", "grant", "--state", state, "--session", owner.sessionId, "--workspace", "ws_1"],
    ...["--document", "doc_1", "--actor", owner.actorId, "--scope", "page.read,page.write,artifact.write"],
  ]);
  if (grant.status !== 0) throw new Error(grant.stderr);
  const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
  const env = options.contract ? { MNOTE_APPROVAL_POLICY: undefined, MNOTE_APPROVAL_SECRET: undefined } : {};
  const servers = await Promise.all(
    [0, 1, 2].map((i) =>
      start(
        [
          // a URL of its own (as on another machine), naming the same database
          ...[
            "serve",
            "--kernel-url",
            kernel.url,
            "--kernel-token",
            "ktok",
            "--state",
            `${state}?application_name=instance-${i}`,
          ],
          ...["--port", "0", "--token", "tok", "--lease", String(options.lease ?? 30_000)],
        ],
        { env },
      ),
    ),
  );
  return {
    db: p.db,
    state,
    servers,
    call: (i, request) =>
      postJson(`${servers[i % servers.length]!.url}/v1/tools/call`, request, "tok").then((r) => r.body),
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
      await kernel.stop();
    },
  };
}

const note = (key: string) =>
  makeRequest("mnote.artifact.create_ai_note", { content: `note ${key}` }, { idempotencyKey: key }, owner);

/** Sends request through server i until it answers ok (retryable failures only, up to ~30 s). */
async function untilOk(c: Cluster, i: number, request: unknown): Promise<any> {
  let r = await c.call(i, request).catch(() => undefined);
  for (let attempt = 0; !r?.ok && attempt < 150; attempt++) {
    if (r && !r.error.retryable) return r;
    await new Promise((done) => setTimeout(done, 200));
    r = await c.call(i, request).catch(() => undefined);
  }
  return r;
}

/** The processes that logged tool calls. */
function callingPids(servers: Running[]): Set<number> {
  const pids = new Set<number>();
  for (const s of servers)
    for (const line of s.stderr) if (line.includes('"event":"tool_call"')) pids.add(JSON.parse(line).pid as number);
  return pids;
}

describePostgres(
  "three instances on one PostgreSQL",
  () => {
    beforeAll(async () => {
      postgres = await testPostgres(true);
    });
    afterAll(async () => {
      await postgres?.close();
    });

    it("the same idempotency key sent to all three at once: one write per key; every answer that result or in-progress", async () => {
      const c = await cluster();
      for (let round = 0; round < 3; round++) {
        const request = note(`same-${round}`);
        const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => c.call(i, request)));
        const results = answers.filter((r) => r.ok);
        expect(results.length).toBeGreaterThan(0);
        expect(new Set(results.map((r) => r.audit.commandId)).size).toBe(1);
        expect(new Set(results.map((r) => JSON.stringify(r.result))).size).toBe(1);
        for (const r of answers.filter((x) => !x.ok))
          expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_in_progress", true]);
      }
      expect(count(c.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(3);
      expect(count(c.db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'")).toBe(3);
      expect(await pgCount(c.state, "SELECT COUNT(*) AS n FROM mnote_idempotency_records WHERE state = 'done'")).toBe(
        3,
      );
      expect(callingPids(c.servers).size).toBe(3);
      await c.stop();
    });

    it("one approved token sent to all three at once, each with a key of its own: one write; the rest are told the token is used", async () => {
      // the contract's levels (page.save replace asks) and no MNOTE_APPROVAL_SECRET: the key is the one kept in Postgres
      const c = await cluster({ contract: true });
      const preview = await c.call(0, makeRequest("mnote.page.save", REPLACE, {}, owner));
      expect(preview.error.code).toBe("mnote_tool_approval_required");
      const token = preview.error.approval.token as string;
      const before = count(c.db, "SELECT COUNT(*) AS n FROM command_log");
      const answers = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          c.call(
            i,
            makeRequest("mnote.page.save", REPLACE, { approval: { token }, idempotencyKey: `approved-${i}` }, owner),
          ),
        ),
      );
      expect(answers.filter((r) => r.ok)).toHaveLength(1);
      for (const r of answers.filter((x) => !x.ok))
        expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
      expect(count(c.db, "SELECT COUNT(*) AS n FROM command_log") - before).toBe(1);
      expect(count(c.db, "SELECT revision AS n FROM pages WHERE id = 'doc_1'")).toBe(1);
      expect(await pgCount(c.state, "SELECT COUNT(*) AS n FROM mnote_approval_nonces WHERE used_at IS NOT NULL")).toBe(
        1,
      );
      await c.stop();
    });

    it("one process killed mid-write, every request retried through another: each write once, every acknowledged one unchanged", async () => {
      const c = await cluster({ lease: 1_500 });
      const total = 60;
      const requests = Array.from({ length: total }, (_, i) => note(`crash-${i}`));
      const acknowledged = new Map<number, string>();
      let next = 0;
      let killed = false;
      // three writers, one per instance; instance 0 is killed under them
      const writer = async (server: number) => {
        while (next < total) {
          const i = next++;
          if (killed && server === 0) return;
          try {
            const r = await c.call(server, requests[i]);
            if (r.ok) acknowledged.set(i, r.audit.commandId);
          } catch {
            // the connection died with the process: not acknowledged
          }
          if (i === total / 2 && !killed) {
            killed = true;
            c.servers[0]!.process.kill("SIGKILL");
          }
        }
      };
      await Promise.all([writer(0), writer(1), writer(2), writer(0)]);
      expect(killed).toBe(true);
      for (let i = 0; i < total; i++) {
        const r = await untilOk(c, 1 + (i % 2), requests[i]);
        expect([i, r?.ok]).toEqual([i, true]);
        if (acknowledged.has(i)) expect([i, r.audit.commandId]).toEqual([i, acknowledged.get(i)]);
      }
      expect(acknowledged.size).toBeGreaterThan(0);
      expect(count(c.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(total);
      expect(count(c.db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'")).toBe(total);
      expect(count(c.db, "SELECT COUNT(*) AS n FROM edges")).toBe(total);
      expect(await pgCount(c.state, "SELECT COUNT(*) AS n FROM mnote_idempotency_records WHERE state = 'done'")).toBe(
        total,
      );
      await c.stop();
    });

    it("Postgres crashed and restarted under a stream of writes: the retryable code while it is down, then no write lost, none doubled", async () => {
      const c = await cluster({ lease: 1_500 });
      const total = 90;
      const requests = Array.from({ length: total }, (_, i) => note(`restart-${i}`));
      const answers: any[] = [];
      let next = 0;
      let restarted: Promise<void> | undefined;
      const writer = async (server: number) => {
        while (next < total) {
          const i = next++;
          answers[i] = await c.call(server, requests[i]);
          if (i === 30 && !restarted) {
            // a crash (no shutdown checkpoint), down for two seconds, then back on the same port
            postgres.server!.stop("immediate");
            restarted = new Promise((r) => setTimeout(r, 2_000)).then(() => postgres.server!.start());
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await Promise.all([writer(0), writer(1), writer(2)]);
      await restarted;
      // while it was down: retryable refusals only, and at least one store_unavailable
      const failures = answers.filter((r) => !r.ok);
      expect(failures.length).toBeGreaterThan(0);
      for (const r of failures) expect(r.error.retryable).toBe(true);
      expect(failures.some((r) => r.error.code === "mnote_tool_store_unavailable")).toBe(true);
      const acknowledged = new Map(answers.map((r, i) => [i, r] as const).filter(([, r]) => r.ok));
      expect(acknowledged.size).toBeGreaterThan(0);
      for (let i = 0; i < total; i++) {
        const r = await untilOk(c, i, requests[i]);
        expect([i, r?.ok]).toEqual([i, true]);
        const before = acknowledged.get(i);
        if (before) expect([i, r.audit.commandId]).toEqual([i, before.audit.commandId]);
      }
      expect(count(c.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(total);
      expect(count(c.db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'")).toBe(total);
      expect(await pgCount(c.state, "SELECT COUNT(*) AS n FROM mnote_idempotency_records WHERE state = 'done'")).toBe(
        total,
      );
      // the grant and the approval key were not forgotten either: the instances still serve
      expect(callingPids(c.servers).size).toBe(3);
      await c.stop();
    });
  },
  privatePostgresMissing(),
);
