/**
 * `serve --workers` under faults (common/http/cluster.ts, issue 27 item 5):
 *   - workers killed under load: no request hangs (with the cluster's round-robin, a connection
 *     handed to a dying worker waited for the client's own timeout); every call is answered or
 *     refused at once, and the server keeps serving;
 *   - `--port 0` and every worker killed at once: the replacements listen on the advertised port;
 *   - workers dying too often: the primary stops with exit 3 and one line, not exit 70 and a stack.
 */
import { request as httpRequest } from "node:http";
import { seededProject } from "../support/project";
import { postJson, start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";

const owner = { sessionId: "s_owner", actorId: "user_1" };

const workerPids = (stderr: string[]) => [
  ...new Set(
    stderr
      .filter((l) => l.includes('"event":"listening"') && !l.includes('"workers"'))
      .map((l) => (JSON.parse(l) as { pid: number }).pid),
  ),
];

async function serveWorkers(): Promise<Running> {
  const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
  return start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--workers", "2", "--token", "tok"]);
}

/** One page.get; resolves with how it ended and how long it took. */
function timedGet(url: string): Promise<{ outcome: "answered" | "refused"; ms: number }> {
  const started = Date.now();
  const body = JSON.stringify(makeRequest("mnote.page.get", undefined, {}, owner));
  return new Promise((resolve) => {
    const req = httpRequest(
      `${url}/v1/tools/call`,
      {
        method: "POST",
        agent: false,
        headers: { authorization: "Bearer tok", "content-type": "application/json", "content-length": body.length },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ outcome: "answered", ms: Date.now() - started }));
        res.on("error", () => resolve({ outcome: "refused", ms: Date.now() - started }));
      },
    );
    req.on("error", () => resolve({ outcome: "refused", ms: Date.now() - started }));
    // far past any answer: a request still waiting then is a hang
    req.setTimeout(30_000, () => req.destroy());
    req.end(body);
  });
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
}

describe("serve --workers under faults", () => {
  it("workers killed under load: no request hangs, and the server keeps serving", async () => {
    const server = await serveWorkers();
    try {
      const calls: Array<Promise<{ outcome: string; ms: number }>> = [];
      for (let round = 0; round < 2; round++) {
        const [victim] = workerPids(server.stderr).slice(-2);
        for (let i = 0; i < 40; i++) calls.push(timedGet(server.url));
        process.kill(victim!, "SIGKILL");
        for (let i = 0; i < 40; i++) calls.push(timedGet(server.url));
        const seen = workerPids(server.stderr).length;
        await until(() => workerPids(server.stderr).length > seen);
      }
      const results = await Promise.all(calls);
      // answered, or refused at once by the dying worker's reset; never left waiting
      for (const r of results) expect(r.ms).toBeLessThan(25_000);
      expect(results.filter((r) => r.outcome === "answered").length).toBeGreaterThan(0);
      expect(
        (await postJson(`${server.url}/v1/tools/call`, makeRequest("mnote.page.get", undefined, {}, owner), "tok")).body
          .ok,
      ).toBe(true);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("--port 0, every worker killed at once: the replacements listen on the advertised port", async () => {
    const server = await serveWorkers();
    try {
      const first = workerPids(server.stderr);
      expect(first).toHaveLength(2);
      for (const pid of first) process.kill(pid, "SIGKILL");
      await until(() => workerPids(server.stderr).length >= 4);
      expect(workerPids(server.stderr).length).toBe(4);
      const answer = await postJson(
        `${server.url}/v1/tools/call`,
        makeRequest("mnote.page.get", undefined, {}, owner),
        "tok",
      );
      expect(answer.body.ok).toBe(true);
      expect(server.stderr.some((l) => l.includes("listening_moved"))).toBe(false);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("workers dying too often: exit 3 and one line, no stack", async () => {
    const server = await serveWorkers();
    const exited = new Promise<number | null>((r) => server.process.once("exit", (code) => r(code)));
    // both workers killed, then both replacements as soon as they listen: 6 deaths in a few seconds
    let killed = 0;
    while (killed < 8 && server.process.exitCode === null) {
      const pids = workerPids(server.stderr).slice(-2);
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
          killed++;
        } catch {
          // already gone
        }
      }
      const seen = workerPids(server.stderr).length;
      await until(() => workerPids(server.stderr).length >= seen + 2 || server.process.exitCode !== null, 10_000);
    }
    expect(await exited).toBe(3);
    const plain = server.stderr.filter((l) => !l.startsWith("{"));
    expect(plain).toEqual([expect.stringMatching(/workers died within 10 s: stopping/)]);
    expect(server.stderr.join("\n")).not.toMatch(/\n\s+at |internal error|please report/);
  }, 120_000);
});
