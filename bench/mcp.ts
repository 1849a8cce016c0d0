/**
 * Section "mcp": `mnote-tools mcp` end to end against an SDK-only server (bench/sdk-mcp-v2-server.ts:
 * the v2 SDK's McpServer with zod schemas serving the same six tools over the same reference
 * kernel, through serveStdio and createMcpHandler as ours), over stdio and over Streamable HTTP,
 * both driven by the v2 SDK's own Client speaking 2026-07-28, the same calls in the same order. Every round runs both servers back to back (in random order) for the same number of
 * calls; the ratio is taken per round (ours / SDK-only, time for the calls), median over rounds.
 * Every answer is checked: a call that is not ok fails the run.
 */
import { benchPolicyArgs } from "./approval";
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { cliFixture, type Fixture } from "./cold-start";
import { cliBin, distBench, repoRoot } from "./paths";
import { processCpuMs } from "./proc";
import { IDS } from "./requests";
import { figure, pairedRatio, shuffle } from "./stats";
import { goal, type FigureTree, type Goal, type SectionContext, type SectionResult } from "./types";

const TOKEN = "bench-token";
const TRANSPORTS = ["stdio", "http"] as const;
type Transport = (typeof TRANSPORTS)[number];
const SIDES = ["mnote-tools mcp", "SDK-only v2 McpServer"] as const;
type Side = (typeof SIDES)[number];

/** The six tools' model arguments: a valid call of each (page.save replaces, so the page stays small). */
const CALLS: Array<{ name: string; arguments: Record<string, unknown> }> = [
  { name: "mnote_page_get", arguments: {} },
  {
    name: "mnote_page_save",
    arguments: {
      content: [
        { type: "heading", text: "From the bench", level: 2 },
        { type: "paragraph", text: "hello" },
      ],
      mode: "replace",
    },
  },
  { name: "mnote_page_update_title", arguments: { title: "Bench title" } },
  { name: "mnote_page_update_options", arguments: { options: { wideLayout: true } } },
  { name: "mnote_artifact_create_summary", arguments: { summary: "A short summary of the page." } },
  {
    name: "mnote_artifact_create_ai_note",
    arguments: { title: "Bench note", content: "An AI note written by the bench." },
  },
];

interface Connected {
  client: Client;
  pid: number;
  close(): Promise<void>;
}

async function listening(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("the server did not start in 30 s")), 30_000);
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      try {
        resolve((JSON.parse(out.split("\n")[0]!) as { listening: string }).listening);
      } catch {
        reject(new Error(`the server printed ${out}`));
      }
    });
    child.once("exit", (code) => reject(new Error(`the server exited ${code}`)));
  });
}

async function connect(side: Side, transport: Transport, db: string, state: string): Promise<Connected> {
  const identity = {
    workspaceId: IDS.workspaceId,
    documentId: IDS.saveDocument,
    actorId: IDS.actorId,
    sessionId: IDS.saveSession,
  };
  const ours = [
    cliBin,
    "mcp",
    "--session",
    IDS.saveSession,
    "--db",
    db,
    "--state",
    state,
    ...benchPolicyArgs(dirname(db)),
    // said here, not only by MNOTE_BUDGETS=off (bench/run.ts): the SDK's stdio transport starts
    // the server with its own small environment, and 60 calls a round from one session would
    // use the session's budget up (docs/RELIABILITY.md, "Budgets")
    "--budgets",
    "off",
  ];
  const sdk = [join(distBench, "sdk-mcp-v2-server.js"), transport, db, JSON.stringify(identity)];
  // the 2026-07-28 revision, pinned: no initialize, every request carries its version
  const client = new Client(
    { name: "mnote-bench", version: "0.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  if (transport === "stdio") {
    const t = new StdioClientTransport({
      command: process.execPath,
      args: side === "mnote-tools mcp" ? ours : sdk,
      cwd: repoRoot,
      stderr: "ignore",
    });
    await client.connect(t);
    return { client, pid: t.pid!, close: () => client.close() };
  }
  const child = spawn(
    process.execPath,
    side === "mnote-tools mcp" ? [...ours, "--http", "--port", "0", "--token", TOKEN] : [...sdk, TOKEN],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  const url = await listening(child);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  return {
    client,
    pid: child.pid!,
    close: async () => {
      await client.close();
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

interface Run {
  ms: number;
  serverCpuMs: number;
  wrong: number;
  example?: string;
}

/** n calls, the six tools in turn, one at a time; every answer must be ok. */
async function runCalls(c: Connected, n: number): Promise<Run> {
  let wrong = 0;
  let example: string | undefined;
  const cpuBefore = processCpuMs(c.pid);
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const call = CALLS[i % CALLS.length]!;
    const r = (await c.client.callTool(call)) as { isError?: boolean; structuredContent?: { ok?: boolean } };
    if (r.isError || r.structuredContent?.ok !== true) {
      wrong++;
      example ??= `${call.name}: ${JSON.stringify(r).slice(0, 300)}`;
    }
  }
  const ms = performance.now() - started;
  return { ms, serverCpuMs: processCpuMs(c.pid) - cpuBefore, wrong, example };
}

/** How many rounds and calls: smoke, quick and the default run differ only here. */
interface Plan {
  rounds: number;
  /** Measured calls per server per round. */
  calls: number;
  /** Unmeasured calls per server before the first round. */
  warmup: number;
}

function planOf(ctx: SectionContext): Plan {
  const smoke = ctx.smoke === true;
  return {
    rounds: smoke ? 1 : ctx.quick ? 4 : 7,
    calls: smoke ? CALLS.length : ctx.quick ? 60 : 120,
    warmup: smoke ? CALLS.length : 60,
  };
}

/** What the rounds collect: the runs by `${transport}/${side}`, and the failed checks. */
interface Tally {
  runs: Map<string, Run[]>;
  failures: string[];
}

/**
 * Both servers over one transport, side by side: a warm-up on each, then every round runs both back
 * to back in random order, so each round gives one ratio. The servers stop even when a call throws.
 */
async function measureTransport(
  transport: Transport,
  f: Fixture,
  plan: Plan,
  tally: Tally,
  log: (line: string) => void,
): Promise<void> {
  const { rounds, calls, warmup } = plan;
  const connected = new Map<Side, Connected>();
  try {
    for (const side of SIDES) connected.set(side, await connect(side, transport, f.db, f.state));
    for (const side of SIDES) {
      const w = await runCalls(connected.get(side)!, warmup);
      if (w.wrong > 0)
        tally.failures.push(
          `mcp: ${side} over ${transport}: ${w.wrong} calls not ok in the warm-up, e.g. ${w.example}`,
        );
    }
    for (let r = 0; r < rounds; r++) {
      for (const side of shuffle([...SIDES])) {
        const m = await runCalls(connected.get(side)!, calls);
        if (m.wrong > 0)
          tally.failures.push(`mcp: ${side} over ${transport}: ${m.wrong} of ${calls} calls not ok, e.g. ${m.example}`);
        tally.runs.set(`${transport}/${side}`, [...(tally.runs.get(`${transport}/${side}`) ?? []), m]);
      }
    }
    log(`mcp: ${transport}: ${rounds} rounds of ${calls} calls per server done`);
  } finally {
    for (const c of connected.values()) await c.close();
  }
}

/** Per side, time and server CPU per call over the rounds. */
function transportFigures(transport: Transport, runs: Map<string, Run[]>, calls: number): FigureTree {
  const tree: FigureTree = {};
  for (const side of SIDES) {
    const m = runs.get(`${transport}/${side}`) ?? [];
    tree[side] = {
      "time per call": figure(
        m.map((x) => (x.ms * 1000) / calls),
        "µs/call",
      ),
      "server CPU per call": figure(
        m.map((x) => (x.serverCpuMs * 1000) / calls),
        "µs/call",
      ),
    };
  }
  return tree;
}

/** Ours / SDK-only per round (time and server CPU), and the goal on the time. */
function transportRatios(transport: Transport, runs: Map<string, Run[]>): { ratios: FigureTree; goal: Goal } {
  const ours = runs.get(`${transport}/mnote-tools mcp`) ?? [];
  const sdk = runs.get(`${transport}/SDK-only v2 McpServer`) ?? [];
  const wall = pairedRatio(
    ours.map((x) => x.ms),
    sdk.map((x) => x.ms),
  );
  return {
    ratios: {
      "mnote-tools mcp / SDK-only, time": wall,
      "mnote-tools mcp / SDK-only, server CPU": pairedRatio(
        ours.map((x) => x.serverCpuMs),
        sdk.map((x) => x.serverCpuMs),
      ),
    },
    goal: goal(
      `mcp.${transport}`,
      `MCP 2026-07-28 over ${transport}: mnote-tools mcp / SDK-only v2 McpServer, time per call`,
      wall,
      "<=",
      1,
    ),
  };
}

function resultOf(plan: Plan, tally: Tally, started: number): SectionResult {
  const { rounds, calls, warmup } = plan;
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  const goals: Goal[] = [];
  for (const transport of TRANSPORTS) {
    figures[transport] = transportFigures(transport, tally.runs, calls);
    const r = transportRatios(transport, tally.runs);
    ratios[transport] = r.ratios;
    goals.push(r.goal);
  }
  return {
    title: "MCP: mnote-tools mcp end to end against an SDK-only server",
    notes: [
      "µs per tools/call, end to end (lower is better): the v2 SDK's Client (2026-07-28, pinned) in the bench's process calls the six tools in turn (page.get, page.save replacing two blocks, update_title, update_options, create_summary, create_ai_note), one call at a time, and checks every answer (not isError, structuredContent.ok true).",
      "mnote-tools mcp: node bin/mnote-tools.js mcp --session <grant> (stdio), and with --http --port 0 --token (Streamable HTTP, stateless); the embedded reference kernel and the state file of a seeded fixture. SDK-only v2 McpServer: bench/sdk-mcp-v2-server.ts, the v2 SDK's McpServer with zod input schemas for the same tools (contract 2.0.0's rules), each handler asking the same reference kernel (the same database file) for access and running the tool's kernel command; serveStdio on stdio, createMcpHandler over HTTP (a server per request) behind a bearer token and the SDK's Host/Origin guards, as ours. It does none of the product's promises (no session grant, no replayable idempotency key, no envelope, no response check, no log line, no span).",
      `Interleaved: per transport, both servers run side by side; ${rounds} rounds, each running ${calls} calls on both servers back to back in random order, after ${warmup} unmeasured calls each. The ratio is ours / SDK-only per round (time for the calls), median over rounds. server CPU: the server process's user + system time over the round (from /proc, 10 ms ticks).`,
    ],
    figures,
    ratios,
    goals,
    failures: tally.failures,
    extra: { rounds, calls, warmup },
    seconds: (Date.now() - started) / 1000,
  };
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const plan = planOf(ctx);
  const f = await cliFixture("mcp");
  const tally: Tally = { runs: new Map(), failures: [] };
  try {
    for (const transport of TRANSPORTS) await measureTransport(transport, f, plan, tally, ctx.log);
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
  return resultOf(plan, tally, started);
}
