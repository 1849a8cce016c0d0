/**
 * Never twice, never lost: one table, one row per surface x fault x retry kind (issue 27,
 * docs/RELIABILITY.md). Each row runs a real deployment (test/support/fault-world.ts: kernel serve,
 * a faulting proxy, the runtime, and Redis or a host proxy where the row needs one), makes the
 * model's call of create_ai_note under the fault so that its answer is lost, retries as that kind of
 * retry does until the model reads a success, and then proves:
 *   - exactly one note with that content in the kernel's table;
 *   - the model read THAT note (the answer's artifactId is the row's id);
 *   - a deliberate second identical call, made after the model saw the first answer, is a new note.
 *
 * Retry kinds: "new call" (the model calls again: a new tool call id, the same arguments), "same
 * key" (the host resends with its own key: the envelope's idempotencyKey, the framework's call id,
 * MCP's _meta key; for the Hermes plugin its own resend loop), "host restart" (the host process is
 * killed mid-call and a new one makes the call again, with no memory of the first).
 *
 * The Hermes rows run the generated plugin inside the real Hermes Agent v0.18.0 call path
 * (MNOTE_HERMES_SRC; model_tools.handle_function_call fires pre_tool_call, then the handler). They
 * are skipped with the reason when it is absent, and .ci/run makes them mandatory. Margins are wide:
 * a host timeout of 2 s against a kernel answer held 6 s (the issue's headline), 4 s against 12 s for
 * the CLI transport (a Node start per call), and every retry loop waits up to 60 s for the success.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { cliPath, generatedDir, repoRoot } from "../support/paths";
import {
  faultWorld,
  redisServerPath,
  SESSION,
  TOOL_TOKEN,
  type World,
  type WorldOptions,
} from "../support/fault-world";
import { tempDir } from "../support/tmp";
import { allowAllPolicyFile } from "../support/approval";
import { makeRequest } from "../support/requests";
import { HERMES_NEXT, namedButMissing, type HermesTree } from "../support/hermes-trees";

/** Each row's HERMES_HOME: a restarted Hermes finds the profile the first one used. */
const homes = new WeakMap<World, string>();

const TOOL = "mnote.artifact.create_ai_note";
const PROVIDER_TOOL = "mnote_artifact_create_ai_note";

/** What the model read from one attempt: the note, a failure code, or nothing at all. */
type Answer = { ok: true; artifactId: string } | { ok: false; code: string } | { ok: false; code: "lost" };

interface Host {
  /**
   * One model tool call (callId) for a note with this content; sameKey: the host's resend of callId.
   * timeoutMs: how long the host waits (the surface's short timeout for the faulted first attempt,
   * SETTLED_TIMEOUT_MS for every attempt after it, which nothing holds).
   */
  attempt(content: string, callId: string, timeoutMs: number): Promise<Answer>;
  /** The host process killed (nothing for a host that is this test). */
  kill(): Promise<void>;
}

interface Surface {
  name: string;
  world?: WorldOptions;
  /** The host's own timeout per attempt. */
  timeoutMs: number;
  /** Held answer that certainly outlasts the timeout (the kernel proxy's delay). */
  delayMs: number;
  skip?: string;
  connect(w: World, retry: RetryKind): Promise<Host>;
}

type RetryKind = "new call" | "same key" | "host restart";

// ---------------------------------------------------------------------------------------------
// Surfaces

/** POST with a timeout after which the host hangs up (the socket is destroyed, as a client does). */
function post(url: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<any> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      url,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch {
            resolve(undefined);
          }
        });
        res.on("error", () => resolve(undefined));
      },
    );
    const timer = setTimeout(() => req.destroy(), timeoutMs);
    req.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    req.end(text);
  });
}

function fromEnvelope(envelope: any): Answer {
  if (!envelope || typeof envelope.ok !== "boolean") return { ok: false, code: "lost" };
  return envelope.ok ? { ok: true, artifactId: envelope.result.artifactId } : { ok: false, code: envelope.error.code };
}

const bearer = { authorization: `Bearer ${TOOL_TOKEN}` };

const envelopeSurface: Surface = {
  name: "serve envelope",
  timeoutMs: 2_000,
  delayMs: 6_000,
  async connect(w) {
    return {
      async attempt(content, callId, timeoutMs) {
        const request = makeRequest(
          TOOL,
          { content },
          { toolCallId: callId, idempotencyKey: `key_${callId}`, keyOrigin: "tool_call" },
          { sessionId: SESSION },
        );
        return fromEnvelope(await post(`${w.url}/v1/tools/call`, request, bearer, timeoutMs));
      },
      kill: async () => undefined,
    };
  },
};

const frameworkSurface: Surface = {
  name: "framework call (HTTP)",
  timeoutMs: 2_000,
  delayMs: 6_000,
  async connect(w) {
    return {
      async attempt(content, callId, timeoutMs) {
        const call = { sessionId: SESSION, toolName: PROVIDER_TOOL, toolCallId: callId, arguments: { content } };
        return fromEnvelope(await post(`${w.url}/v1/tools/model-call`, call, bearer, timeoutMs));
      },
      kill: async () => undefined,
    };
  },
};

/** MCP tools/call params: a fixed client key for "same key" (keyOrigin caller), none for a new call. */
function mcpParams(content: string, callId: string, retry: RetryKind) {
  return {
    name: PROVIDER_TOOL,
    arguments: { content },
    ...(retry === "same key" ? { _meta: { "mnote/idempotencyKey": `client-${callId}` } } : {}),
  };
}

function fromMcp(message: any): Answer {
  const view = message?.result?.structuredContent;
  return fromEnvelope(view);
}

const mcpHttpSurface: Surface = {
  name: "MCP Streamable HTTP",
  world: { runtime: "mcp" },
  timeoutMs: 2_000,
  delayMs: 6_000,
  async connect(w, retry) {
    let id = 0;
    return {
      async attempt(content, callId, timeoutMs) {
        const body = { jsonrpc: "2.0", id: ++id, method: "tools/call", params: mcpParams(content, callId, retry) };
        const headers = { ...bearer, accept: "application/json, text/event-stream" };
        return fromMcp(await post(`${w.url}/mcp`, body, headers, timeoutMs));
      },
      kill: async () => undefined,
    };
  },
};

/** A raw MCP stdio client (the runtime is its child): on its timeout it cancels, as MCP clients do. */
const mcpStdioSurface: Surface = {
  name: "MCP stdio",
  timeoutMs: 2_000,
  delayMs: 6_000,
  async connect(w, retry) {
    const env = w.cliEnv();
    const child = spawn(
      process.execPath,
      [
        cliPath,
        "mcp",
        "--session",
        SESSION,
        "--state",
        env.MNOTE_TOOLS_STATE!,
        "--approval-policy",
        allowAllPolicyFile(),
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const waiting = new Map<number, (m: any) => void>();
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const lines = out.split("\n");
      out = lines.pop()!;
      for (const line of lines) {
        const m = JSON.parse(line);
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      }
    });
    let id = 0;
    const request = (method: string, params: unknown, timeoutMs: number) =>
      new Promise<any>((resolve) => {
        const n = ++id;
        const timer = setTimeout(() => {
          waiting.delete(n);
          child.stdin.write(
            JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: n } }) + "\n",
          );
          resolve(undefined);
        }, timeoutMs);
        waiting.set(n, (m) => {
          clearTimeout(timer);
          resolve(m);
        });
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
      });
    const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "faults", version: "1" } };
    await request("initialize", init, 30_000);
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    return {
      attempt: async (content, callId, timeoutMs) =>
        fromMcp(await request("tools/call", mcpParams(content, callId, retry), timeoutMs)),
      kill: () => killed(child),
    };
  },
};

function killed(child: { kill(signal: NodeJS.Signals): boolean; exitCode: number | null; once: any }): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

const hermesSrc = process.env.MNOTE_HERMES_SRC ?? "";
const hermesPresent =
  hermesSrc !== "" &&
  existsSync(join(hermesSrc, "hermes_cli", "plugins.py")) &&
  existsSync(join(hermesSrc, "model_tools.py"));
const hermesSkip = hermesPresent
  ? undefined
  : "skipped: MNOTE_HERMES_SRC does not name the extracted Hermes Agent v0.18.0 modules (see shared/reference/hermes-real.md)";

/**
 * The plugin in a real Hermes process; "same key" lets the plugin resend on its own, else the model
 * retries. On the v0.21 tree (HERMES_NEXT: MNOTE_HERMES_NEXT_SRC with its stand-ins) the plugin
 * keeps an uncertain write's key in Hermes' durable ctx.state, so a Hermes restart keeps it too.
 */
function hermesSurface(transport: "http" | "cli", tree?: HermesTree): Surface {
  const timeoutMs = transport === "http" ? 2_000 : 4_000;
  return {
    name: `Hermes${tree ? ` ${tree.name}` : ""} plugin over ${transport.toUpperCase()}`,
    timeoutMs,
    delayMs: transport === "http" ? 6_000 : 12_000,
    skip: tree ? tree.skip : hermesSkip,
    async connect(w, retry) {
      const env: Record<string, string> = {
        MNOTE_TOOLS_TIMEOUT: String(timeoutMs / 1000),
        MNOTE_TOOLS_RETRIES: retry === "same key" ? "10" : "0",
        MNOTE_TOOLS_RETRY_SECONDS: "60",
        ...(transport === "http"
          ? { MNOTE_TOOLS_URL: w.url, MNOTE_TOOLS_TOKEN: TOOL_TOKEN }
          : {
              ...w.cliEnv(),
              MNOTE_TOOLS_CLI: `${process.execPath} ${cliPath}`,
              // as the serve rows' runtime (fault-world.ts): 30 s, not 10 s, for a kernel answer at load 20
              MNOTE_KERNEL_TIMEOUT: "30000",
              MNOTE_APPROVAL_POLICY: allowAllPolicyFile(),
            }),
      };
      const file = join(tempDir("mnote-hermes-faults-"), "config.json");
      // one HERMES_HOME per row, kept across a "host restart" (Hermes restarted on the same profile)
      homes.set(w, homes.get(w) ?? tempDir("mnote-hermes-home-"));
      writeFileSync(file, JSON.stringify({ env, session_id: SESSION, home: homes.get(w) }));
      const child = spawn(
        "python3",
        [
          join(repoRoot, "test", "reliability", "hermes_faults.py"),
          tree ? tree.src : hermesSrc,
          join(generatedDir, "hermes-plugin", "mnote"),
          file,
        ],
        {
          env: { PATH: process.env.PATH, HOME: tempDir("mnote-home-"), ...(tree ? tree.env : {}) },
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      return hermesHost(child);
    },
  };
}

async function hermesHost(child: ChildProcessWithoutNullStreams): Promise<Host> {
  const lines: any[] = [];
  let wake: (() => void) | undefined;
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString("utf8");
    const parts = out.split("\n");
    out = parts.pop()!;
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p));
    wake?.();
  });
  child.once("exit", () => wake?.());
  const next = async (): Promise<any> => {
    while (lines.length === 0) {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      await new Promise<void>((r) => (wake = r));
    }
    return lines.shift();
  };
  const ready = await next();
  if (!ready?.ready) throw new Error(`the Hermes driver did not start: ${err}`);
  return {
    async attempt(content, callId, timeoutMs) {
      // the plugin reads MNOTE_TOOLS_TIMEOUT per call: the driver sets it for this call
      child.stdin.write(JSON.stringify([PROVIDER_TOOL, { content }, callId, timeoutMs / 1000]) + "\n");
      const line = await next();
      return line ? fromEnvelope(JSON.parse(line.output)) : { ok: false, code: "lost" };
    },
    kill: () => killed(child),
  };
}

// ---------------------------------------------------------------------------------------------
// Faults: each arms the fault for the row's note, and may act once the kernel committed it

interface Fault {
  name: string;
  world?: WorldOptions;
  skip?: string;
  /** Armed before the first attempt; `host` is what a "host killed" fault kills. */
  arm(w: World, content: string, s: Surface): void;
  /** After the first attempt's answer was lost, before the retries. */
  after?(w: World): Promise<void>;
}

const kernelDelay: Fault = {
  name: "answer held past the host's timeout (kernel proxy)",
  arm: (w, content, s) => w.faultWrite(content, { kind: "delay", ms: s.delayMs }),
};

const hostProxyHold: Fault = {
  name: "answer held past the host's timeout (host proxy)",
  world: { hostProxy: true },
  // the runtime is slow too (its write is still running when the host hangs up), as in the headline
  arm: (w, content, s) => {
    w.faultWrite(content, { kind: "delay", ms: s.delayMs });
    w.hostFault("hold");
  },
};

const connectionDropped: Fault = {
  name: "connection dropped after the request was sent (host proxy)",
  world: { hostProxy: true },
  arm: (w, content, s) => {
    w.faultWrite(content, { kind: "delay", ms: s.delayMs });
    w.hostFault("drop");
  },
};

const runtimeKilled: Fault = {
  name: "runtime killed mid-write, restarted",
  arm: (w, content) => {
    // the kernel committed; the runtime dies before it could answer anyone
    w.faultWrite(content, { kind: "hold" }, () => void w.restartRuntime());
  },
};

const kernelRestarted: Fault = {
  name: "kernel restarted between its commit and its answer",
  arm: (w, content, s) => w.faultWrite(content, { kind: "delay", ms: s.delayMs }, () => void w.restartKernel()),
};

const redisRestarted: Fault = {
  name: "Redis (AOF) restarted while the write is uncertain",
  world: { redis: true },
  skip: redisServerPath() ? undefined : "skipped: redis-server not found (apt-get install redis-server)",
  arm: (w, content, s) => w.faultWrite(content, { kind: "delay", ms: s.delayMs }),
  after: (w) => w.restartRedis(),
};

/**
 * The runtime's state lost (Redis without persistence restarted) while the write is uncertain: the
 * runtime no longer knows the write; only a host that kept its own key across its restart (the
 * plugin's ctx.state on Hermes 0.21) retries with the first key, which the kernel's record replays.
 */
const volatileRedisRestarted: Fault = {
  name: "Redis without persistence restarted while the write is uncertain",
  world: { redis: true, volatileRedis: true },
  skip: redisServerPath() ? undefined : "skipped: redis-server not found (apt-get install redis-server)",
  arm: (w, content, s) => w.faultWrite(content, { kind: "delay", ms: s.delayMs }),
  after: (w) => w.restartRedis(),
};

// ---------------------------------------------------------------------------------------------
// The matrix

const hermesHttp = hermesSurface("http");
const hermesCli = hermesSurface("cli");
const hermesNextHttp = hermesSurface("http", HERMES_NEXT);
const hermesNextCli = hermesSurface("cli", HERMES_NEXT);

const rows: Array<[Surface, Fault, RetryKind]> = [
  // the issue's headline: HTTP, 2 s plugin timeout, 6 s kernel delay, each kind of retry -> one note
  [hermesHttp, kernelDelay, "same key"],
  [hermesHttp, kernelDelay, "new call"],
  [hermesHttp, kernelDelay, "host restart"],
  [hermesHttp, hostProxyHold, "new call"],
  [hermesHttp, runtimeKilled, "new call"],
  [hermesCli, kernelDelay, "new call"],
  [hermesCli, kernelDelay, "host restart"],
  [envelopeSurface, kernelDelay, "new call"],
  [envelopeSurface, kernelDelay, "same key"],
  [envelopeSurface, connectionDropped, "new call"],
  [envelopeSurface, runtimeKilled, "new call"],
  [envelopeSurface, kernelRestarted, "new call"],
  [envelopeSurface, redisRestarted, "new call"],
  [frameworkSurface, kernelDelay, "new call"],
  [frameworkSurface, connectionDropped, "same key"],
  [mcpHttpSurface, kernelDelay, "new call"],
  [mcpHttpSurface, kernelDelay, "same key"],
  [mcpStdioSurface, kernelDelay, "new call"],
  [mcpStdioSurface, kernelDelay, "host restart"],
  // the same Hermes rows on the newest Hermes (v0.21)
  [hermesNextHttp, kernelDelay, "same key"],
  [hermesNextHttp, kernelDelay, "new call"],
  [hermesNextHttp, kernelDelay, "host restart"],
  [hermesNextHttp, hostProxyHold, "new call"],
  [hermesNextHttp, runtimeKilled, "new call"],
  [hermesNextCli, kernelDelay, "new call"],
  [hermesNextCli, kernelDelay, "host restart"],
  // Hermes 0.21 keeps an uncertain write's key in ctx.state: the runtime's state lost, then a Hermes
  // restart, writes once (the same row on v0.18 writes twice: docs/RELIABILITY.md)
  [hermesNextHttp, volatileRedisRestarted, "host restart"],
];

const RETRY_BUDGET_MS = 60_000;
/**
 * The host's timeout for every attempt after the faulted first one. Only the first attempt meets a
 * held answer; the retries and the deliberate second call meet none, so their timeout only has to
 * outlast a plain call at load 20 on 2 cores (a 2 s timeout there lost "again" in issue 47). 30 s
 * also outlasts a held answer (6 s, 12 s) that a retry ends up waiting for.
 */
const SETTLED_TIMEOUT_MS = 30_000;

async function runRow(surface: Surface, fault: Fault, retry: RetryKind, row: number): Promise<void> {
  const w = await faultWorld({ ...surface.world, ...fault.world });
  let host: Host | undefined;
  try {
    const content = `Fault matrix row ${row}: ${surface.name} / ${fault.name} / ${retry}`;
    host = await surface.connect(w, retry);
    fault.arm(w, content, surface);
    const first = host.attempt(content, "tc-1", surface.timeoutMs);
    // "host restart": the host is killed while its call waits, and a new one starts with no memory of it
    const h = host;
    if (retry === "host restart") setTimeout(() => void h.kill(), surface.timeoutMs / 2);
    const answer1 = await first;
    const trail = [answer1.ok ? "ok" : answer1.code]; // every answer the model read, shown when a row fails
    // the plugin resending on its own may already read the note in the first call; any other host lost it
    if (!(surface.name.startsWith("Hermes") && retry === "same key")) expect(answer1.ok).toBe(false);
    await fault.after?.(w);
    if (retry === "host restart") host = await surface.connect(w, retry);
    let answer = answer1;
    const deadline = Date.now() + RETRY_BUDGET_MS;
    for (let n = 2; !answer.ok && Date.now() < deadline; n++) {
      await new Promise((r) => setTimeout(r, 1_000));
      answer = await host.attempt(content, retry === "same key" ? "tc-1" : `tc-${n}`, SETTLED_TIMEOUT_MS);
      trail.push(answer.ok ? "ok" : answer.code);
    }
    // exactly one write, and the model read it
    expect(answer.ok ? "ok" : `no success within the budget: ${trail.join(", ")}`).toBe("ok");
    expect(w.notes(content)).toEqual([(answer as { artifactId: string }).artifactId]);
    // the same call on purpose, after the model saw the first answer: a second note
    const again = await host.attempt(content, "tc-again", SETTLED_TIMEOUT_MS);
    // (the answers in the message: toMatchObject would show only the keys it compares)
    expect(again.ok ? "ok" : `again: ${JSON.stringify(again)}; before it: ${trail.join(", ")}`).toBe("ok");
    expect(w.notes(content).sort()).toEqual(
      [(answer as { artifactId: string }).artifactId, (again as { artifactId: string }).artifactId].sort(),
    );
  } finally {
    await host?.kill();
    await w.close();
  }
}

/**
 * Rows run a few at a time (each is a deployment of two or three processes mostly waiting on held
 * answers): MNOTE_FAULT_MATRIX_CONCURRENCY, default 3.
 */
const CONCURRENCY = Math.max(1, Number(process.env.MNOTE_FAULT_MATRIX_CONCURRENCY) || 3);
let running = 0;
const queue: Array<() => void> = [];
async function inTurn<R>(run: () => Promise<R>): Promise<R> {
  if (running >= CONCURRENCY) await new Promise<void>((r) => queue.push(r));
  running++;
  try {
    return await run();
  } finally {
    running--;
    queue.shift()?.();
  }
}

// Named but not there is a failure, not a skip: CI names the folder, and requires Redis, on purpose.
if (hermesSrc !== "" && !hermesPresent)
  it("MNOTE_HERMES_SRC holds the Hermes Agent modules", () => {
    throw new Error(`MNOTE_HERMES_SRC=${hermesSrc} has no hermes_cli/plugins.py and model_tools.py`);
  });
if (HERMES_NEXT.src !== "" && !HERMES_NEXT.present) namedButMissing();
if (process.env.MNOTE_REQUIRE_REDIS === "1" && !redisServerPath())
  it("redis-server is on PATH (MNOTE_REQUIRE_REDIS=1)", () => {
    throw new Error("redis-server not found (apt-get install redis-server)");
  });

describe("never twice, never lost: surface x fault x retry", () => {
  rows.forEach(([surface, fault, retry], i) => {
    const skip = surface.skip ?? fault.skip;
    const title = `${surface.name} | ${fault.name} | ${retry}${skip ? ` (${skip})` : ""}`;
    if (skip) it.skip(title, () => undefined);
    // the budget covers the wait for a turn: every row ahead of it may be running
    else it.concurrent(title, () => inTurn(() => runRow(surface, fault, retry, i + 1)), 600_000);
  });
});
