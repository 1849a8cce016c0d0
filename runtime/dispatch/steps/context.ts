/**
 * What every step of a call works over: the dispatcher's resolved options (DispatchDeps, one per
 * dispatcher) and the call being served (ToolCall, one per request), plus the plain data a step
 * hands the next (Outcome, UncertainSlot, Approved). Types and the defaults only: no rule here.
 */
import { randomBytes } from "node:crypto";
import type * as T from "../../../generated/types";
import {
  toolByName as generatedToolByName,
  type KernelCommandName,
  type MessageLocale,
  type ToolDescriptor,
} from "../../../generated/registry";
import type { GrantStore } from "../../state/grants";
import type { IdempotencyStore } from "../../state/idempotency-store";
import type { BudgetStore } from "../../state/budget-store";
import { EMPTY_POLICY, type ApprovalPolicyIndex } from "../../approval/policy";
import type { ApprovalRecordStore } from "../../approval/record";
import { DEFAULT_LIMITS, type Limits } from "../limits";
import {
  DEFAULT_APPROVAL_TTL_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_UNCERTAIN_PER_SESSION,
  DEFAULT_UNCERTAIN_TTL_MS,
  type CallRecord,
  type DispatcherOptions,
  type KernelPort,
} from "../api";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A dispatcher's options with every default filled in, and the state it keeps across calls. */
export interface DispatchDeps {
  kernel: KernelPort;
  grants: GrantStore;
  idempotency: IdempotencyStore;
  /** The budget counters (steps/budget.ts); null: none counted. */
  budgets: BudgetStore | null;
  toolByName: (name: string) => ToolDescriptor | undefined;
  limits: Limits;
  idempotencyTtlMs: number;
  leaseMs: number;
  uncertainTtlMs: number;
  uncertainPerSession: number;
  kernelTimeoutMs: number | null;
  reconcileMs: number;
  defaultLocale: MessageLocale;
  now: () => number;
  onStoreError?: (error: unknown) => void;
  onCall?: (record: CallRecord) => void;
  approval: { secret: Buffer; policy: ApprovalPolicyIndex; ttlMs: number; records?: ApprovalRecordStore };
  /** Claims held by writes running now: what releaseClaims gives up. */
  held: Map<string, { scope: string; token: string }>;
  /** Slots being released right now: a write of the same slot waits for it (a caller's next call may come quickly). */
  releasing: Map<string, Promise<void>>;
}

export function dispatchDeps(options: DispatcherOptions): DispatchDeps {
  return {
    kernel: options.kernel,
    grants: options.grants,
    idempotency: options.idempotency,
    budgets: options.budgets ?? null,
    toolByName: options.toolByName ?? generatedToolByName,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    idempotencyTtlMs: options.idempotencyTtlMs ?? DAY_MS,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    uncertainTtlMs: options.uncertainTtlMs ?? DEFAULT_UNCERTAIN_TTL_MS,
    uncertainPerSession: options.uncertainPerSession ?? DEFAULT_UNCERTAIN_PER_SESSION,
    kernelTimeoutMs: options.kernelTimeoutMs === undefined ? 15_000 : options.kernelTimeoutMs,
    reconcileMs: options.reconcileMs ?? 3_000,
    defaultLocale: options.defaultLocale ?? "zh-CN",
    now: options.now ?? Date.now,
    onStoreError: options.onStoreError,
    onCall: options.onCall,
    approval: {
      secret: options.approval?.secret ?? randomBytes(32),
      policy: options.approval?.policy ?? EMPTY_POLICY,
      ttlMs: options.approval?.ttlMs ?? DEFAULT_APPROVAL_TTL_MS,
      records: options.approval?.records,
    },
    held: new Map(),
    releasing: new Map(),
  };
}

/** A store that failed: reported, and the call goes on without it (the kernel is the guard). */
export function storeError(deps: DispatchDeps, e: unknown): undefined {
  deps.onStoreError?.(e);
  return undefined;
}

/** A validated request on its way through the steps, with what the steps before found out. */
export interface ToolCall {
  tool: ToolDescriptor;
  request: T.ToolRequest;
  /** The kernel's view of who calls, from where (the request's trusted fields). */
  context: T.KernelContext;
  command: KernelCommandName;
  locale: MessageLocale;
}

/** What a call that succeeded produced, before it is wrapped in a response. */
export interface Outcome {
  result: Record<string, unknown>;
  effect: Exclude<T.AuditEffect, "none">;
  commandId: string | null;
  replayed: boolean;
  approval?: T.ApprovalAudit;
  /** A keyOrigin "tool_call" write's slot, released when its answer is delivered. */
  undelivered?: UncertainSlot;
}

/** Where an uncertain write is remembered: its session's slot, holding key. */
export interface UncertainSlot {
  sessionId: string;
  slot: string;
  key: string;
}

/** The idempotency facts of one write: its key, the scope that key makes, the request's fingerprint. */
export interface Keyed {
  key: string;
  scope: string;
  fingerprint: string;
}

/**
 * What runs once a write's scope is known, before its claim is taken: the approval step uses its
 * token up there, by that scope, and hands on the request to write (with the previewed revision).
 */
export type BeforeClaim = (call: ToolCall, keyed: Keyed) => Promise<ToolCall>;
