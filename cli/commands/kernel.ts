/** `mnote-tools kernel seed|serve|exec`: the reference kernel on its own. */
import { readFileSync } from "node:fs";
import { startTelemetry } from "../../runtime/telemetry/sdk";

/** service.name of the reference kernel's spans (OTEL_SERVICE_NAME overrides). */
const KERNEL_SERVICE = "mnote-kernel";

export async function runKernelSeed(file: string, opts: { db: string }): Promise<void> {
  const { ReferenceKernel } = await import("../../kernel/reference-kernel");
  const { seedKernel } = await import("../../kernel/seed");
  const kernel = new ReferenceKernel({ path: opts.db });
  try {
    const counts = seedKernel(kernel, JSON.parse(readFileSync(file, "utf8")));
    console.log(
      `seeded ${opts.db}: ${Object.entries(counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ")}`,
    );
  } finally {
    kernel.close();
  }
}

export async function runKernelServe(opts: { db: string; host: string; port: string; token?: string }): Promise<void> {
  const { ReferenceKernel } = await import("../../kernel/reference-kernel");
  const { createKernelServer } = await import("../../kernel/http-server");
  const { closeGracefully } = await import("../../runtime/transports/http-util");
  const telemetry = await startTelemetry({ serviceName: KERNEL_SERVICE }); // only when OTEL_* asks
  const log = (line: Record<string, unknown>) => process.stderr.write(JSON.stringify({ ts: new Date().toISOString(), kernel: process.pid, ...line }) + "\n");
  const kernel = new ReferenceKernel({ path: opts.db });
  const server = createKernelServer({ kernel, token: opts.token, log });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(opts.port), opts.host, () => resolve());
  });
  const url = `http://${opts.host}:${(server.address() as { port: number }).port}`;
  process.stdout.write(JSON.stringify({ listening: url, pid: process.pid }) + "\n");
  await new Promise<void>((resolve) => {
    const stop = async () => {
      await closeGracefully(server, 10_000);
      kernel.close();
      await telemetry?.shutdown();
      resolve();
    };
    process.once("SIGTERM", () => void stop());
    process.once("SIGINT", () => void stop());
  });
}

/** The CLI adapter (what mnote-cli is to the Rust kernel): one {command, payload} on stdin, one KernelReply on stdout. */
export async function runKernelExec(opts: { db: string }): Promise<void> {
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
  const { traceCarrierFromEnv } = await import("../../runtime/telemetry/propagation");
  // stdout carries the reply: console spans go to stderr; the span continues the caller's TRACEPARENT
  const telemetry = await startTelemetry({ serviceName: KERNEL_SERVICE, consoleStream: process.stderr });
  const kernel = new ReferenceKernel({ path: opts.db });
  try {
    const { command, payload } = request;
    const reply = withCommandSpan(command, payload, traceCarrierFromEnv(), "cli", () => executeCommand(kernel, command, payload));
    process.stdout.write(JSON.stringify(reply) + "\n");
  } finally {
    kernel.close();
    await telemetry?.shutdown();
  }
}
