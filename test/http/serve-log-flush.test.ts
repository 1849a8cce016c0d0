/**
 * serve's log lines leave the request's path (issue 46: written once per event-loop turn,
 * common/http/logger.ts) and none is lost when the process ends: `serve` as a real process, its
 * stderr a pipe. SIGTERM while calls are in flight (one worker and two): every call answered has its
 * tool_call line, and the shutdown line is there. A crash (an uncaught exception thrown right after
 * an answer went out, in the same turn as that call's line, so only the exit flush can write it):
 * the line is there too. The crash is injected by a --require preload (test/fixtures); the logger
 * and the server are the built ones.
 */
import { once } from "node:events";
import { join } from "node:path";
import { repoRoot } from "../support/paths";
import { postJson, start, type Running } from "../support/processes";
import { seededProject } from "../support/project";
import { makeRequest } from "../support/requests";

const CRASH_PRELOAD = join(repoRoot, "test", "fixtures", "crash-after-answer.cjs");
const ids = { sessionId: "s_owner", actorId: "user_1" };

/** serve's stderr once the process has exited and the pipe is drained: its JSON lines. */
async function linesAfterExit(server: Running, exitCode: Promise<number | null>): Promise<Record<string, unknown>[]> {
  const stream = server.process.stderr!;
  const ended = stream.readableEnded ? Promise.resolve() : once(stream, "end");
  await exitCode;
  await ended;
  return server.stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const toolCallIds = (lines: Record<string, unknown>[]) =>
  new Set(lines.filter((l) => l.event === "tool_call").map((l) => l.toolCallId as string));

describe("serve loses no log line when it stops", () => {
  it.each([1, 2])("SIGTERM with calls in flight (%i worker(s)): every answered call has its line", async (workers) => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start([
      "serve",
      ...["--db", p.db, "--state", p.state, "--port", "0", "--token", "T"],
      ...["--workers", String(workers)],
    ]);
    const url = new URL("/v1/tools/call", server.url).toString();
    // a first round, answered before the signal
    const sent: string[] = [];
    const call = async () => {
      const req = makeRequest("mnote.page.get", undefined, {}, ids);
      sent.push(req.toolCallId as string);
      return postJson(url, req, "T").then(
        (r) => ({ id: req.toolCallId as string, ok: r.status === 200 && r.body.ok === true }),
        () => ({ id: req.toolCallId as string, ok: false }),
      );
    };
    const first = await Promise.all(Array.from({ length: 20 }, call));
    expect(first.every((r) => r.ok)).toBe(true);
    // a second round in flight when SIGTERM arrives
    const inFlight = Promise.all(Array.from({ length: 30 }, call));
    const exit = server.stop("SIGTERM");
    const second = await inFlight;
    const lines = await linesAfterExit(server, exit);
    expect(await exit).toBe(0);
    const answered = [...first, ...second].filter((r) => r.ok).map((r) => r.id);
    expect(answered.length).toBeGreaterThanOrEqual(20);
    const logged = toolCallIds(lines);
    expect(answered.filter((id) => !logged.has(id))).toEqual([]);
    expect(lines.filter((l) => l.event === "shutdown").length).toBe(workers === 1 ? 1 : workers + 1);
  });

  it("an uncaught exception right after an answer: that call's line (same turn) is still written", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "T"], {
      env: { NODE_OPTIONS: `--require ${CRASH_PRELOAD}` },
    });
    const exit = new Promise<number | null>((resolve) =>
      server.process.exitCode !== null ? resolve(server.process.exitCode) : server.process.once("exit", resolve),
    );
    const before = Array.from({ length: 10 }, () => makeRequest("mnote.page.get", undefined, {}, ids));
    for (const req of before)
      expect((await postJson(new URL("/v1/tools/call", server.url).toString(), req, "T")).body.ok).toBe(true);
    // the preload throws on the tick after this answer's res.end: before the turn's lines are written
    const last = makeRequest("mnote.page.get", undefined, {}, ids);
    const answer = await postJson(new URL("/v1/tools/call?crash=1", server.url).toString(), last, "T").catch(
      () => null,
    );
    const lines = await linesAfterExit(server, exit);
    expect(await exit).not.toBe(0);
    expect(server.stderr.join("\n")).toContain("injected crash after an answer");
    const logged = toolCallIds(lines);
    expect(before.map((r) => r.toolCallId).filter((id) => !logged.has(id as string))).toEqual([]);
    // the answer may or may not have reached the client before the crash; the line is written either way
    expect(logged.has(last.toolCallId as string)).toBe(true);
    if (answer) expect(answer.body.ok).toBe(true);
  });
});
