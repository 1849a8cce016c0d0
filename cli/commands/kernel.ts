/** `mnote-tools kernel seed|serve|exec`: the reference kernel on its own. */
import { readFileSync } from "node:fs";
import { CliExit, usageError } from "../exit";
import { httpServiceOptions, type HttpCliOptions } from "../http-options";
import { requireKernelDatabase } from "../runtime-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";

/** service.name of the reference kernel's spans (OTEL_SERVICE_NAME overrides). */
const KERNEL_SERVICE = "mnote-kernel";

export async function runKernelSeed(file: string, opts: { db: string }): Promise<void> {
  const { ReferenceKernel } = await import("../../kernel/reference-kernel");
  const { seedKernel, validateSeed } = await import("../../kernel/seed");
  // the seed is read and checked before the database is opened: a bad seed leaves no file behind
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw usageError(`${file} is not JSON: ${e.message}`);
    throw e;
  }
  validateSeed(data);
  const kernel = new ReferenceKernel({ path: opts.db });
  try {
    const counts = seedKernel(kernel, data);
    console.log(
      `seeded ${opts.db}: ${Object.entries(counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ")}`,
    );
  } finally {
    kernel.close();
  }
}

export interface KernelServeOptions extends HttpCliOptions {
  db: string;
  token?: string;
  insecureNoAuth?: boolean;
}

export async function runKernelServe(opts: KernelServeOptions): Promise<void> {
  const { createLogger } = await import("../../common/http/logger");
  const { serveUntilSignal } = await import("../../common/http/listen");
  const { isLoopback } = await import("../../common/http/loopback");
  const log = createLogger({ service: "kernel", level: opts.logLevel });
  if (!opts.token && !opts.insecureNoAuth) {
    process.stderr.write(
      "mnote-tools kernel serve: refusing to run without a token: pass --token (or MNOTE_KERNEL_TOKEN), or --insecure-no-auth for loopback development\n",
    );
    throw new CliExit(2);
  }
  if (opts.insecureNoAuth && !opts.token) {
    if (!isLoopback(opts.host)) {
      process.stderr.write(
        `mnote-tools kernel serve: --insecure-no-auth binds loopback only; --host ${opts.host} is not a loopback address\n`,
      );
      throw new CliExit(2);
    }
    log.warn(
      { event: "insecure_no_auth" },
      "kernel serve runs WITHOUT AUTH (--insecure-no-auth): any local process can read and write every page",
    );
  }
  const { ReferenceKernel } = await import("../../kernel/reference-kernel");
  const { createKernelServer } = await import("../../kernel/http-server");
  requireKernelDatabase(opts.db);
  const telemetry = await startTelemetry({ serviceName: KERNEL_SERVICE }); // only when OTEL_* asks
  const kernel = new ReferenceKernel({ path: opts.db });
  const server = createKernelServer({
    kernel,
    token: opts.token,
    insecureNoAuth: opts.insecureNoAuth && !opts.token,
    log,
    ...(await httpServiceOptions(opts)),
  });
  await serveUntilSignal(server, {
    host: opts.host,
    port: opts.port,
    log,
    onStop: async () => {
      kernel.close();
      await telemetry?.shutdown();
    },
  });
}

/** The CLI adapter (what mnote-cli is to the Rust kernel): one {command, payload} on stdin, one KernelReply on stdout. */
export async function runKernelExec(opts: { db: string }): Promise<void> {
  requireKernelDatabase(opts.db);
  const { ReferenceKernel } = await import("../../kernel/reference-kernel");
  const { executeCommand } = await import("../../kernel/protocol");
  const { validateKernelRequest } = await import("../../generated/validators");
  const { ERR } = await import("../../generated/registry");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  let request: unknown;
  try {
    request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    process.stdout.write(JSON.stringify({ ok: false, error: { code: ERR.invalidInput, reason: "not_json" } }) + "\n");
    return;
  }
  if (!validateKernelRequest(request)) {
    process.stdout.write(JSON.stringify({ ok: false, error: { code: ERR.invalidInput, reason: "request" } }) + "\n");
    return;
  }
  const { withCommandSpan } = await import("../../kernel/telemetry");
  const { traceCarrierFromEnv } = await import("../../common/telemetry/propagation");
  // stdout carries the reply: console spans go to stderr; the span continues the caller's TRACEPARENT
  const telemetry = await startTelemetry({ serviceName: KERNEL_SERVICE, consoleStream: process.stderr, oneShot: true });
  const kernel = new ReferenceKernel({ path: opts.db });
  try {
    const { command, payload } = request;
    const reply = withCommandSpan(command, payload, traceCarrierFromEnv(), "cli", () =>
      executeCommand(kernel, command, payload),
    );
    process.stdout.write(JSON.stringify(reply) + "\n");
  } finally {
    kernel.close();
    await telemetry?.shutdown();
  }
}
