/**
 * Assembles a runtime: the dispatcher over a kernel (the embedded reference kernel, or a remote one
 * through the generated HTTP or CLI client) and the runtime's own state (session grants and
 * idempotency records in a SQLite file, or an in-memory one for tests).
 */
import { createKernelClient } from "../generated/kernel/client";
import { cliTransport, httpTransport } from "../generated/kernel/transport";
import { createDispatcher, type Dispatcher, type DispatcherOptions, type KernelPort } from "./dispatch/dispatcher";
import { ReferenceKernel } from "../kernel/reference-kernel";
import { SqliteGrantStore, type GrantStore } from "./state/grant-store";
import { SqliteIdempotencyStore } from "./state/sqlite-idempotency-store";
import type { IdempotencyStore } from "./state/idempotency-store";
import { SqliteBudgetStore } from "./state/budget-sqlite";
import { openDatabase, type Db } from "../common/sqlite";
import { tracedTransport } from "./telemetry/kernel-client";
import { currentTraceFields } from "../common/telemetry/propagation";
import { stateSecret } from "./approval/secret";
import { privateStateFile } from "./approval/state-file";
import type { ApprovalRecordStore } from "./approval/record";
import { SqliteApprovalRecords } from "./state/approval-sqlite";

export type KernelChoice =
  | { kind: "embedded"; path: string }
  | { kind: "http"; url: string; token?: string; timeoutMs?: number }
  | { kind: "cli"; command: string; args?: string[]; timeoutMs?: number };

export interface RuntimeOptions extends Omit<DispatcherOptions, "kernel" | "grants" | "idempotency"> {
  kernel: KernelChoice;
  /** The runtime's state file (grants, idempotency records), or ":memory:". */
  statePath: string;
  /** Another idempotency store (e.g. Redis) instead of the state file's. */
  idempotency?: IdempotencyStore;
  /** Another grant store (e.g. Redis, shared by several instances) instead of the state file's. */
  grants?: GrantStore;
}

export interface Runtime {
  dispatcher: Dispatcher;
  grants: GrantStore;
  /** The runtime's state database (grants and, with the embedded store, idempotency records). */
  state: Db;
  /** The embedded kernel, when there is one (for seeding and inspection). */
  embeddedKernel?: ReferenceKernel;
  kernel: KernelPort;
  /** The one clock every time comparison of this runtime uses (grant liveness, idempotency expiry). */
  now: () => number;
  /** The key approval tokens are signed with (the MCP server derives its requestState key from it). */
  approvalSecret: Buffer;
  /** Where approval records live (the approval page reads and answers them). */
  approvalRecords: ApprovalRecordStore;
  close(): Promise<void>;
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const now = options.now ?? Date.now;
  // the state file may keep the approval key: created 0600, refused when others can read it
  privateStateFile(options.statePath, options.approval?.secret === undefined);
  const state = openDatabase(options.statePath);
  const grants = options.grants ?? new SqliteGrantStore(state, now);
  const idempotency: IdempotencyStore = options.idempotency ?? new SqliteIdempotencyStore(state, now);
  // the budget counters: the shared store's when one is given (null: none), else the state file's
  const budgets = options.budgets !== undefined ? options.budgets : new SqliteBudgetStore(state, now);
  let embeddedKernel: ReferenceKernel | undefined;
  let kernel: KernelPort;
  const choice = options.kernel;
  if (choice.kind === "embedded") {
    embeddedKernel = new ReferenceKernel({ path: choice.path, now });
    kernel = embeddedKernel;
  } else if (choice.kind === "http") {
    // traceContext: each command carries the W3C context of its CLIENT span (runtime/telemetry)
    kernel = createKernelClient(
      tracedTransport(
        httpTransport({
          url: choice.url,
          token: choice.token,
          timeoutMs: choice.timeoutMs,
          traceContext: currentTraceFields,
        }),
        "http",
      ),
    );
  } else {
    kernel = createKernelClient(
      tracedTransport(
        cliTransport({
          command: choice.command,
          args: choice.args,
          timeoutMs: choice.timeoutMs,
          traceContext: currentTraceFields,
        }),
        "cli",
      ),
    );
  }
  // the embedded kernel answers synchronously: no timer race around it
  const kernelTimeoutMs =
    choice.kind === "embedded" && options.kernelTimeoutMs === undefined ? null : options.kernelTimeoutMs;
  // the tokens' key: the host's, else the state file's own (runtime/approval/secret.ts)
  const approval = {
    ...options.approval,
    secret: options.approval?.secret ?? stateSecret(state),
    // approval records beside the nonces: the host's store (Redis, Postgres), else the state file's
    records: options.approval?.records ?? idempotency.approvalRecords?.(now) ?? new SqliteApprovalRecords(state, now),
  };
  const dispatcher = createDispatcher({
    ...options,
    now,
    kernelTimeoutMs,
    kernel,
    grants,
    idempotency,
    approval,
    budgets,
  });
  return {
    dispatcher,
    grants,
    state,
    embeddedKernel,
    kernel,
    now,
    approvalSecret: approval.secret,
    approvalRecords: approval.records,
    async close() {
      await idempotency.close();
      if (options.approval?.records) await options.approval.records.close?.();
      if (options.grants) await options.grants.close?.();
      if (options.budgets) await options.budgets.close?.();
      embeddedKernel?.close();
      state.close();
    },
  };
}
