/**
 * `mnote-tools serve`: parses the options and runs the tool server (runtime/transports/tool-server.ts)
 * until SIGTERM; with --workers N, in N processes sharing the port (common/http/cluster.ts).
 */
import { checkKernelAtStartup, runtimeFrom, toolCallLogger, type RuntimeCliOptions } from "../runtime-options";
import { httpServiceOptions, type HttpCliOptions } from "../http-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";
import { usageError } from "../exit";
import { generateTokenFile } from "../token-file";

export interface ServeOptions extends RuntimeCliOptions, HttpCliOptions {
  token?: string;
  hostToken?: string;
  maxBytes: number;
  workers: number;
}

export async function runServe(opts: ServeOptions): Promise<void> {
  const { createToolServer } = await import("../../runtime/transports/tool-server");
  const { createLogger, logEvent, showGeneratedTokenFile, storeErrorLogger } = await import("../../common/http/logger");
  const { serveUntilSignal } = await import("../../common/http/listen");
  const { announceToPrimary, clusterPort, isClusterWorker, leaveCluster, runClusterPrimary } =
    await import("../../common/http/cluster");
  const log = createLogger({ service: "serve", level: opts.logLevel });
  const workers = opts.workers;
  const worker = isClusterWorker();
  // a generated token is made once everything else was checked (a bad option leaves no token file)
  const tokenOrGenerated = () => {
    if (opts.token) return opts.token;
    const generated = generateTokenFile("serve", opts.state);
    showGeneratedTokenFile("serve", "--token or MNOTE_TOOLS_TOKEN", generated.path);
    return generated.token;
  };
  if (workers > 1 && !worker) {
    // every worker must see the same state: an in-memory database would be one per process
    for (const [flag, path] of [
      ["--state", opts.state],
      ["--db", opts.kernelUrl || opts.kernelCli ? undefined : opts.db],
    ] as const)
      if (path === ":memory:") throw usageError(`--workers ${workers} needs a database file for ${flag}, not :memory:`);
    // the workers re-run this command; a generated token reaches them through the environment
    const token = tokenOrGenerated();
    await runClusterPrimary({ workers, log, host: opts.host, port: opts.port, env: { MNOTE_TOOLS_TOKEN: token } });
    return;
  }
  const telemetry = await startTelemetry({ serviceName: "mnote-tools" }); // only when OTEL_* asks (docs/OBSERVABILITY.md)
  const runtime = await runtimeFrom(opts, {
    onCall: await toolCallLogger(log),
    onStoreError: storeErrorLogger(log),
    warn: (message) => logEvent(log, "warn", "start_warning", { message }),
  });
  const http = await httpServiceOptions(opts);
  const token = tokenOrGenerated();
  const server = createToolServer({
    runtime,
    token,
    hostToken: opts.hostToken,
    maxBytes: opts.maxBytes,
    log,
    ...http,
  });
  const stop = async () => {
    await runtime.close();
    await telemetry?.shutdown();
  };
  try {
    await serveUntilSignal(server, {
      host: opts.host,
      // a replacement worker listens where the server said it listens (common/http/cluster.ts)
      port: clusterPort(opts.port),
      log,
      // the port is taken first, then the kernel asked once (exit 3 if it cannot be used)
      beforeAnnounce: () => checkKernelAtStartup(runtime, opts, log),
      announce: worker ? announceToPrimary : undefined,
      onStop: stop,
    });
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
  if (worker) leaveCluster();
}
