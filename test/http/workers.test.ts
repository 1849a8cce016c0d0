/**
 * `serve --workers N` (common/http/cluster.ts): one listening line for all workers, a generated
 * token that every worker accepts, a dead worker replaced, every process gone after SIGTERM, and an
 * in-memory state refused (each worker would have its own). The races with two workers are in
 * test/reliability/multi-process.test.ts and test/scale/instances.test.ts.
 */
import { readFileSync } from "node:fs";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";

const owner = { sessionId: "s_owner", actorId: "user_1" };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const workerPids = (stderr: string[]) =>
  new Set(
    stderr
      .filter((l) => l.includes('"event":"listening"') && !l.includes('"workers"'))
      .map((l) => (JSON.parse(l) as { pid: number }).pid),
  );

describe("serve --workers", () => {
  it("two workers behind one address and a generated token; a killed worker is replaced; SIGTERM stops every process", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--workers", "2"], {
      env: { MNOTE_TOOLS_TOKEN: undefined }, // no token from this environment: the primary generates one
    });
    const shown = server.stderr.join("\n").match(/generated a bearer token into (\S+) \(readable by you only\)/);
    expect(shown).not.toBeNull();
    const token = readFileSync(shown![1]!, "utf8").trim();
    expect(server.stderr.join("\n")).not.toContain(token);
    const workers = workerPids(server.stderr);
    expect(workers.size).toBe(2);
    expect(workers.has(server.process.pid!)).toBe(false);
    // every worker accepts the primary's token
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        postJson(`${server.url}/v1/tools/call`, makeRequest("mnote.page.get", undefined, {}, owner), token),
      ),
    );
    for (const a of answers) expect([a.status, a.body.ok]).toEqual([200, true]);
    const [first] = [...workers];
    process.kill(first!, "SIGKILL");
    for (let i = 0; i < 100 && workerPids(server.stderr).size < 3; i++) await new Promise((r) => setTimeout(r, 100));
    const all = workerPids(server.stderr);
    expect(all.size).toBe(3);
    expect(server.stderr.some((l) => l.includes('"event":"worker_exited"'))).toBe(true);
    const ok = await postJson(
      `${server.url}/v1/tools/call`,
      makeRequest("mnote.page.get", undefined, {}, owner),
      token,
    );
    expect(ok.body.ok).toBe(true);
    expect(await server.stop()).toBe(0);
    for (const pid of all) expect([pid, alive(pid)]).toEqual([pid, false]);
  });

  it("refuses an in-memory state with more than one worker, before listening", () => {
    const run = runCli(["serve", "--state", ":memory:", "--port", "0", "--token", "t", "--workers", "2"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--workers 2 needs a database file for --state");
    expect(run.stdout).toBe("");
  });

  it("refuses a worker count that is not a positive integer: a usage error (exit 2) naming the option", () => {
    for (const n of ["0", "-1", "1.5", "two"]) {
      const run = runCli(["serve", "--port", "0", "--token", "t", "--workers", n]);
      expect([n, run.status, /option '--workers <n>' argument '.*' is invalid/.test(run.stderr)]).toEqual([n, 2, true]);
    }
  });
});
