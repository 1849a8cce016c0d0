/**
 * The servers' log line off a request's path (issue 46, serve): the default destination buffers
 * lines and writes them once per event-loop turn, and still loses none: not on process.exit, not on
 * an uncaught exception, and a fatal line is written at once (it survives a SIGKILL right after).
 * The processes are real Node processes running the built logger, writing to a pipe.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { batchedDestination, createLogger } from "../../common/http/logger";
import { repoRoot } from "../support/paths";

const LOGGER = join(repoRoot, "dist", "common", "http", "logger.js");

/** Runs `body` in a fresh node with `log` (the default stderr logger) in scope; its stderr lines. */
function run(body: string): { status: number | null; signal: NodeJS.Signals | null; lines: string[] } {
  const script = `const { createLogger } = require(${JSON.stringify(LOGGER)});
const log = createLogger({ service: "t" });
${body}`;
  const out = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
  return { status: out.status, signal: out.signal, lines: out.stderr.split("\n") };
}

const events = (lines: string[]) =>
  lines.filter((l) => l.startsWith("{")).map((l) => (JSON.parse(l) as { event: string }).event);

describe("the servers' default log destination", () => {
  it("writes the lines of one turn in one write, after the turn's work, in order", async () => {
    const writes: string[] = [];
    const dest = batchedDestination({ write: (text: string) => writes.push(text) });
    const log = createLogger({ service: "t", destination: dest });
    for (let i = 0; i < 3; i++) log.info({ event: `e${i}` }, "x");
    expect(writes).toEqual([]); // nothing written on the caller's path
    await new Promise((r) => setImmediate(r));
    expect(writes.length).toBe(1);
    expect(events(writes[0]!.split("\n"))).toEqual(["e0", "e1", "e2"]);
    log.info({ event: "next" }, "x");
    await new Promise((r) => setImmediate(r));
    expect(writes.length).toBe(2);
  });

  it("loses no line on process.exit right after logging", () => {
    const r = run(`for (let i = 0; i < 5000; i++) log.info({ event: "e" + i }, "x");
process.exit(0);`);
    expect(r.status).toBe(0);
    expect(events(r.lines)).toEqual(Array.from({ length: 5000 }, (_, i) => `e${i}`));
  });

  it("loses no line on an uncaught exception", () => {
    const r = run(`for (let i = 0; i < 100; i++) log.info({ event: "e" + i }, "x");
throw new Error("boom");`);
    expect(r.status).toBe(1);
    expect(events(r.lines)).toEqual(Array.from({ length: 100 }, (_, i) => `e${i}`));
    expect(r.lines.join("\n")).toContain("Error: boom");
  });

  it("writes a fatal line (and every line before it) at once: a SIGKILL right after does not lose it", () => {
    const r = run(`log.info({ event: "before" }, "x");
log.fatal({ event: "fatal" }, "x");
process.kill(process.pid, "SIGKILL");`);
    expect(r.signal).toBe("SIGKILL");
    expect(events(r.lines)).toEqual(["before", "fatal"]);
  });
});
