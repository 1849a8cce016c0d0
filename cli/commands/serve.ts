/** `mnote-tools serve`: parses the options and runs the tool server (runtime/transports/tool-server.ts) until SIGTERM. */
import { randomBytes } from "node:crypto";
import { checkKernelAtStartup, runtimeFrom, toolCallLogger, type RuntimeCliOptions } from "../runtime-options";
import { httpServiceOptions, type HttpCliOptions } from "../http-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";

export interface ServeOptions extends RuntimeCliOptions, HttpCliOptions {
  token?: string;
  hostToken?: string;
  maxBytes: number;
}

export async function runServe(opts: ServeOptions): Promise<void> {
  const { createToolServer } = await import("../../runtime/transports/tool-server");
  const { createLogger, showGeneratedToken, storeErrorLogger } = await import("../../common/http/logger");
  const { serveUntilSignal } = await import("../../common/http/server");
  const log = createLogger({ service: "serve", level: opts.logLevel });
  const telemetry = await startTelemetry({ serviceName: "mnote-tools" }); // only when OTEL_* asks (docs/OBSERVABILITY.md)
  let token = opts.token;
  if (!token) {
    token = randomBytes(18).toString("base64url");
    showGeneratedToken("serve", "--token or MNOTE_TOOLS_TOKEN", token);
  }
  const runtime = await runtimeFrom(opts, {
    onCall: await toolCallLogger(log),
    onStoreError: storeErrorLogger(log),
  });
  const server = createToolServer({
    runtime,
    token,
    hostToken: opts.hostToken,
    maxBytes: opts.maxBytes,
    log,
    ...(await httpServiceOptions(opts)),
  });
  const stop = async () => {
    await runtime.close();
    await telemetry?.shutdown();
  };
  try {
    await serveUntilSignal(server, {
      host: opts.host,
      port: opts.port,
      log,
      // the port is taken first, then the kernel asked once (exit 3 if it cannot be used)
      beforeAnnounce: () => checkKernelAtStartup(runtime, opts, log),
      onStop: stop,
    });
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
