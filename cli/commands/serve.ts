/** `mnote-tools serve`: the runtime over HTTP on loopback, with a bearer token, until SIGTERM. */
import { randomBytes } from "node:crypto";
import { runtimeFrom, positiveInt, type RuntimeCliOptions } from "../runtime-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";

export interface ServeOptions extends RuntimeCliOptions {
  host: string;
  port: string;
  token?: string;
  hostToken?: string;
  maxBytes: string;
}

export async function runServe(opts: ServeOptions): Promise<void> {
  const { createToolServer } = await import("../../runtime/transports/tool-server");
  const { closeGracefully } = await import("../../runtime/transports/http-util");
  const telemetry = await startTelemetry({ serviceName: "mnote-tools" }); // only when OTEL_* asks (docs/OBSERVABILITY.md)
  const instance = `${process.pid}`;
  const log = (line: Record<string, unknown>) => process.stderr.write(JSON.stringify({ ts: new Date().toISOString(), instance, ...line }) + "\n");
  let token = opts.token;
  if (!token) {
    token = randomBytes(18).toString("base64url");
    log({ event: "token_generated", message: "no --token or MNOTE_TOOLS_TOKEN given; tool calls need this bearer token", token });
  }
  let storeErrors = 0;
  const runtime = await runtimeFrom(opts, {
    onCall: (r) => log({ event: "tool_call", ...r }),
    // logged once per 100 so a Redis outage does not flood the log
    onStoreError: (e) => {
      if (storeErrors++ % 100 === 0) log({ event: "store_unavailable", message: (e as Error).message, count: storeErrors, fallback: "the kernel's idempotency record" });
    },
  });
  const server = createToolServer({ runtime, token, hostToken: opts.hostToken, maxBytes: positiveInt(opts.maxBytes, "--max-bytes"), log });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(positiveIntOrZero(opts.port), opts.host, () => resolve());
  });
  const address = server.address() as { port: number };
  const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${address.port}`;
  process.stdout.write(JSON.stringify({ listening: url, pid: process.pid }) + "\n");
  log({ event: "listening", url });

  await new Promise<void>((resolve) => {
    const stop = async (signal: string) => {
      log({ event: "shutdown", signal });
      await closeGracefully(server, 10_000);
      await runtime.close();
      await telemetry?.shutdown();
      resolve();
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
  });
}

function positiveIntOrZero(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port must be 0..65535, not "${text}"`);
  return n;
}
