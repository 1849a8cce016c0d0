/**
 * Section 4, HTTP: `mnote-tools serve` on loopback (embedded kernel on a seeded database file, a
 * state file with session grants), driven by autocannon for page.get, page.save with a fresh
 * idempotency key per request, and page.save replaying one key, at 1, 8 and 64 connections.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import autocannon from "autocannon";
import { cliFixture, type Fixture } from "./cold-start";
import { join } from "node:path";
import { cliBin, distBench, repoRoot } from "./paths";
import { getTexts, saveTemplates } from "./requests";
import { figure, pairedRatio, quantile, round, shuffle } from "./stats";
import { goal, type FigureTree, type Goal, type SectionContext, type SectionResult } from "./types";

const TOKEN = "bench-token";
const CONNECTIONS = [1, 8, 64] as const;
/** "get (bare node:http)" is the peer: the same requests to bench/bare-server.ts, which answers serve's page.get envelope. */
const SCENARIOS = ["get", "get (bare node:http)", "save (fresh key)", "save (replay)"] as const;
type Scenario = (typeof SCENARIOS)[number];

interface Server {
  url: string;
  child: ChildProcess;
}

async function startServer(f: Fixture): Promise<Server> {
  return startProcess([cliBin, "serve", "--port", "0", "--token", TOKEN, "--db", f.db, "--state", f.state]);
}

async function startProcess(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    // one JSON log line per call goes to stderr; /dev/null takes it as a log file would
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("serve did not start in 20 s")), 20_000);
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const line = out.split("\n")[0]!;
      if (out.includes("\n")) {
        clearTimeout(timer);
        try {
          resolve((JSON.parse(line) as { listening: string }).listening);
        } catch {
          reject(new Error(`serve printed ${line}`));
        }
      }
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { url, child };
}

async function call(
  server: Server,
  body: string,
): Promise<{ ok: boolean; result?: { revision?: number }; audit?: { replayed?: boolean }; error?: unknown }> {
  const res = await fetch(`${server.url}/v1/tools/call`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body,
  });
  return (await res.json()) as never;
}

interface Measured {
  rps: number[];
  latencies: number[];
  ok2xx: number;
  non2xx: number;
  errors: number;
  total: number;
}

async function load(
  server: Server,
  connections: number,
  seconds: number,
  warmupSeconds: number,
  nextBody: () => string,
): Promise<Measured> {
  const latencies: number[] = [];
  const done: number[] = [];
  const options = {
    url: `${server.url}/v1/tools/call`,
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: nextBody() }) }],
    warmup: { connections, duration: warmupSeconds },
  };
  const instance = autocannon(options as autocannon.Options);
  let t0 = 0;
  instance.on("start", () => (t0 = performance.now()));
  instance.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => {
    latencies.push(ms);
    done.push(performance.now());
  });
  const result = await instance;
  // requests completed in each whole second of the run
  const perSecond = new Array<number>(seconds).fill(0);
  for (const t of done) {
    const s = Math.floor((t - t0) / 1000);
    if (s >= 0 && s < seconds) perSecond[s]!++;
  }
  return {
    rps: perSecond,
    latencies,
    ok2xx: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total ?? 0,
  };
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const seconds = ctx.quick ? 2 : 5;
  const warmupSeconds = 1;
  const f = await cliFixture("http");
  const server = await startServer(f);
  let bare: Server | undefined;
  try {
    const gets = getTexts(256, 0x477);
    const saves = saveTemplates(256, 0x5a7);
    const run = `${process.pid}-${Date.now()}`;
    let keys = 0;
    let gi = 0;
    let si = 0;
    const freshSave = () => {
      const t = saves[si++ % saves.length]!;
      return t.head + JSON.stringify(`http-${run}-${++keys}`) + t.tail;
    };
    const replayBody = saves[0]!.head + JSON.stringify(`http-${run}-replayed`) + saves[0]!.tail;
    const pageGet = gets[0]!;
    const revisionOfSavePage = async () => {
      // a page.get on the save page: the save session is bound to it
      const probe = JSON.parse(saves[0]!.head + '"probe"' + saves[0]!.tail) as Record<string, unknown>;
      const body = JSON.stringify({
        ...probe,
        toolName: "mnote.page.get",
        args: {},
        idempotencyKey: undefined,
        dryRun: undefined,
      });
      const r = await call(server, body);
      if (!r.ok) throw new Error(`probe failed: ${JSON.stringify(r.error)}`);
      return r.result!.revision!;
    };

    // every kind of request answers ok before any load
    for (const body of [pageGet, freshSave(), replayBody]) {
      const r = await call(server, body);
      if (!r.ok) throw new Error(`HTTP bench request failed: ${JSON.stringify(r.error)}`);
    }
    // the peer answers with serve's own page.get envelope, so both replies have the same size
    bare = await startProcess([join(distBench, "bare-server.js"), TOKEN, JSON.stringify(await call(server, pageGet))]);
    const peer = bare;
    const again = await call(server, replayBody);
    if (!again.ok || again.audit?.replayed !== true) throw new Error("the replay body is not a replay");

    const bodies: Record<Scenario, () => string> = {
      get: () => gets[gi++ % gets.length]!,
      "get (bare node:http)": () => gets[gi++ % gets.length]!,
      "save (fresh key)": freshSave,
      "save (replay)": () => replayBody,
    };
    const measured = new Map<string, Measured>();
    const checks: Record<string, { revisionDelta: number; ok2xx: number }> = {};
    const plan = shuffle(SCENARIOS.flatMap((s) => CONNECTIONS.map((c) => [s, c] as const)));
    for (const [scenario, connections] of plan) {
      const reads = scenario.startsWith("get");
      const before = reads ? 0 : await revisionOfSavePage();
      const m = await load(
        scenario === "get (bare node:http)" ? peer : server,
        connections,
        seconds,
        warmupSeconds,
        bodies[scenario],
      );
      if (m.non2xx > 0 || m.errors > 0)
        throw new Error(`${scenario} at ${connections}: ${m.non2xx} non-2xx, ${m.errors} errors`);
      if (!reads) {
        const delta = (await revisionOfSavePage()) - before;
        checks[`${scenario} @${connections}`] = { revisionDelta: delta, ok2xx: m.ok2xx };
        // fresh keys write once per request (warm-up included); replays never write
        if (scenario === "save (replay)" && delta !== 0) throw new Error(`replays wrote ${delta} revisions`);
        if (scenario === "save (fresh key)" && delta < m.ok2xx)
          throw new Error(`fresh saves wrote ${delta} revisions for ${m.ok2xx} requests`);
      }
      measured.set(`${scenario}@${connections}`, m);
      ctx.log(
        `http: ${scenario} at ${connections} connection(s): ${Math.round(m.ok2xx / seconds)} req/s, p99 ${round(
          quantile(
            [...m.latencies].sort((a, b) => a - b),
            0.99,
          ),
        )} ms`,
      );
    }
    const figures: FigureTree = {};
    for (const scenario of SCENARIOS) {
      const byConnections: FigureTree = {};
      for (const c of CONNECTIONS) {
        const m = measured.get(`${scenario}@${c}`)!;
        const latency = figure(m.latencies, "ms");
        latency.p99 = round(
          quantile(
            [...m.latencies].sort((a, b) => a - b),
            0.99,
          ),
        );
        byConnections[`${c} connection${c === 1 ? "" : "s"}`] = { requestsPerSecond: figure(m.rps, "req/s"), latency };
      }
      figures[scenario] = byConnections;
    }
    const ratios: FigureTree = {};
    const goals: Goal[] = [];
    for (const c of CONNECTIONS) {
      const ours = measured.get(`get@${c}`)!.rps;
      const peerRps = measured.get(`get (bare node:http)@${c}`)!.rps;
      // per-second requests of the two runs, paired second by second
      const ratio = pairedRatio(ours, peerRps);
      ratios[`get, ${c} connection${c === 1 ? "" : "s"}`] = { "serve / bare node:http (req/s)": ratio };
      goals.push(
        goal(
          `http.bare${c}`,
          `HTTP page.get at ${c} connection${c === 1 ? "" : "s"}: serve / bare node:http, requests/s`,
          ratio,
          ">=",
          0.7,
        ),
      );
    }
    return {
      title: "HTTP: mnote-tools serve on loopback",
      notes: [
        `autocannon 8 (in the bench's process) against node bin/mnote-tools.js serve (its own process) on 127.0.0.1, POST /v1/tools/call with a bearer token, ${seconds} s per cell after a 1 s warm-up; the server and the load generator share the machine's cores.`,
        "requestsPerSecond: requests completed in each whole second of the run (median, p10, p90 over those seconds). latency: per request, from autocannon's response events (median, p10, p90, p99).",
        "get: page.get of doc_1 (3 blocks). save (fresh key): page.save with a new idempotency key on every request, so every request is a write (mode replace, 1 to 4 blocks; the page revision rises by one per request, checked). save (replay): the same request and key every time, written once beforehand, so every request is answered from the idempotency record and nothing is written (checked: the revision does not move).",
        "The server writes one JSON log line per call to stderr (sent to /dev/null here); the kernel and state are SQLite files in WAL mode.",
        "get (bare node:http): the peer, bench/bare-server.ts in its own process: a plain node:http server that checks the bearer token, reads and JSON.parses the body and answers JSON.stringify of serve's own page.get envelope (the same size), and does nothing else. The goal is serve's requests/s at least 0.7 times the peer's, per connection count (ratio of the per-second counts, paired by second).",
      ],
      figures,
      ratios,
      goals,
      extra: { seconds, warmupSeconds, checks },
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    if (bare && bare.child.exitCode === null) bare.child.kill("SIGTERM");
    if (server.child.exitCode === null) {
      const exited = new Promise((r) => server.child.once("exit", r));
      server.child.kill("SIGTERM");
      await exited;
    }
    rmSync(f.dir, { recursive: true, force: true });
  }
}
