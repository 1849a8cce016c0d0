/**
 * `mnote-tools call`: the CLI JSON adapter. One request envelope on stdin, one response envelope on
 * stdout. Exit 0 whenever an envelope was written, ok or not; non-zero only when no answer could
 * be given at all.
 */
import { runtimeFrom, type RuntimeCliOptions } from "../runtime-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";
import { continueTrace, traceCarrierFromEnv } from "../../runtime/telemetry/propagation";

export async function runCall(opts: RuntimeCliOptions): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // stdout carries the envelope: console spans go to stderr; TRACEPARENT (the caller's) is continued
  const telemetry = await startTelemetry({ serviceName: "mnote-tools", consoleStream: process.stderr });
  const runtime = await runtimeFrom(opts);
  try {
    const response = await continueTrace(traceCarrierFromEnv(), () => runtime.dispatcher.dispatch(Buffer.concat(chunks)));
    process.stdout.write(JSON.stringify(response) + "\n");
  } finally {
    await runtime.close();
    await telemetry?.shutdown();
  }
}
