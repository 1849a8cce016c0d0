/**
 * One scratch deployment for the fault matrix (test/reliability/fault-matrix.test.ts): a kernel
 * (`kernel serve`), a proxy in front of it that faults the write of one note, a runtime (`serve`, or
 * `mcp --http`) over that proxy, optionally a proxy between the host and the runtime, and a private
 * Redis with persistence when the runtime's store is Redis. Every part can be killed and restarted
 * on its own port, as an operator or a crash would. The kernel's own table is what is counted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import { createConnection, createServer as createTcpServer, type Socket } from "node:net";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import Database from "better-sqlite3";
import { seededProject } from "./project";
import { start, type Running } from "./processes";
import { tempDir } from "./tmp";

export const SESSION = "s_faults";
export const TOOL_TOKEN = "fault-tok";
const KERNEL_TOKEN = "fault-kernel-tok";

/** What the kernel proxy does to the one write it faults: hold its answer delayMs, or forever. */
export type KernelFault = { kind: "delay"; ms: number } | { kind: "hold" };

export interface World {
  db: string;
  state: string;
  /** The runtime as the host reaches it (through the host proxy when there is one). */
  url: string;
  /** Faults the next kernel write of a note with this content; onCommitted runs once the kernel answered it. */
  faultWrite(content: string, fault: KernelFault, onCommitted?: () => void): void;
  /** The host proxy drops (or holds past the host's timeout) the next connection's answer. */
  hostFault(kind: "drop" | "hold"): void;
  /** The kernel's notes with this content: id per row. */
  notes(content: string): string[];
  restartRuntime(): Promise<void>;
  restartKernel(): Promise<void>;
  restartRedis(): Promise<void>;
  /** Redis stopped (SIGTERM), and started again on its port: calls made in between find it down. */
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
  /** Env for `mnote-tools call` against this deployment (the plugin's CLI transport). */
  cliEnv(): Record<string, string>;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** "serve" (default) or "mcp": `mcp --http` for the session. */
  runtime?: "serve" | "mcp";
  redis?: boolean;
  /** With redis: a Redis without persistence (a restart forgets everything the runtime kept there). */
  volatileRedis?: boolean;
  hostProxy?: boolean;
}

export function redisServerPath(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "redis-server");
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

export async function faultWorld(options: WorldOptions = {}): Promise<World> {
  const p = seededProject([{ session: SESSION, actor: "user_1" }]);
  let kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
  const faults = new Map<string, { fault: KernelFault; onCommitted?: () => void }>();
  const kernelProxy = await faultingProxy(() => kernel.url, faults);
  const redis = options.redis ? await privateRedis(!options.volatileRedis) : undefined;
  const runtimeArgs = (port: string) => [
    ...(options.runtime === "mcp" ? ["mcp", "--http", "--session", SESSION] : ["serve"]),
    ...["--state", p.state, "--port", port, "--token", TOOL_TOKEN],
    ...["--kernel-url", kernelProxy.url, "--kernel-token", KERNEL_TOKEN, "--kernel-timeout", "30000"],
    ...(redis ? ["--store", redis.url] : []),
  ];
  let runtime = await start(runtimeArgs("0"));
  const runtimePort = new URL(runtime.url).port;
  const host = options.hostProxy ? await hostProxy(Number(runtimePort)) : undefined;
  const base = (u: string) => u.replace(/\/mcp$/, "");
  return {
    db: p.db,
    state: p.state,
    url: host ? `http://127.0.0.1:${host.port}` : base(runtime.url),
    faultWrite: (content, fault, onCommitted) => faults.set(content, { fault, onCommitted }),
    hostFault: (kind) => host!.faultNext(kind),
    notes(content) {
      const d = new Database(p.db, { readonly: true, fileMustExist: true });
      try {
        const rows = d.prepare("SELECT id FROM artifacts WHERE type = 'ai_note' AND content = ?").all(content);
        return (rows as Array<{ id: string }>).map((r) => r.id);
      } finally {
        d.close();
      }
    },
    async restartRuntime() {
      await runtime.stop("SIGKILL");
      runtime = await start(runtimeArgs(runtimePort));
    },
    async restartKernel() {
      const port = new URL(kernel.url).port;
      await kernel.stop("SIGKILL");
      kernel = await start(["kernel", "serve", "--db", p.db, "--port", port, "--token", KERNEL_TOKEN]);
    },
    restartRedis: () => redis!.restart(),
    stopRedis: () => redis!.stop(),
    startRedis: () => redis!.start(),
    cliEnv: () => ({
      MNOTE_TOOLS_STATE: p.state,
      MNOTE_KERNEL_URL: kernelProxy.url,
      MNOTE_KERNEL_TOKEN: KERNEL_TOKEN,
    }),
    async close() {
      await Promise.all([runtime.stop("SIGKILL"), kernel.stop("SIGKILL")]);
      kernelProxy.server.close();
      host?.server.close();
      await redis?.stop();
    },
  };
}

/** The kernel proxy: forwards every command; the faulted write of a note is answered late or never. */
async function faultingProxy(
  target: () => string,
  faults: Map<string, { fault: KernelFault; onCommitted?: () => void }>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const faulted = faultOf(body, faults);
      const upstream = httpRequest(target() + req.url, { method: req.method, headers: req.headers }, (up) => {
        const answer: Buffer[] = [];
        up.on("data", (c: Buffer) => answer.push(c));
        up.on("end", () => {
          const send = () => {
            if (res.destroyed) return; // the runtime gave up: the answer is lost
            res.writeHead(up.statusCode ?? 502, { "content-type": "application/json" });
            res.end(Buffer.concat(answer));
          };
          faulted?.onCommitted?.();
          if (!faulted) send();
          else if (faulted.fault.kind === "delay") setTimeout(send, faulted.fault.ms);
        });
      });
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

/** The fault of a kernel write carrying a faulted note's content (taken once), else undefined. */
function faultOf(body: Buffer, faults: Map<string, { fault: KernelFault; onCommitted?: () => void }>) {
  let payload: { write?: unknown; args?: { content?: unknown } };
  try {
    payload = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  const content = payload?.args?.content;
  if (!payload?.write || typeof content !== "string") return undefined;
  const faulted = faults.get(content);
  faults.delete(content);
  return faulted;
}

/**
 * A TCP proxy between the host and the runtime. "drop": the next connection's request is forwarded,
 * then both sides are cut 300 ms later (the request was sent, the answer never comes). "hold": the
 * runtime's answer is held back for 60 s. A host that hangs up closes the runtime's side too, as a
 * proxy does.
 */
async function hostProxy(
  target: number,
): Promise<{ port: number; server: Server; faultNext(kind: "drop" | "hold"): void }> {
  let next: "drop" | "hold" | undefined;
  const server = createTcpServer((client: Socket) => {
    const mode = next;
    next = undefined;
    const upstream = createConnection({ host: "127.0.0.1", port: target });
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", cut).on("close", cut);
    upstream.on("error", cut).on("close", cut);
    client.on("data", (d: Buffer) => {
      upstream.write(d);
      if (mode === "drop") setTimeout(cut, 300);
    });
    upstream.on("data", (d: Buffer) => {
      if (mode === "hold") setTimeout(() => client.write(d), 60_000).unref();
      else client.write(d);
    });
  }) as unknown as Server;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return { port, server, faultNext: (kind) => (next = kind) };
}

/**
 * A private redis-server, restartable on its port: with `persist`, every write is kept (AOF, fsync
 * always); without, nothing is (no AOF, no RDB snapshots: a restart forgets everything).
 */
export async function privateRedis(
  persist: boolean,
): Promise<{ url: string; restart(): Promise<void>; stop(): Promise<void>; start(): Promise<void> }> {
  const binary = redisServerPath()!;
  const dir = tempDir("mnote-redis-");
  const port = await freePort();
  let child: ChildProcess;
  const keep = persist ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
  const launch = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, ...keep, "--save", ""];
    child = spawn(binary, args, { stdio: "ignore" });
    for (let i = 0; i < 100 && !(await answersPing(port)); i++) await new Promise((r) => setTimeout(r, 100));
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    async restart() {
      await stop();
      await launch();
    },
    stop,
    start: launch,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createTcpServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString("utf8").startsWith("+PONG")));
  });
}

export type { Running };
