/**
 * Several `serve` processes on one kernel database and one state file: concurrent duplicates,
 * racing writers, and a process killed with SIGKILL in the middle of a stream of writes. The races
 * run twice: against two `serve` processes, and against one `serve --workers 2` (node:cluster),
 * whose workers share the same files and must keep the same guarantees.
 */
import { countRows as count } from "../support/db-hash";
import { seededProject } from "../support/project";
import { postJson, start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { scaled } from "../support/soak";

const owner = { sessionId: "s_owner", actorId: "user_1" };
const grants = [{ session: "s_owner", actor: "user_1" }];

async function servers(p: { db: string; state: string }, n: number, extra: string[] = []): Promise<Running[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", ...extra]),
    ),
  );
}

const call = (server: Running, request: unknown) =>
  postJson(`${server.url}/v1/tools/call`, request, "tok").then((r) => r.body);

/** The processes that logged tool calls (a worker logs its own pid on every line). */
function callingPids(servers: Running[]): Set<number> {
  const pids = new Set<number>();
  for (const s of servers)
    for (const line of s.stderr) if (line.includes('"event":"tool_call"')) pids.add(JSON.parse(line).pid as number);
  return pids;
}

/** Two servers to send to: two serve processes, or one serve with two workers (sent to twice). */
const TOPOLOGIES: Array<[string, (p: { db: string; state: string }) => Promise<Running[]>]> = [
  ["two serve processes sharing one kernel database", (p) => servers(p, 2)],
  [
    "one serve --workers 2 on one kernel database",
    async (p) => {
      const [s] = await servers(p, 1, ["--workers", "2"]);
      return [s!, s!];
    },
  ],
];

describe.each(TOPOLOGIES)("%s", (_name, topology) => {
  it("50 concurrent identical create_ai_note calls with one key: one note, one edge; every answer the same result or in-progress", async () => {
    const p = seededProject(grants);
    const [a, b] = await topology(p);
    const rounds = scaled(1, 20);
    for (let round = 0; round < rounds; round++) {
      const request = makeRequest(
        "mnote.artifact.create_ai_note",
        { content: `Exactly once, round ${round}.` },
        { idempotencyKey: `fifty-${round}` },
        owner,
      );
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a! : b!, request)));
      const results = answers.filter((r) => r.ok);
      expect(results.length).toBeGreaterThan(0);
      expect(new Set(results.map((r) => r.audit.commandId)).size).toBe(1);
      expect(new Set(results.map((r) => JSON.stringify(r.result))).size).toBe(1);
      for (const r of answers.filter((x) => !x.ok))
        expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_in_progress", true]);
    }
    expect(count(p.db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'")).toBe(rounds);
    expect(count(p.db, "SELECT COUNT(*) AS n FROM edges")).toBe(rounds);
    // every serve process answered, then stop. Which worker of a serve --workers takes a
    // connection is the OS's choice (SCHED_NONE since never-twice), so there the process counts.
    expect(callingPids([a!, b!]).size).toBeGreaterThanOrEqual(new Set([a!, b!]).size);
    await Promise.all([a!.stop(), b!.stop()]);
  });

  it("the same for page.save: one revision bump", async () => {
    const p = seededProject(grants);
    const [a, b] = await topology(p);
    const request = makeRequest(
      "mnote.page.save",
      { content: [{ type: "paragraph", text: "once" }] },
      { idempotencyKey: "fifty-saves" },
      owner,
    );
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a! : b!, request)));
    for (const r of answers)
      expect(r.ok ? r.result.revision : r.error.code).toEqual(r.ok ? 1 : "mnote_tool_in_progress");
    expect(count(p.db, "SELECT revision AS n FROM pages WHERE id = 'doc_1'")).toBe(1);
    expect(count(p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(1);
    // every serve process answered, then stop. Which worker of a serve --workers takes a
    // connection is the OS's choice (SCHED_NONE since never-twice), so there the process counts.
    expect(callingPids([a!, b!]).size).toBeGreaterThanOrEqual(new Set([a!, b!]).size);
    await Promise.all([a!.stop(), b!.stop()]);
  });

  it("writers racing on the same base revision with different keys: exactly one wins, the rest conflict; revision = start + successes", async () => {
    const p = seededProject(grants);
    const [a, b] = await topology(p);
    for (let round = 0; round < scaled(3, 50); round++) {
      const start = count(p.db, "SELECT revision AS n FROM pages WHERE id = 'doc_1'");
      const writers = Array.from({ length: 6 }, (_, i) =>
        call(
          i % 2 ? a! : b!,
          makeRequest(
            "mnote.page.update_title",
            { title: `round ${round} writer ${i}`, baseRevision: start },
            { idempotencyKey: `race-${round}-${i}` },
            owner,
          ),
        ),
      );
      const answers = await Promise.all(writers);
      const wins = answers.filter((r) => r.ok);
      expect(wins).toHaveLength(1);
      for (const r of answers.filter((x) => !x.ok)) expect(r.error.code).toBe("mnote_tool_conflict");
      expect(count(p.db, "SELECT revision AS n FROM pages WHERE id = 'doc_1'")).toBe(start + wins.length);
    }
    // every serve process answered, then stop. Which worker of a serve --workers takes a
    // connection is the OS's choice (SCHED_NONE since never-twice), so there the process counts.
    expect(callingPids([a!, b!]).size).toBeGreaterThanOrEqual(new Set([a!, b!]).size);
    await Promise.all([a!.stop(), b!.stop()]);
  });
});

describe.each([
  ["a serve process killed in the middle of a stream of keyed writes", "process"],
  ["a worker of serve --workers 2 killed in the middle of a stream of keyed writes", "worker"],
] as const)("%s", (_name, killed) => {
  it("then (after a restart, or with the worker replaced) retrying every request gives no duplicate, every acknowledged write present, nothing half-written", async () => {
    const p = seededProject(grants);
    const lease = ["--lease", "1500", ...(killed === "worker" ? ["--workers", "2"] : [])];
    let [server] = await servers(p, 1, lease);
    // SIGKILL the whole serve, or one of its workers (the primary replaces it, the other keeps serving)
    const kill = () => {
      if (killed === "process") return void server!.process.kill("SIGKILL");
      const worker = [...callingPids([server!])].find((pid) => pid !== server!.process.pid);
      expect(worker).toBeDefined();
      process.kill(worker!, "SIGKILL");
    };
    const total = scaled(60, 1_000);
    const requests = Array.from({ length: total }, (_, i) =>
      makeRequest("mnote.artifact.create_ai_note", { content: `note ${i}` }, { idempotencyKey: `crash-${i}` }, owner),
    );
    const acknowledged = new Map<number, { commandId: string; artifactId: string }>();
    // four writers in parallel; the process (or a worker) dies under them
    let next = 0;
    let done = false;
    const writer = async () => {
      while (next < total && !done) {
        const i = next++;
        try {
          const r = await call(server!, requests[i]);
          if (r.ok) acknowledged.set(i, { commandId: r.audit.commandId, artifactId: r.result.artifactId });
        } catch {
          // the connection died with the process: no answer, so not acknowledged
        }
        if (i === Math.floor(total / 2) && !done) {
          done = true;
          kill();
        }
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    expect(done).toBe(true);
    if (killed === "process") {
      await server!.stop("SIGKILL");
      [server] = await servers(p, 1, lease);
    } else {
      // the primary noticed and started another worker
      for (let i = 0; i < 100 && !server!.stderr.some((l) => l.includes('"event":"worker_exited"')); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(server!.stderr.some((l) => l.includes('"event":"worker_exited"'))).toBe(true);
    }
    for (let i = 0; i < total; i++) {
      let r = await call(server!, requests[i]);
      for (let attempt = 0; !r.ok && r.error.retryable && attempt < 40; attempt++) {
        await new Promise((done) => setTimeout(done, 100));
        r = await call(server!, requests[i]);
      }
      expect([i, r.ok]).toEqual([i, true]);
      const before = acknowledged.get(i);
      if (before) expect([i, r.audit.commandId, r.result.artifactId]).toEqual([i, before.commandId, before.artifactId]);
    }
    await server!.stop();
    expect(count(p.db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'")).toBe(total);
    expect(count(p.db, "SELECT COUNT(*) AS n FROM edges")).toBe(total);
    expect(count(p.db, "SELECT COUNT(*) AS n FROM command_log")).toBe(total);
    expect(
      count(
        p.db,
        "SELECT COUNT(*) AS n FROM artifacts a WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.from_id = a.id)",
      ),
    ).toBe(0);
    expect(
      count(
        p.db,
        "SELECT COUNT(*) AS n FROM artifacts a WHERE NOT EXISTS (SELECT 1 FROM command_log c WHERE c.command_id = a.created_command_id)",
      ),
    ).toBe(0);
    expect(acknowledged.size).toBeGreaterThan(0);
  });
});
