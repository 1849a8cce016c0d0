/** Listening, the announcement scripts wait for, and the graceful stop on SIGTERM/SIGINT (server.ts). */
import type { Server } from "node:http";
import type { Logger } from "./logger";

/** Stops accepting, lets requests in flight finish (up to graceMs), then resolves. */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The URL of a listening server, with an IPv6 host in brackets. */
export function urlOf(server: Server, host: string, path = ""): string {
  const { port } = server.address() as { port: number };
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
}

/**
 * Listens, runs beforeAnnounce (a start-up check: if it throws, the server closes and the error
 * goes on), prints {"listening": url, "pid"} on stdout (what scripts and tests wait for; a cluster
 * worker announces to its primary instead), serves until SIGTERM or SIGINT, stops gracefully, then
 * runs onStop. The port is taken before the check, so a port in use is the first thing reported.
 */
export async function serveUntilSignal(
  server: Server,
  options: {
    host: string;
    port: number;
    path?: string;
    log: Logger;
    beforeAnnounce?: () => Promise<void>;
    onStop?: () => Promise<void> | void;
    /** Instead of printing the listening line (a cluster worker tells its primary). */
    announce?: (url: string) => void;
  },
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  if (options.beforeAnnounce) {
    try {
      await options.beforeAnnounce();
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw e;
    }
  }
  const url = urlOf(server, options.host, options.path);
  // the signal handlers are in place before the announcement: a supervisor that sends SIGTERM as
  // soon as it reads the listening line must get the graceful stop, not Node's default (death)
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      // SIGINT from a terminal reaches a cluster worker as well as its primary's SIGTERM: stop once
      if (stopping) return;
      stopping = true;
      options.log.info({ event: "shutdown", signal }, "shutdown");
      await closeGracefully(server, 10_000);
      await options.onStop?.();
      resolve();
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
  });
  // logged first: whoever waits for the announcement finds the log line already written
  options.log.info({ event: "listening", url }, "listening");
  options.log.flush(); // the log buffers a turn's lines (logger.ts): written before the announcement
  if (options.announce) options.announce(url);
  else process.stdout.write(JSON.stringify({ listening: url, pid: process.pid }) + "\n");
  await stopped;
}
