/**
 * Section 4, HTTP: `mnote-tools serve` on loopback (embedded kernel on a seeded database file, a
 * state file with session grants), with 1 and 2 workers, driven by autocannon for page.get,
 * page.save with a fresh idempotency key per request, and page.save replaying one key; page.get
 * against a bare node:http peer with the same number of processes.
 *
 * Interleaved: every round runs every cell once, cells in shuffled order, and a cell that compares
 * two servers runs them back to back (in random order), so each round gives one ratio taken within
 * seconds; the figure is the median of the per-round ratios. Every response body is checked (serve
 * answers HTTP 200 for a failure envelope too): a cell with one wrong body fails the run.
 */
import { benchPolicyArgs } from "./approval";
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import autocannon from "autocannon";
import { cliFixture, type Fixture } from "./cold-start";
import { cliBin, distBench, repoRoot } from "./paths";
import { processTreeCpuMs } from "./proc";
import { getTexts, saveTemplates } from "./requests";
import { figure, pairedRatio, shuffle, type Figure } from "./stats";
import { goal, type FigureTree, type Goal, type SectionContext, type SectionResult } from "./types";

const TOKEN = "bench-token";
const BARE = "get (bare node:http)";
const VALIDATED = "get (node:http + generated validator)";
type Peer = typeof BARE | typeof VALIDATED;
type Scenario = "get" | Peer | "save (fresh key)" | "save (replay)";
const PEERS: readonly Peer[] = [BARE, VALIDATED];

/** One measured thing: a scenario at a connection count on a server with some workers. */
interface Cell {
  scenario: Scenario;
  connections: number;
  workers: number;
}
/** A comparison: serve's page.get against the bare peer with as many processes. */
interface Pair {
  connections: number;
  workers: number;
}

interface Server {
  url: string;
  child: ChildProcess;
}

async function startProcess(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    // one JSON log line per call goes to stderr; /dev/null takes it as a log file would
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start in 30 s`)), 30_000);
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const line = out.split("\n")[0]!;
      if (out.includes("\n")) {
        clearTimeout(timer);
        try {
          resolve((JSON.parse(line) as { listening: string }).listening);
        } catch {
          reject(new Error(`${args.join(" ")} printed ${line}`));
        }
      }
    });
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}`)));
  });
  return { url, child };
}

async function stopProcess(server: Server | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((r) => server.child.once("exit", r));
  server.child.kill("SIGTERM");
  await exited;
}

type Envelope = {
  ok: boolean;
  toolName?: string;
  result?: { revision?: number };
  audit?: { effect?: string; replayed?: boolean };
  error?: unknown;
};

async function call(server: Server, body: string): Promise<Envelope> {
  const res = await fetch(`${server.url}/v1/tools/call`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body,
  });
  return (await res.json()) as Envelope;
}

/** What a right answer of each scenario looks like (the whole body is parsed and checked). */
const VERIFY: Record<Scenario, (e: Envelope) => boolean> = {
  get: (e) => e.ok === true && e.toolName === "mnote.page.get" && typeof e.result?.revision === "number",
  [BARE]: (e) => e.ok === true && e.toolName === "mnote.page.get" && typeof e.result?.revision === "number",
  [VALIDATED]: (e) => e.ok === true && e.toolName === "mnote.page.get" && typeof e.result?.revision === "number",
  "save (fresh key)": (e) =>
    e.ok === true && e.toolName === "mnote.page.save" && e.audit?.effect === "write" && e.audit.replayed === false,
  "save (replay)": (e) => e.ok === true && e.toolName === "mnote.page.save" && e.audit?.replayed === true,
};

interface Run {
  rps: number;
  ok: number;
  wrong: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
  /** The server's CPU ms (every process of it) per answered request, warm-up included in the CPU. */
  cpuPerRequest: number;
  /** A few wrong bodies, for the failure message. */
  examples: string[];
}

async function load(
  serverPid: number,
  url: string,
  connections: number,
  seconds: number,
  warmupSeconds: number,
  nextBody: () => string,
  verify: (e: Envelope) => boolean,
): Promise<Run> {
  let wrong = 0;
  const examples: string[] = [];
  const options = {
    url: `${url}/v1/tools/call`,
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: nextBody() }) }],
    ...(warmupSeconds > 0 ? { warmup: { connections, duration: warmupSeconds } } : {}),
    verifyBody: (body: string) => {
      let good = false;
      try {
        good = verify(JSON.parse(body) as Envelope);
      } catch {
        good = false;
      }
      if (!good) {
        wrong++;
        if (examples.length < 3) examples.push(body.slice(0, 300));
      }
      return good;
    },
  };
  const cpuBefore = processTreeCpuMs(serverPid);
  const result = await autocannon(options as autocannon.Options);
  const cpuMs = processTreeCpuMs(serverPid) - cpuBefore;
  const ok = result["2xx"] - result.mismatches;
  return {
    cpuPerRequest: cpuMs / Math.max(1, ok),
    rps: ok / result.duration,
    ok,
    wrong,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    examples,
  };
}

const key = (c: Cell) => `${c.scenario}@${c.connections}x${c.workers}`;
const conns = (c: number) => `${c} connection${c === 1 ? "" : "s"}`;
const procs = (w: number) => `${w} worker${w === 1 ? "" : "s"}`;

/** serve runs with each of these worker counts (and each peer with as many processes). */
const WORKERS = [1, 2];

/** What a run measures and for how long: smoke, quick and the default run differ only here. */
interface Plan {
  smoke: boolean;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  /** serve's page.get against both peers, as many processes on each side. */
  pairs: Pair[];
  /** The write cells: they have no peer, so each is measured on its own. */
  singles: Cell[];
}

function planOf(ctx: SectionContext): Plan {
  const smoke = ctx.smoke === true;
  return {
    smoke,
    // 4 rounds (5 before round 3): the default run must end within 15 minutes at a load of 10
    rounds: smoke ? 1 : ctx.quick ? 3 : 4,
    seconds: smoke ? 0.3 : ctx.quick ? 1 : 2,
    warmupSeconds: smoke ? 0.1 : 0.5,
    pairs: smoke
      ? WORKERS.map((workers) => ({ connections: 8, workers }))
      : [
          ...[1, 8, 64].map((connections) => ({ connections, workers: 1 })),
          ...[8, 64].map((connections) => ({ connections, workers: 2 })),
        ],
    singles: smoke
      ? [
          { scenario: "save (fresh key)", connections: 8, workers: 1 },
          { scenario: "save (fresh key)", connections: 8, workers: 2 },
          { scenario: "save (replay)", connections: 8, workers: 1 },
        ]
      : [
          ...[1, 8, 64].map((connections) => ({ scenario: "save (fresh key)" as const, connections, workers: 1 })),
          ...[8, 64].map((connections) => ({ scenario: "save (fresh key)" as const, connections, workers: 2 })),
          ...[8, 64].map((connections) => ({ scenario: "save (replay)" as const, connections, workers: 1 })),
        ],
  };
}

/**
 * One serve per worker count, on the fixture. Each joins `servers` as soon as it listens, so the
 * caller stops the ones that started when a later one fails.
 */
async function startServes(f: Fixture, servers: Map<number, Server>): Promise<void> {
  for (const w of WORKERS)
    servers.set(
      w,
      await startProcess([
        cliBin,
        "serve",
        "--port",
        "0",
        "--token",
        TOKEN,
        "--db",
        f.db,
        "--state",
        f.state,
        "--workers",
        String(w),
        ...benchPolicyArgs(dirname(f.db)),
      ]),
    );
}

/** The request texts: fixed for reads and replays, a new idempotency key for every fresh save. */
interface Bodies {
  pageGet: string;
  /** The one save request every replay sends (its key is written once, before the load). */
  replayBody: string;
  freshSave: () => string;
  /** The next body of each scenario, cycling through the pools. */
  next: Record<Scenario, () => string>;
  /** A page.get on the save page (the save session is bound to it): its revision counts the writes. */
  probe: string;
}

function bodiesOf(): Bodies {
  const gets = getTexts(256, 0x477);
  const saves = saveTemplates(256, 0x5a7);
  // keys unique to this run: a fresh save never meets a record of an earlier run on the same state
  const run = `${process.pid}-${Date.now()}`;
  let keys = 0;
  let gi = 0;
  let si = 0;
  const freshSave = () => {
    const t = saves[si++ % saves.length]!;
    return t.head + JSON.stringify(`http-${run}-${++keys}`) + t.tail;
  };
  const replayBody = saves[0]!.head + JSON.stringify(`http-${run}-replayed`) + saves[0]!.tail;
  const probe = JSON.parse(saves[0]!.head + '"probe"' + saves[0]!.tail) as Record<string, unknown>;
  const nextGet = () => gets[gi++ % gets.length]!;
  return {
    pageGet: gets[0]!,
    replayBody,
    freshSave,
    next: {
      get: nextGet,
      [BARE]: nextGet,
      [VALIDATED]: nextGet,
      "save (fresh key)": freshSave,
      "save (replay)": () => replayBody,
    },
    probe: JSON.stringify({
      ...probe,
      toolName: "mnote.page.get",
      args: {},
      idempotencyKey: undefined,
      dryRun: undefined,
    }),
  };
}

async function revisionOfSavePage(one: Server, probe: string): Promise<number> {
  const r = await call(one, probe);
  if (!r.ok) throw new Error(`probe failed: ${JSON.stringify(r.error)}`);
  return r.result!.revision!;
}

/** The save page's revision once two probes 200 ms apart agree (at most 50 tries). */
async function settledRevision(one: Server, probe: string): Promise<number> {
  let last = await revisionOfSavePage(one, probe);
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const now = await revisionOfSavePage(one, probe);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/**
 * Every kind of request answers as expected on every server before any load, and the replay body
 * is written once (on one worker), so every later send of it is a replay, on any server.
 */
async function checkServes(servers: Map<number, Server>, one: Server, b: Bodies): Promise<void> {
  for (const server of servers.values()) {
    for (const [scenario, body] of [
      ["get", b.pageGet],
      ["save (fresh key)", b.freshSave()],
    ] as const) {
      const r = await call(server, body);
      if (!VERIFY[scenario](r)) throw new Error(`HTTP bench request ${scenario} failed: ${JSON.stringify(r)}`);
    }
  }
  const first = await call(one, b.replayBody);
  if (!first.ok) throw new Error(`the replay body failed: ${JSON.stringify(first.error)}`);
  for (const server of servers.values()) {
    const again = await call(server, b.replayBody);
    if (!VERIFY["save (replay)"](again)) throw new Error(`the replay body is not a replay: ${JSON.stringify(again)}`);
  }
}

/**
 * Both peers with each worker count, by `${scenario}@${workers}` (each joins `peers` as soon as it
 * listens, for the caller to stop), then a check that the validated one really validates.
 */
async function startPeers(one: Server, pageGet: string, peers: Map<string, Server>): Promise<void> {
  // the peer answers with serve's own page.get envelope, so both replies have the same size
  const envelope = JSON.stringify(await call(one, pageGet));
  for (const w of WORKERS) {
    const args = [join(distBench, "bare-server.js"), TOKEN, envelope, String(w)];
    peers.set(`${BARE}@${w}`, await startProcess(args));
    peers.set(`${VALIDATED}@${w}`, await startProcess([...args, "validated"]));
  }
  // the validated peer refuses what the validator refuses (it is not a bare echo)
  const refused = await fetch(`${peers.get(`${VALIDATED}@1`)!.url}/v1/tools/call`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...(JSON.parse(pageGet) as object), args: { includeBlocks: "yes" } }),
  });
  if (refused.status !== 400) throw new Error(`the validated peer answered ${refused.status} to invalid args`);
}

/** Everything a cell needs to run: the plan, the processes, the bodies. */
interface Rig {
  plan: Plan;
  servers: Map<number, Server>;
  peers: Map<string, Server>;
  /** serve with one worker: where the save page's revision is read. */
  one: Server;
  bodies: Bodies;
}

/** What the rounds collect: every run by cell key, the failed checks, the writes counted per cell. */
interface Tally {
  runs: Map<string, Run[]>;
  failures: string[];
  checks: Record<string, { revisionDelta: number; ok: number }[]>;
}

/** A run with a wrong body, a non-2xx status or an error fails the section. */
function loadFailures(name: string, m: Run): string[] {
  return m.wrong > 0 || m.non2xx > 0 || m.errors > 0
    ? [
        `http: ${name}: ${m.wrong} wrong bodies, ${m.non2xx} non-2xx, ${m.errors} errors; e.g. ${m.examples.join(" | ")}`,
      ]
    : [];
}

/** Fresh keys write once per request (warm-up included); replays never write. */
function writeFailures(cell: Cell, name: string, delta: number, ok: number): string[] {
  if (cell.scenario === "save (replay)" && delta !== 0) return [`http: ${name}: replays wrote ${delta} revisions`];
  if (cell.scenario === "save (fresh key)" && delta < ok)
    return [`http: ${name}: fresh saves wrote ${delta} revisions for ${ok} answers`];
  return [];
}

/** One cell once: the load on its server, its bodies checked, and for writes the revisions counted. */
async function measureCell(rig: Rig, cell: Cell, tally: Tally): Promise<void> {
  const server = (PEERS as readonly string[]).includes(cell.scenario)
    ? rig.peers.get(`${cell.scenario}@${cell.workers}`)!
    : rig.servers.get(cell.workers)!;
  const writes = cell.scenario.startsWith("save");
  // a previous write cell's last requests (abandoned by autocannon at its end, still being
  // served) may land after it: wait for the page to settle, so they are not counted here
  const before = writes ? await settledRevision(rig.one, rig.bodies.probe) : 0;
  const m = await load(
    server.child.pid!,
    server.url,
    cell.connections,
    rig.plan.seconds,
    rig.plan.warmupSeconds,
    rig.bodies.next[cell.scenario],
    VERIFY[cell.scenario],
  );
  const name = `${cell.scenario} at ${conns(cell.connections)}, ${procs(cell.workers)}`;
  tally.failures.push(...loadFailures(name, m));
  if (writes) {
    const delta = (await revisionOfSavePage(rig.one, rig.bodies.probe)) - before;
    (tally.checks[key(cell)] ??= []).push({ revisionDelta: delta, ok: m.ok });
    tally.failures.push(...writeFailures(cell, name, delta, m.ok));
  }
  tally.runs.set(key(cell), [...(tally.runs.get(key(cell)) ?? []), m]);
}

/**
 * Every round runs every cell once, in a new shuffled order; the cells of a pair run back to back
 * (in random order), so each round gives one ratio taken within seconds.
 */
async function runRounds(plan: Plan, measure: (c: Cell) => Promise<void>, log: (line: string) => void): Promise<void> {
  for (let r = 0; r < plan.rounds; r++) {
    const order: Array<Pair | Cell> = shuffle([...plan.pairs, ...plan.singles]);
    for (const item of order) {
      if ("scenario" in item) await measure(item);
      else {
        const cells = shuffle<Cell>([
          { scenario: "get", ...item },
          ...PEERS.map((scenario) => ({ scenario, ...item })),
        ]);
        for (const c of cells) await measure(c);
      }
    }
    log(`http: round ${r + 1}/${plan.rounds} done`);
  }
}

/** The figures of one cell over the rounds. */
function cellFigures(m: readonly Run[]): FigureTree {
  return {
    requestsPerSecond: figure(
      m.map((x) => x.rps),
      "req/s",
    ),
    "latency p50": figure(
      m.map((x) => x.p50),
      "ms",
    ),
    "latency p99": figure(
      m.map((x) => x.p99),
      "ms",
    ),
    "server CPU per request": figure(
      m.map((x) => x.cpuPerRequest * 1000),
      "µs CPU",
    ),
  };
}

/** By scenario, then by workers and connections (serve's get and the peers first, then the writes). */
function figuresOf(plan: Plan, runs: Map<string, Run[]>): FigureTree {
  const cellsByScenario = new Map<Scenario, Cell[]>();
  for (const p of plan.pairs)
    for (const scenario of ["get", ...PEERS] as const)
      cellsByScenario.set(scenario, [...(cellsByScenario.get(scenario) ?? []), { scenario, ...p }]);
  for (const c of plan.singles) cellsByScenario.set(c.scenario, [...(cellsByScenario.get(c.scenario) ?? []), c]);
  const figures: FigureTree = {};
  for (const [scenario, cells] of cellsByScenario) {
    const tree: FigureTree = {};
    for (const c of cells) tree[`${procs(c.workers)}, ${conns(c.connections)}`] = cellFigures(runs.get(key(c)) ?? []);
    figures[scenario] = tree;
  }
  return figures;
}

/** serve against each peer, per pair, and the goals on them (the validated ones not in a smoke run). */
function pairRatios(plan: Plan, runs: Map<string, Run[]>): { ratios: FigureTree; goals: Goal[] } {
  const rpsOf = (c: Cell) => (runs.get(key(c)) ?? []).map((x) => x.rps);
  const cpuOf = (c: Cell) => (runs.get(key(c)) ?? []).map((x) => x.cpuPerRequest);
  const ratios: FigureTree = {};
  const goals: Goal[] = [];
  for (const p of plan.pairs) {
    const ratio = pairedRatio(rpsOf({ scenario: "get", ...p }), rpsOf({ scenario: BARE, ...p }));
    const validated = pairedRatio(rpsOf({ scenario: "get", ...p }), rpsOf({ scenario: VALIDATED, ...p }));
    // CPU: the peer's CPU per request / serve's, so that 1 is as lean as the peer and higher is better, as req/s
    const cpuRatio = (peer: Peer) => pairedRatio(cpuOf({ scenario: peer, ...p }), cpuOf({ scenario: "get", ...p }));
    ratios[`get, ${conns(p.connections)}, ${procs(p.workers)}`] = {
      "serve / bare node:http (req/s, wall)": ratio,
      "bare node:http / serve (CPU per request)": cpuRatio(BARE),
      "serve / node:http + generated validator (req/s, wall)": validated,
      "node:http + generated validator / serve (CPU per request)": cpuRatio(VALIDATED),
    };
    goals.push(...pairGoals(plan, p, ratio, validated, cpuRatio(VALIDATED)));
  }
  return { ratios, goals };
}

function pairGoals(plan: Plan, p: Pair, bare: Figure, validated: Figure, validatedCpu: Figure): Goal[] {
  const suffix = p.workers > 1 ? `w${p.workers}` : "";
  const goals: Goal[] = [];
  if (p.connections === 8 && !plan.smoke)
    goals.push(
      goal(
        `http.validated8${suffix}`,
        `HTTP page.get at 8 connections, ${procs(p.workers)} each: serve / node:http + generated validator, requests/s`,
        validated,
        ">=",
        0.9,
      ),
      goal(
        `http.validatedCpu8${suffix}`,
        `HTTP page.get at 8 connections, ${procs(p.workers)} each: node:http + generated validator / serve, CPU per request`,
        validatedCpu,
        ">=",
        0.9,
      ),
    );
  goals.push(
    goal(
      `http.bare${p.connections}${suffix}`,
      `HTTP page.get at ${conns(p.connections)}, ${procs(p.workers)} each: serve / bare node:http, requests/s`,
      bare,
      ">=",
      0.7,
    ),
  );
  return goals;
}

/** What a second worker brings, per round (the two cells ran in the same round). */
function workerRatios(runs: Map<string, Run[]>): FigureTree {
  const rpsOf = (c: Cell) => (runs.get(key(c)) ?? []).map((x) => x.rps);
  const ratios: FigureTree = {};
  for (const scenario of ["get", "save (fresh key)"] as const) {
    for (const connections of [8, 64]) {
      const one = rpsOf({ scenario, connections, workers: 1 });
      const two = rpsOf({ scenario, connections, workers: 2 });
      if (one.length > 0 && two.length > 0)
        ratios[`${scenario}, ${conns(connections)}`] = { "2 workers / 1 worker (req/s)": pairedRatio(two, one) };
    }
  }
  return ratios;
}

function notesOf(plan: Plan): string[] {
  const { rounds, seconds, warmupSeconds } = plan;
  return [
    `autocannon 8 (in the bench's process) against node bin/mnote-tools.js serve --workers N (its own processes) on 127.0.0.1, POST /v1/tools/call with a bearer token; the servers and the load generator share the machine's ${cpus().length} cores. Each run: ${warmupSeconds} s of warm-up, then ${seconds} s measured.`,
    `Interleaved: ${rounds} rounds; every round runs every cell once, cells in shuffled order, and the two sides of a comparison back to back in random order. requestsPerSecond: checked answers / measured seconds, one value per round (median, p10, p90 over rounds). Ratios: per round, median over rounds.`,
    "Bodies are checked: every response is parsed and must be the expected envelope (page.get: ok, the tool name, a revision; fresh save: ok, effect write, not replayed; replay: ok, replayed). serve answers HTTP 200 for a failure envelope, so a status code proves nothing. A cell with a wrong body, a non-2xx status or an error fails the run. Writes are also counted in the kernel: a fresh-key cell must raise the page's revision at least once per answer, a replay cell not at all.",
    "get: page.get of doc_1 (3 blocks). save (fresh key): page.save with a new idempotency key on every request (mode replace, 1 to 4 blocks). save (replay): the same request and key every time, written once beforehand, answered from the idempotency record.",
    "get (node:http + generated validator): the real peer of a page.get through serve minus the kernel (bench/bare-server.ts validated): the bare peer plus a Host check, the tool looked up in the generated registry and its generated request validator run on the parsed body (400 when it fails; checked before the load). Goal: serve at least 0.9 of it, in requests/s (wall) and in CPU per request.",
    "server CPU per request: the server's CPU time (its process and its workers, /proc/<pid>/stat, 10 ms ticks) over the run, warm-up included, divided by the answers of the measured seconds (the same warm-up share on both sides of a ratio). CPU ratios are peer / serve, so that, like requests/s, 1 is parity and higher is better: under load, requests/s (wall) favours whichever side the scheduler gives more time; CPU per request does not.",
    "get (bare node:http): the peer, bench/bare-server.ts, with as many processes as serve has workers (node:cluster, as serve): checks the bearer token, reads and JSON.parses the body and answers JSON.stringify of serve's own page.get envelope (the same size), nothing else. Goal: serve's requests/s at least 0.7 times the peer's.",
    "The servers write one JSON log line per call to stderr (sent to /dev/null here); the kernel and state are SQLite files in WAL mode, shared by the workers.",
  ];
}

function resultOf(plan: Plan, tally: Tally, started: number): SectionResult {
  const { runs, failures, checks } = tally;
  const pairs = pairRatios(plan, runs);
  const summary = [...runs].map(([k, m]) => {
    const rps = m.map((x) => Math.round(x.rps)).join(", ");
    return `${k}: req/s per round ${rps}; ${m.reduce((a, x) => a + x.ok, 0)} bodies checked`;
  });
  return {
    title: "HTTP: mnote-tools serve on loopback",
    notes: notesOf(plan),
    figures: figuresOf(plan, runs),
    ratios: { ...pairs.ratios, ...workerRatios(runs) },
    goals: pairs.goals,
    failures,
    extra: { rounds: plan.rounds, seconds: plan.seconds, warmupSeconds: plan.warmupSeconds, checks },
    summary,
    seconds: (Date.now() - started) / 1000,
  };
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const plan = planOf(ctx);
  const f: Fixture = await cliFixture("http");
  const servers = new Map<number, Server>();
  /** By `${scenario}@${workers}`. */
  const peers = new Map<string, Server>();
  try {
    await startServes(f, servers);
    const bodies = bodiesOf();
    const one = servers.get(1)!;
    await checkServes(servers, one, bodies);
    await startPeers(one, bodies.pageGet, peers);
    const rig: Rig = { plan, servers, peers, one, bodies };
    const tally: Tally = { runs: new Map(), failures: [], checks: {} };
    await runRounds(plan, (cell) => measureCell(rig, cell, tally), ctx.log);
    return resultOf(plan, tally, started);
  } finally {
    for (const p of peers.values()) await stopProcess(p);
    for (const s of servers.values()) await stopProcess(s);
    rmSync(f.dir, { recursive: true, force: true });
  }
}
