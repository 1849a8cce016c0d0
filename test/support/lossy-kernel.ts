/**
 * A runtime over an in-process reference kernel reached through the wire protocol (every payload
 * and reply checked against the contract), with a fault per kernel command: "lose" runs the command
 * and then loses its answer (the kernel committed, the runtime never hears it), "fail" refuses to
 * deliver it (a connection reset: the kernel never sees it). With command.status failing too, a
 * lost write answer is outcome_unknown: the uncertain write a model retries.
 */
import { createDispatcher, type Dispatcher, type DispatcherOptions } from "../../runtime/dispatch/dispatcher";
import { createKernelClient } from "../../generated/kernel/client";
import { KernelTransportError, type KernelTransport } from "../../generated/kernel/transport";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { executeCommand } from "../../kernel/protocol";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import type { IdempotencyStore } from "../../runtime/state/idempotency-store";
import { openDatabase, type Db } from "../../common/sqlite";
import { demoSeed, hashTables } from "./runtime";
import { allowAllPolicy } from "./approval";

export type WireFault = "pass" | "lose" | "fail";

export interface LossyRuntime {
  dispatcher: Dispatcher;
  kernel: ReferenceKernel;
  grants: SqliteGrantStore;
  state: Db;
  idempotency: IdempotencyStore;
  /** Every kernel command sent, in order. */
  sent: string[];
  kernelStateHash(): string;
  count(table: string, where?: string): number;
}

/** The session every lossy runtime grants: the demo workspace's owner on doc_1, every scope. */
export const LOSSY_SESSION = {
  sessionId: "s_owner",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write", "artifact.write"],
};

/**
 * A runtime whose kernel answers per `fault` (default: every command passes). `statePath` lets two
 * runtimes share one state file (a restarted host, another instance); `idempotency` swaps the store.
 */
export async function lossyRuntime(
  fault: (command: string, payload: unknown) => WireFault = () => "pass",
  options: {
    statePath?: string;
    kernel?: ReferenceKernel;
    idempotency?: IdempotencyStore;
    dispatcher?: Partial<DispatcherOptions>;
  } = {},
): Promise<LossyRuntime> {
  let kernel = options.kernel;
  if (!kernel) {
    kernel = new ReferenceKernel();
    seedKernel(kernel, demoSeed());
  }
  const k = kernel;
  const sent: string[] = [];
  const transport: KernelTransport = async (command, payload) => {
    sent.push(command);
    const mode = fault(command, payload);
    if (mode === "fail") throw new KernelTransportError("unavailable", `${command}: connection reset`);
    const reply = executeCommand(k, command, payload);
    if (mode === "lose") throw new KernelTransportError("timeout", `${command}: the answer was lost`);
    return reply;
  };
  const state = openDatabase(options.statePath ?? ":memory:");
  const grants = new SqliteGrantStore(state);
  await grants.put({
    ...LOSSY_SESSION,
    capabilityScope: LOSSY_SESSION.capabilityScope as never,
    expiresAt: new Date(Date.now() + 3600e3).toISOString(),
  });
  const idempotency = options.idempotency ?? new SqliteIdempotencyStore(state);
  const dispatcher = createDispatcher({
    kernel: createKernelClient(transport),
    grants,
    idempotency,
    kernelTimeoutMs: 5_000,
    reconcileMs: 200,
    ...options.dispatcher,
  });
  return {
    dispatcher,
    kernel: k,
    grants,
    state,
    idempotency,
    sent,
    kernelStateHash: () => hashTables(k),
    count: (table, where = "1 = 1") =>
      (k.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n,
  };
}

/** Whether a kernel payload is a real write (not a read or a dry run). */
export const isRealWrite = (payload: unknown): boolean => Boolean((payload as { write?: unknown }).write);
