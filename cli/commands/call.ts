/**
 * `mnote-tools call`: the CLI JSON adapter. One request envelope on stdin, one response envelope on
 * stdout. Exit 0 whenever an envelope was written, ok or not, except one that says the kernel is
 * misconfigured (it refuses our token, its adapter cannot be started): that envelope is written and
 * the exit is 3 with one line, as the README's exit table promises for an operator's mistake;
 * otherwise non-zero only when no answer could be given at all. Stdin is read only up to the request size limit: past it the rest is not read
 * (memory stays bounded whatever is piped in) and the answer is payload_too_large.
 *
 * A `call` stopped by SIGTERM or SIGINT mid-write gives its idempotency claim up before it exits,
 * so a retry goes straight to the kernel (which replays or applies once); one killed outright
 * (SIGKILL) holds it only for the claim's short lease, which a heartbeat renews while it lives.
 */
import { kernelChoice, runtimeFrom, type RuntimeCliOptions } from "../runtime-options";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { environmentError } from "../exit";
import { stateLocation } from "../state-url";
import { startTelemetry } from "../../runtime/telemetry/sdk";
import { continueTrace, traceCarrierFromEnv } from "../../common/telemetry/propagation";
import type { Dispatcher } from "../../runtime/dispatch/dispatcher";

export async function runCall(opts: RuntimeCliOptions): Promise<void> {
  const { DEFAULT_LIMITS } = await import("../../runtime/dispatch/limits");
  const input = await readLimited(process.stdin, DEFAULT_LIMITS.maxBytes);
  if (input === undefined) {
    const { refusalResponse } = await import("../../runtime/dispatch/dispatcher");
    const { ERR } = await import("../../generated/registry");
    process.stdout.write(JSON.stringify(refusalResponse(ERR.payloadTooLarge)) + "\n");
    return;
  }
  // stdout carries the envelope: console spans go to stderr; TRACEPARENT (the caller's) is continued
  // one-shot: telemetry's shutdown is bounded short, so an unreachable collector never delays the answer
  const telemetry = await startTelemetry({ serviceName: "mnote-tools", consoleStream: process.stderr, oneShot: true });
  kernelChoice(opts); // two kernels named, or a missing database: said before the state's folder
  requireStateFolder(opts);
  const runtime = await runtimeFrom(opts);
  const stop = releaseOnSignal(runtime.dispatcher);
  try {
    const { response, delivery } = await continueTrace(traceCarrierFromEnv(), () =>
      runtime.dispatcher.dispatchTracked(input),
    );
    // the delivery rule (docs/RELIABILITY.md): the answer is delivered once stdout took it without
    // error; a caller that killed this process or closed the pipe first leaves the write uncertain
    if (await written(process.stdout, JSON.stringify(response) + "\n")) await delivery.delivered();
    const { ERR } = await import("../../generated/registry");
    if (!response.ok && response.error.code === ERR.kernelMisconfigured)
      throw environmentError(
        `the kernel is misconfigured (${response.error.reason ?? "see the envelope"}): check --kernel-url/--kernel-token or --kernel-cli`,
      );
  } finally {
    stop();
    await runtime.close();
    await telemetry?.shutdown();
  }
}

/**
 * A call reads its session grant from the state (unless --grants names a Redis): a state file in a
 * folder that does not exist holds none, so a mistyped --state would otherwise create the folder and
 * an empty state, and answer session_unknown. Refused instead, naming the path (exit 3), as --db is.
 */
function requireStateFolder(opts: RuntimeCliOptions): void {
  if (opts.grants) return;
  const location = stateLocation(opts.state);
  if (location.kind !== "file" || location.path === ":memory:") return;
  const folder = dirname(resolve(location.path));
  if (!existsSync(folder))
    throw environmentError(
      `--state ${location.path}: the folder ${folder} does not exist, so it holds no session grant (check --state; mnote-tools session grant --state ${location.path} creates it)`,
    );
}

/** Writes text; true once the stream took it without error (an EPIPE: the reader is gone). */
function written(stream: NodeJS.WritableStream, text: string): Promise<boolean> {
  return new Promise((resolve) => {
    const failed = () => resolve(false);
    stream.once("error", failed);
    stream.write(text, (error) => {
      stream.removeListener("error", failed);
      resolve(!error);
    });
  });
}

/** The conventional exit status of a process ended by a signal: 128 + its number. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Until the returned function is called: on SIGTERM or SIGINT, release the claims this process
 * holds, then exit with 128 + the signal's number (no envelope: the call did not finish).
 */
export function releaseOnSignal(dispatcher: Dispatcher): () => void {
  const handler = (signal: NodeJS.Signals) => {
    void dispatcher
      .releaseClaims()
      .catch(() => undefined) // the short lease frees what could not be released
      .finally(() => process.exit(SIGNAL_EXIT[signal] ?? 1));
  };
  for (const signal of Object.keys(SIGNAL_EXIT)) process.once(signal, handler);
  return () => {
    for (const signal of Object.keys(SIGNAL_EXIT)) process.removeListener(signal, handler);
  };
}

/** The whole stream, or undefined as soon as it passes maxBytes (then it is destroyed, not drained). */
export async function readLimited(
  stream: NodeJS.ReadableStream & { destroy?: () => void },
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += bytes.length;
    if (size > maxBytes) {
      stream.destroy?.();
      return undefined;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
