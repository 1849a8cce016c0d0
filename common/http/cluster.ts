/**
 * `--workers N`: one server in N processes (node:cluster) sharing one listening socket. The
 * workers accept connections themselves (SCHED_NONE): with the cluster module's round-robin the
 * primary accepts and hands each connection to a worker, and one handed to a worker that is dying
 * hangs until the client's timeout while the primary keeps its socket in CLOSE-WAIT; a worker that
 * is going away simply stops accepting instead, and the kernel gives the connection to another.
 * Every worker runs the whole server on its own event loop and opens the same state (SQLite files in
 * WAL mode, whose transactions already keep several processes apart, or Redis), so the guarantees
 * that hold for several `serve` processes on one state hold for the workers (docs/RELIABILITY.md).
 *
 * The primary prints the one `{"listening": url, "pid", "workers"}` line once every worker listens
 * (what scripts wait for), replaces a worker that dies (with a limit, so a worker that cannot start
 * does not loop), and on SIGTERM/SIGINT stops the workers gracefully and waits for them. Every
 * worker, a replacement too, listens on the one port the primary chose (MNOTE_CLUSTER_PORT), never
 * on a new one: with `--port 0` and every worker down at once, a new random port would leave the
 * advertised URL refusing for good. When workers die too often the primary stops them and fails with
 * WorkersFailingError: exit 3 and one line (cli/exit.ts), not a bug's exit 70 and a stack.
 */
import cluster, { type Worker } from "node:cluster";
import { createServer } from "node:net";
import type { Logger } from "./logger";

/**
 * The workers could not all start. A worker that exits before listening has said why on the shared
 * stderr already (a port in use, a kernel refusing the token: each one line, exit 3), so this is an
 * environment problem of the whole server (cli/exit.ts maps it to exit 3), not a bug.
 */
export class ClusterStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClusterStartError";
  }
}

/** Workers died too often to go on replacing them (an environment problem: exit 3, one line). */
export class WorkersFailingError extends ClusterStartError {
  constructor(message: string) {
    super(message);
    this.name = "WorkersFailingError";
  }
}

/** Where a replacement worker is told the port the server advertised. */
const PORT_ENV = "MNOTE_CLUSTER_PORT";

/** The port to listen on: in a worker, the one the primary picked for every worker; else the one asked for. */
export function clusterPort(requested: number): number {
  const given = cluster.isWorker ? Number(process.env[PORT_ENV]) : NaN;
  return Number.isInteger(given) && given > 0 ? given : requested;
}

/** The message a worker sends the primary once its server listens. */
interface ListeningMessage {
  mnoteListening: string;
}

function isListeningMessage(m: unknown): m is ListeningMessage {
  return typeof m === "object" && m !== null && typeof (m as ListeningMessage).mnoteListening === "string";
}

/** True in a process the cluster primary forked (it runs the server and announces through the primary). */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/** How a worker announces that it listens: to the primary, which prints the one line for all. */
export function announceToPrimary(url: string): void {
  process.send?.({ mnoteListening: url } satisfies ListeningMessage);
}

/** After a worker's server stopped: closes the channel to the primary, which would keep the process alive. */
export function leaveCluster(): void {
  if (cluster.isWorker) cluster.worker?.disconnect();
}

export interface ClusterOptions {
  workers: number;
  log: Logger;
  /** Environment every worker gets on top of this process's (e.g. a generated token). */
  env?: Record<string, string>;
  /** The address and port the workers listen on (port 0: one the primary picks for them all). */
  host?: string;
  port?: number;
  /** Longest wait for every worker to listen (default 30 s). */
  startTimeoutMs?: number;
  /** Longest wait for the workers to stop after SIGTERM, before they are killed (default 15 s). */
  stopTimeoutMs?: number;
}

/** Replacing dead workers stops after this many deaths within RESTART_WINDOW_MS: something is wrong. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10_000;

/**
 * What the primary knows of its workers. Shared by the start, the supervision and the stop, which
 * all change it; `stopping` turns replacing off once the server is stopping (or failed to start).
 */
interface Primary {
  options: ClusterOptions;
  live: Set<Worker>;
  stopping: boolean;
  /** When workers died, within the last RESTART_WINDOW_MS. */
  deaths: number[];
  /** Forks one worker told the server's one port, and counts it live. */
  fork(): Worker;
  /** Set once the stop is wired: stops the server with this error (workers keep dying). */
  gaveUp?: (e: Error) => void;
}

/**
 * In the primary: forks the workers (each re-runs this command), prints the listening line when all
 * listen, supervises them, and resolves once they are all gone after SIGTERM or SIGINT. Rejects when
 * the workers cannot start (a worker exits before listening, or the start times out).
 */
export async function runClusterPrimary(options: ClusterOptions): Promise<void> {
  // before the first fork: the workers accept, the primary holds no connection (see the top)
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // Every worker asks for one concrete port: workers asking for the same port share one listening
  // handle in the primary, which closes when its last worker is gone. Asked for port 0, each
  // generation of workers would get a new random port once the old ones all died; so the primary
  // picks the port first (the OS's choice for port 0) and every worker, first or replacement, asks
  // for exactly that one. (Between the pick and the first worker's bind, another process could take
  // it: then the start fails with the port-in-use line, exit 3.)
  const port = options.port === 0 ? await freePortOn(options.host) : options.port;
  const primary: Primary = {
    options,
    live: new Set<Worker>(),
    stopping: false,
    deaths: [],
    fork: () => {
      const worker = cluster.fork({ ...options.env, ...(port !== undefined ? { [PORT_ENV]: String(port) } : {}) });
      primary.live.add(worker);
      return worker;
    },
  };
  const url = await startWorkers(primary);
  process.stdout.write(JSON.stringify({ listening: url, pid: process.pid, workers: options.workers }) + "\n");
  options.log.info({ event: "listening", url, workers: options.workers }, "listening");
  for (const w of primary.live) supervise(primary, w, url);
  await untilStopped(primary);
}

/**
 * The start: every worker must listen, or the whole server does not start (a worker that exits
 * first, or the timeout, kills them all). Resolves with the first worker's URL.
 */
function startWorkers(primary: Primary): Promise<string> {
  const { options, live } = primary;
  return new Promise<string>((resolve, reject) => {
    let listening = 0;
    let first: string | undefined;
    const timer = setTimeout(
      () => fail(new ClusterStartError("the workers did not all start listening in time")),
      options.startTimeoutMs ?? 30_000,
    );
    const fail = (e: Error) => {
      clearTimeout(timer);
      primary.stopping = true;
      for (const w of live) w.process.kill("SIGKILL");
      reject(e);
    };
    for (let i = 0; i < options.workers; i++) {
      const worker = primary.fork();
      worker.on("message", (m: unknown) => {
        if (!isListeningMessage(m)) return;
        first ??= m.mnoteListening;
        if (++listening === options.workers) {
          clearTimeout(timer);
          resolve(first);
        }
      });
      worker.once("exit", (code, signal) => {
        live.delete(worker);
        if (listening < options.workers)
          fail(new ClusterStartError(`a worker exited before listening (exit ${signal ?? code})`));
      });
    }
  });
}

/** Records a death at `now` and forgets those out of the window: true when there were too many to go on. */
function tooManyDeaths(deaths: number[], now: number): boolean {
  deaths.push(now);
  while (deaths.length > 0 && deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
  return deaths.length > MAX_RESTARTS;
}

/** Supervision: a worker that dies is replaced (and supervised in turn), unless they keep dying. */
function supervise(primary: Primary, worker: Worker, url: string): void {
  const { log } = primary.options;
  worker.once("exit", (code, signal) => {
    primary.live.delete(worker);
    if (primary.stopping) return;
    const failing = tooManyDeaths(primary.deaths, Date.now());
    log.warn({ event: "worker_exited", workerPid: worker.process.pid, code, signal }, "worker_exited");
    if (failing) {
      primary.gaveUp?.(
        new WorkersFailingError(
          `serve: ${primary.deaths.length} workers died within ${RESTART_WINDOW_MS / 1000} s: stopping (see the worker_exited lines)`,
        ),
      );
      return;
    }
    const replacement = primary.fork();
    replacement.on("message", (m: unknown) => {
      // the advertised port is the only one: a replacement elsewhere would be a URL nobody knows
      if (isListeningMessage(m) && m.mnoteListening !== url)
        log.error({ event: "listening_moved", advertised: url, url: m.mnoteListening }, "listening_moved");
    });
    supervise(primary, replacement, url);
  });
}

/**
 * Resolves once every worker is gone after SIGTERM or SIGINT; rejects with the error once they are
 * gone after the workers kept dying.
 */
function untilStopped(primary: Primary): Promise<void> {
  const { log } = primary.options;
  return new Promise<void>((resolve, reject) => {
    const stop = (signal: string, error?: Error) => {
      if (primary.stopping) return;
      primary.stopping = true;
      log.info({ event: "shutdown", signal }, "shutdown");
      stopWorkers(primary, () => (error ? reject(error) : resolve()));
    };
    primary.gaveUp = (e) => {
      log.error({ event: "workers_failing", message: e.message }, "workers_failing");
      stop("workers keep dying", e);
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}

/**
 * SIGTERM to every live worker (each closes its server gracefully: serveUntilSignal), SIGKILL to
 * those still there after stopTimeoutMs; `gone` once none is left.
 */
function stopWorkers(primary: Primary, gone: () => void): void {
  const { live, options } = primary;
  const killer = setTimeout(() => {
    for (const w of live) w.process.kill("SIGKILL");
  }, options.stopTimeoutMs ?? 15_000);
  const done = () => {
    if (live.size > 0) return;
    clearTimeout(killer);
    gone();
  };
  for (const w of live) {
    w.once("exit", () => {
      live.delete(w);
      done();
    });
    w.process.kill("SIGTERM");
  }
  done();
}

/** A port free on host right now, as the OS picks one for port 0. */
function freePortOn(host: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
