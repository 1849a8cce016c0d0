/**
 * The dispatcher's public shapes: its options, what it answers and the record it gives a log.
 * dispatcher.ts re-exports all of them; they live here so the steps can use them without
 * importing dispatcher.ts back.
 */
import type * as T from "../../generated/types";
import type { KernelClient } from "../../generated/kernel/client";
import type { MessageLocale, ToolDescriptor } from "../../generated/registry";
import type { GrantStore } from "../state/grants";
import type { IdempotencyStore } from "../state/idempotency-store";
import type { ApprovalPolicyIndex } from "../approval/policy";
import type { BudgetStore } from "../state/budget-store";
import type { ApprovalRecordStore } from "../approval/record";
import type { Limits } from "./limits";

/** The part of a kernel client the dispatcher uses. */
export type KernelPort = Pick<KernelClient, "accessCheck" | "commandStatus" | "call">;

export interface DispatcherOptions {
  kernel: KernelPort;
  grants: GrantStore;
  idempotency: IdempotencyStore;
  /** Where tools come from: the generated registry unless a test brings another contract's. */
  toolByName?: (name: string) => ToolDescriptor | undefined;
  limits?: Partial<Limits>;
  /** How long a keyed write is remembered (default 24 h). */
  idempotencyTtlMs?: number;
  /** How long a claim holds without a heartbeat (default 5 s; renewed every third of it while its write runs); past it a retry may take over. */
  leaseMs?: number;
  /** How long the key of an uncertain write is remembered for a model's retry (default 6 h, well inside the idempotency window). */
  uncertainTtlMs?: number;
  /** At most this many uncertain writes remembered per session (default 64); the oldest go first. */
  uncertainPerSession?: number;
  /** Longest wait for one kernel call before answering kernel_unavailable (default 15 s); null for an in-process kernel that cannot hang. */
  kernelTimeoutMs?: number | null;
  /**
   * When a write's answer is lost, how long the runtime keeps asking the kernel (its status command)
   * whether it was applied before answering outcome_unknown (default 3 s).
   */
  reconcileMs?: number;
  defaultLocale?: MessageLocale;
  now?: () => number;
  /** Called when the idempotency store fails (the write then relies on the kernel's record). */
  onStoreError?: (error: unknown) => void;
  /** Called once per call with facts for a log line (never page content). */
  onCall?: (record: CallRecord) => void;
  /**
   * Where the budget counters live (runtime/state/budget-*.ts; docs/RELIABILITY.md, "Budgets").
   * Absent: no budgets are counted (createRuntime always gives one: the state file's, or the shared store's).
   */
  budgets?: BudgetStore | null;
  /** Human approval (docs/APPROVAL.md): the host's secret and policy. */
  approval?: ApprovalOptions;
}

export interface ApprovalOptions {
  /** The HMAC key approval tokens are signed with (at least 32 bytes); default: random, this process only. */
  secret?: Buffer;
  /** The host policy over the contract's levels (default: none). */
  policy?: ApprovalPolicyIndex;
  /** How long an approval token is good for (default 10 min). */
  ttlMs?: number;
  /** Where approval records live (runtime/approval/record.ts): the runtime's shared store. */
  records?: ApprovalRecordStore;
}

/** Default life of an approval token. */
export const DEFAULT_APPROVAL_TTL_MS = 10 * 60 * 1000;
/** Default lease of a claim; the heartbeat renews it every third. */
export const DEFAULT_LEASE_MS = 5_000;
/** Default life of a remembered uncertain write: well inside the 24 h idempotency window. */
export const DEFAULT_UNCERTAIN_TTL_MS = 6 * 60 * 60 * 1000;
/** Default cap of remembered uncertain writes per session. */
export const DEFAULT_UNCERTAIN_PER_SESSION = 64;

export interface CallRecord {
  toolName: string | null;
  toolCallId: string | null;
  traceId: string | null;
  sessionId: string | null;
  ok: boolean;
  code: string | null;
  effect: T.AuditEffect;
  commandId: string | null;
  replayed: boolean;
  ms: number;
  /** Why the kernel cannot be used (kernel_misconfigured only): for the operator's log, never a token. */
  cause?: string;
  /** The approval decision, when the call's level was ask or deny. */
  approval?: T.ApprovalAudit;
  /** Why an approval decision refused the call (the error's reason: policy, declined, timed_out, ...). */
  reason?: string;
}

/** The transport's side of the delivery rule (steps/uncertain.ts and docs/RELIABILITY.md). */
export interface Delivery {
  /**
   * Call once the caller has received the response (and only then): a write's uncertain slot is
   * released, so the same call made again on purpose is a new write. Never call it for an answer
   * that may not have arrived. Idempotent; never rejects; a no-op for anything but a write's success.
   */
  delivered(): Promise<void>;
}

/** A response and its delivery handle. */
export interface Dispatched {
  response: T.ToolResponse;
  delivery: Delivery;
}

export interface Dispatcher {
  /**
   * Raw request text (or a parsed value) in, response envelope out, for a caller in this process:
   * the answer is counted as delivered when it is returned. Never throws.
   */
  dispatch(input: unknown): Promise<T.ToolResponse>;
  /**
   * The same for a transport (HTTP, stdio, a child process's stdout): the caller counts as having
   * the answer only when the transport calls delivery.delivered(). Never throws.
   */
  dispatchTracked(input: unknown): Promise<Dispatched>;
  /**
   * Gives up every idempotency claim held right now (a process about to exit on a signal): a retry
   * then reaches the kernel at once, whose own record makes it replay or apply once.
   */
  releaseClaims(): Promise<void>;
}
