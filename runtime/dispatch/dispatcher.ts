/**
 * dispatch(request) -> response: the design note's rules, generic over the generated registry.
 * Parse with limits, validate the envelope, route by toolName, validate the request, resolve the
 * session grant, check scope, authorize with the kernel, refuse unwired options, then dry-run,
 * read, or write under an idempotency claim; map every error to a failure envelope; validate the
 * response. Nothing here names a tool: a tool added to the contract is served as it is.
 *
 * A write's claim holds a short lease (leaseMs, default 5 s) that a heartbeat renews every third
 * of it while the write runs, so a process killed mid-write frees the key within one lease; a
 * process stopped by a signal releases its claims at once (releaseClaims).
 *
 * A full or read-only disk, an I/O error or a store busy past its timeout (in the kernel or the
 * runtime's own stores) is mnote_tool_store_unavailable, retryable: the kernel's transaction wrote
 * nothing, and the claim is released (if the release fails too, the short lease frees the key).
 *
 * Uncertain writes are remembered here, not by the host (keyOrigin "tool_call": the host derived
 * the key from a model's tool call, and a model's retry is a new tool call with a new key): before
 * a write, the key remembered for its slot (session, identity, tool, request fingerprint) is used
 * instead of the request's.
 *
 * The delivery rule (docs/RELIABILITY.md): a write stays uncertain until a caller has RECEIVED its
 * outcome. That the kernel committed it is not enough: a caller that hung up (its timeout, a killed
 * host, a dropped connection) never saw it, and its retry (a new tool call, a new key) must replay
 * it, not write again. So the slot -> key is remembered in the state store before the write runs
 * (a process killed mid-write leaves it there too), kept on every retryable answer, forgotten at
 * once on a definite failure (nothing was written), and after a success released only when the
 * transport confirms the answer reached its caller: dispatchTracked() returns the response with a
 * Delivery whose delivered() the transport calls then (an HTTP response's 'finish' with no 'close'
 * before it, a stdout write's callback without error). dispatch() is the in-process form: returning
 * the value is the delivery. A success never confirmed stays remembered for uncertainTtlMs (6 h):
 * within that time the same call made again replays; that is the price of never writing twice.
 */
import type * as T from "../../generated/types";
import type { KernelClient, KernelCommandMap } from "../../generated/kernel/client";
import {
  KernelMisconfigured,
  KernelRefusal,
  KernelTransportError,
  type KernelMisconfigurationKind,
} from "../../generated/kernel/transport";
import {
  capabilities,
  ERR,
  errorCatalog,
  toolByName as generatedToolByName,
  type ErrorReason,
  type KernelCommandName,
  type MessageLocale,
  type ToolDescriptor,
} from "../../generated/registry";
import {
  validateIdentifier,
  validateToolName,
  validateToolRequest,
  validateToolResponse,
} from "../../generated/validators";
import type { GrantStore } from "../state/grant-store";
import type { IdempotencyStore } from "../state/idempotency-store";
import { DEFAULT_LIMITS, readRequest, type Limits } from "./limits";
import { isErrorCode, messageFor, refuse, ToolFailure } from "./tool-failure";
import { commandIdFor, idempotencyScope, requestFingerprint, uncertainSlot } from "./keys";
import { isStoreUnavailable } from "../../common/sqlite";
import { invalidInput, ruleMessage } from "./problems";
import { getAtPointer } from "../../common/json-pointer";
import { isPlainObject } from "../../common/values";
import { isGrantLive } from "../../common/grant-liveness";
import { withToolSpan, type ToolSpan } from "../telemetry/tool-span";
import { capabilityNeeds } from "./capability-needs";
import { effectiveLevel } from "../approval/level";
import { EMPTY_POLICY, type ApprovalPolicyIndex } from "../approval/policy";
import { checkApproval, newNonce, signApproval, storeBoundKey, type ApprovalClaims } from "../approval/token";
import { previewOf } from "../approval/preview";
import { previewText } from "../approval/preview-text";
import { randomBytes } from "node:crypto";

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
}

/** Default life of an approval token. */
export const DEFAULT_APPROVAL_TTL_MS = 10 * 60 * 1000;
/** How much longer than its token a used nonce is kept: clocks of instances differ a little. */
const NONCE_MARGIN_MS = 60_000;

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

/** The transport's side of the delivery rule (see the top of this file and docs/RELIABILITY.md). */
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

interface Echo {
  toolName: string | null;
  toolCallId: string | null;
  traceId: string | null;
  workspaceId: string | null;
  documentId: string | null;
  sessionId: string | null;
}

interface Outcome {
  result: Record<string, unknown>;
  effect: Exclude<T.AuditEffect, "none">;
  commandId: string | null;
  replayed: boolean;
  approval?: T.ApprovalAudit;
  /** A keyOrigin "tool_call" write's slot, released when its answer is delivered. */
  undelivered?: UncertainSlot;
}

/** Where an uncertain write is remembered: its session's slot, holding key. */
interface UncertainSlot {
  sessionId: string;
  slot: string;
  key: string;
}

/** A delivery with nothing to release (a read, a failure, an in-process answer already counted). */
const NOTHING_TO_DELIVER: Delivery = { delivered: () => Promise.resolve() };

/** A verified approval on its way to the write it approves. */
interface Approved {
  claims: ApprovalClaims;
  approvedBy: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Default lease of a claim; the heartbeat renews it every third. */
export const DEFAULT_LEASE_MS = 5_000;
/** Default life of a remembered uncertain write: well inside the 24 h idempotency window. */
export const DEFAULT_UNCERTAIN_TTL_MS = 6 * 60 * 60 * 1000;
/** Default cap of remembered uncertain writes per session. */
export const DEFAULT_UNCERTAIN_PER_SESSION = 64;

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const toolByName = options.toolByName ?? generatedToolByName;
  const ttlMs = options.idempotencyTtlMs ?? DAY_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const uncertainTtlMs = options.uncertainTtlMs ?? DEFAULT_UNCERTAIN_TTL_MS;
  const uncertainPerSession = options.uncertainPerSession ?? DEFAULT_UNCERTAIN_PER_SESSION;
  /** Claims held by writes running now: what releaseClaims gives up. */
  const held = new Map<string, { scope: string; token: string }>();
  const kernelTimeoutMs = options.kernelTimeoutMs === undefined ? 15_000 : options.kernelTimeoutMs;
  const now = options.now ?? Date.now;
  const reconcileMs = options.reconcileMs ?? 3_000;
  const approvalSecret = options.approval?.secret ?? randomBytes(32);
  const approvalPolicy = options.approval?.policy ?? EMPTY_POLICY;
  const approvalTtlMs = options.approval?.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;

  /** Slots being released right now: a write of the same slot waits for it (a caller's next call may come quickly). */
  const releasing = new Map<string, Promise<void>>();

  /** Every call is one `execute_tool` span (runtime/telemetry); a no-op when tracing is off. */
  async function dispatchTracked(input: unknown): Promise<Dispatched> {
    let delivery = NOTHING_TO_DELIVER;
    const response = await withToolSpan(async (span) => {
      const dispatched = await dispatchCall(input, span);
      delivery = dispatched.delivery;
      return dispatched.response;
    });
    return { response, delivery };
  }

  async function dispatch(input: unknown): Promise<T.ToolResponse> {
    const { response, delivery } = await dispatchTracked(input);
    await delivery.delivered();
    return response;
  }

  /** The delivery of a response: releases the slot of a write that succeeded, once. */
  function deliveryOf(response: T.ToolResponse, undelivered: UncertainSlot | undefined): Delivery {
    if (!response.ok || !undelivered) return NOTHING_TO_DELIVER;
    let done: Promise<void> | undefined;
    return {
      delivered: () => {
        done ??= releaseSlot(undelivered);
        return done;
      },
    };
  }

  function releaseSlot(u: UncertainSlot): Promise<void> {
    const id = `${u.sessionId}\u0000${u.slot}`;
    const job = options.idempotency
      .forgetUncertain(u.sessionId, u.slot, u.key)
      .catch(storeError)
      .finally(() => {
        if (releasing.get(id) === job) releasing.delete(id);
      });
    releasing.set(id, job);
    return job;
  }

  async function dispatchCall(input: unknown, span: ToolSpan): Promise<Dispatched> {
    const started = now();
    let echo: Echo = {
      toolName: null,
      toolCallId: null,
      traceId: null,
      workspaceId: null,
      documentId: null,
      sessionId: null,
    };
    let tool: ToolDescriptor | undefined;
    let locale: MessageLocale = options.defaultLocale ?? "zh-CN";
    let response: T.ToolResponse;
    let cause: string | undefined;
    let undelivered: UncertainSlot | undefined;
    try {
      const request = readRequest(input, limits);
      if (isPlainObject(request) && (request.locale === "en" || request.locale === "zh-CN")) locale = request.locale;
      tool = isPlainObject(request) && typeof request.toolName === "string" ? toolByName(request.toolName) : undefined;
      if (tool) span.identify(tool);
      // The tool's own validator checks the envelope too: the envelope's alone runs only to name
      // an envelope problem first, or when there is no tool to ask.
      if (!tool?.validateRequest(request)) {
        echo = echoOf(request);
        if (!validateToolRequest(request)) throw invalidInput(validateToolRequest.errors);
        if (!tool) refuse(ERR.unknownTool);
        throw invalidInput(tool.validateRequest.errors);
      }
      echo = validatedEcho(request);
      const grant = await resolveGrant(request);
      locale = request.locale ?? grant.locale ?? locale;
      const outcome = await run(tool, request, locale);
      undelivered = outcome.undelivered;
      response = success(echo, outcome);
    } catch (e) {
      response = failure(echo, e, tool, locale);
      if (e instanceof KernelMisconfigured) cause = e.message;
    }
    response = checked(response, tool, echo, locale);
    options.onCall?.(record(echo, response, now() - started, cause));
    return { response, delivery: deliveryOf(response, undelivered) };
  }

  /** The trusted binding: a live grant for the session that agrees with the request. */
  async function resolveGrant(request: T.ToolRequest): Promise<T.SessionGrant> {
    // a store that says "retry later" (SQLite busy, Postgres down) is that; any other failure, unavailable
    const grant = await options.grants
      .get(request.sessionId)
      .catch((e: unknown) => refuse(isStoreUnavailable(e) ? ERR.storeUnavailable : ERR.unavailable));
    if (!grant) refuse(ERR.notAuthenticated, "session_unknown");
    if (!isGrantLive(grant, now())) refuse(ERR.notAuthenticated, "session_expired");
    const agrees =
      grant.workspaceId === request.workspaceId &&
      grant.documentId === request.documentId &&
      grant.actorId === request.actorId &&
      request.capabilityScope.every((scope) => grant.capabilityScope.includes(scope));
    if (!agrees) refuse(ERR.permissionDenied, "session_mismatch");
    return grant;
  }

  async function run(tool: ToolDescriptor, request: T.ToolRequest, locale: MessageLocale): Promise<Outcome> {
    // The request's scope (already within the grant's) must hold the capability and everything it
    // requires: a session granted a write capability without the read it requires may not replace a page, nor
    // learn its revision and block count from a dry run.
    for (const needed of capabilityNeeds(tool.capability)) {
      if (!request.capabilityScope.includes(needed)) refuse(ERR.permissionDenied, "scope");
    }
    const context: T.KernelContext = {
      workspaceId: request.workspaceId,
      documentId: request.documentId,
      actorId: request.actorId,
      traceId: request.traceId,
      sessionId: request.sessionId,
      runId: request.runId,
      toolCallId: request.toolCallId,
    };
    await authorize(tool, context);
    const args = request.args;
    const level = effectiveLevel(tool, request.sessionId, args as Record<string, unknown>, approvalPolicy);
    // deny holds for everything the tool does, its dry run included
    if (level === "deny")
      throw new ToolFailure(ERR.approvalDenied, { reason: "policy", decision: { decision: "denied", level } });
    const unwired = tool.unwiredFields.filter((f) => getAtPointer(args, f.pointer) !== undefined);
    const command = tool.kernelCommand;

    if (tool.dryRun === "required" && request.dryRun === true) {
      const reply = await kernelCall(command, { context, args, dryRun: true });
      const result = reply.result as Record<string, unknown>;
      if (unwired.length > 0) {
        result.warnings = unwired.map((f) => ({
          code: ERR.unsupportedOption,
          message: messageFor(ERR.unsupportedOption, undefined, tool, locale),
          field: f.field,
        }));
      }
      return { result, effect: "dry_run", commandId: null, replayed: false };
    }
    if (unwired.length > 0) refuse(ERR.unsupportedOption, undefined, { field: unwired[0]!.field });
    if (tool.effect === "read") {
      const reply = await kernelCall(command, { context, args });
      return { result: reply.result as Record<string, unknown>, effect: "read", commandId: null, replayed: false };
    }
    if (level === "ask") return approvedOrReplayed(tool, request, context, command, locale);
    return write(tool, request, context, command);
  }

  /**
   * An ask-level write: approve, then write. A token that expired may belong to a write that
   * committed and whose answer was lost: the kernel is asked first, and that write's retry replays
   * its committed result instead of approval_expired (which is not retryable, so the model would
   * stop there and never learn that the write happened).
   */
  async function approvedOrReplayed(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    locale: MessageLocale,
  ): Promise<Outcome> {
    let approval: Approved | { outcome: Outcome };
    try {
      approval = await approve(tool, request, context, command, locale);
    } catch (e) {
      if (!(e instanceof ToolFailure && e.code === ERR.approvalExpired)) throw e;
      const replay = await committedReplay(tool, request, context, command);
      if (!replay) throw e;
      return replay;
    }
    // an outcome without a write: nothing would change (answered as the dry run shows)
    return "outcome" in approval ? approval.outcome : write(tool, request, context, command, approval);
  }

  /** The committed result of this exact write (its key, or its slot's), from the kernel's record; undefined when none or unknown. */
  async function committedReplay(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
  ): Promise<Outcome | undefined> {
    const fingerprint = requestFingerprint(request.documentId, request.args);
    const slot = request.keyOrigin === "tool_call" ? slotOf(tool, request, fingerprint) : undefined;
    const remembered = slot
      ? await options.idempotency.uncertainKey(slot.sessionId, slot.slot).catch(storeError)
      : undefined;
    const key = remembered ?? request.idempotencyKey!;
    const scope = idempotencyScope({
      workspaceId: request.workspaceId,
      actorId: request.actorId,
      toolName: tool.name,
      idempotencyKey: key,
    });
    const status = await withTimeout(
      options.kernel.commandStatus({
        context,
        commandId: commandIdFor(command, scope),
        idempotencyScope: scope,
        fingerprint,
      }),
    ).catch(() => undefined);
    const s = status?.result;
    if (!s?.applied || s.commandId === null || s.result === null) return undefined;
    return {
      result: s.result,
      effect: "write",
      commandId: s.commandId,
      replayed: true,
      ...(slot ? { undelivered: { ...slot, key } } : {}),
    };
  }

  function slotOf(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    fingerprint: string,
  ): { sessionId: string; slot: string } {
    const slot = uncertainSlot({
      sessionId: request.sessionId,
      workspaceId: request.workspaceId,
      actorId: request.actorId,
      toolName: tool.name,
      fingerprint,
    });
    return { sessionId: request.sessionId, slot };
  }

  /**
   * A write whose level is ask. Without a token: the tool's own dry run becomes the preview, and
   * the answer is approval_required with a token bound to this session, tool, args and the
   * previewed revision. With one: the token checked (signature, binding, expiry); it is used up
   * by the write itself (keyedWrite), which carries the previewed revision to the kernel. A call
   * whose dry run plans no change asks nobody: it is answered with that dry run (decision unchanged).
   */
  async function approve(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    locale: MessageLocale,
  ): Promise<Approved | { outcome: Outcome }> {
    const fingerprint = requestFingerprint(request.documentId, request.args);
    const level = "ask" as const;
    if (!request.approval) {
      const reply = await kernelCall(command, { context, args: request.args, dryRun: true });
      const result = reply.result as Record<string, unknown>;
      const preview = previewOf(result);
      // nothing would change: nothing to approve, and nothing to write
      if (preview.ops.length === 0)
        return {
          outcome: {
            result,
            effect: "dry_run",
            commandId: null,
            replayed: false,
            approval: { decision: "unchanged", level },
          },
        };
      // no revision to bind (the contract's baseRevision is optional): a token could write unbound
      if (preview.revision === undefined || tool.revisionField === null) refuse(ERR.kernelMisconfigured, "no_revision");
      const expiresAt = now() + approvalTtlMs;
      const token = signApproval(await approvalKey(), {
        sessionId: request.sessionId,
        toolName: tool.name,
        fingerprint,
        revision: preview.revision,
        expiresAt,
        nonce: newNonce(),
      });
      throw new ToolFailure(ERR.approvalRequired, {
        approval: {
          preview,
          summary: previewText(preview, locale),
          token,
          expiresAt: new Date(expiresAt).toISOString(),
        },
        decision: { decision: "required", level },
      });
    }
    const check = checkApproval(await approvalKey(), request.approval.token, {
      sessionId: request.sessionId,
      toolName: tool.name,
      fingerprint,
      now: now(),
    });
    if (!check.ok) {
      if (check.problem === "expired")
        throw new ToolFailure(ERR.approvalExpired, { decision: { decision: "expired", level } });
      throw new ToolFailure(ERR.approvalInvalid, { reason: check.problem, decision: { decision: "invalid", level } });
    }
    const { answer } = request.approval;
    if (answer !== undefined) {
      // the person did not say yes (or could not be asked): recorded, the token used up, nothing written
      const ttl = Math.max(0, check.claims.expiresAt - now()) + NONCE_MARGIN_MS;
      await options.idempotency.consumeApproval(check.claims.nonce, "not_approved", ttl).catch(storeError);
      throw new ToolFailure(ERR.approvalDenied, { reason: answer, decision: { decision: "denied", level } });
    }
    // a token bound to no revision (made before this check existed) would write unbound
    if (check.claims.revision === null || tool.revisionField === null) refuse(ERR.kernelMisconfigured, "no_revision");
    return { claims: check.claims, approvedBy: request.approval.approvedBy ?? request.actorId };
  }

  /**
   * The key approval tokens are signed with: the host's secret bound to the identity of the store
   * that uses their nonces up (IdempotencyStore.storeId). Instances that share the secret but not
   * the nonce store cannot honour each other's tokens (one yes is never two writes, silently), and
   * a store that forgot everything (a Redis restarted without persistence) has a new identity, so
   * the tokens whose nonces it forgot are invalid too. Read at every approval, never cached.
   */
  async function approvalKey(): Promise<Buffer> {
    const store = options.idempotency;
    if (!store.storeId) return approvalSecret;
    const id = await store.storeId().catch((e: unknown) => {
      options.onStoreError?.(e);
      return refuse(ERR.storeUnavailable);
    });
    return storeBoundKey(approvalSecret, id);
  }

  /** The design note's check points, answered by the kernel: signed in, member, the capability and what it requires. */
  async function authorize(tool: ToolDescriptor, context: T.KernelContext): Promise<void> {
    const access = (await withTimeout(options.kernel.accessCheck({ context }))).result;
    if (!access.authenticated) refuse(ERR.notAuthenticated);
    if (!access.member) refuse(ERR.permissionDenied, "not_member");
    for (const needed of capabilityNeeds(tool.capability)) {
      if (!access.granted.includes(needed))
        throw new ToolFailure(ERR.permissionDenied, { reason: capabilities[needed].deniedReason });
    }
  }

  /**
   * A keyed write. With keyOrigin "tool_call" the key of an earlier uncertain write of the same slot
   * wins over the request's, and the slot holds this write's key from before it runs until its
   * answer is delivered (the delivery rule, top of file): a retryable answer keeps it, a definite
   * failure forgets it (nothing was written), a success leaves it to the Delivery. An answer about
   * something else than this key (the kernel refusing access before it looked at its records)
   * leaves the slot as it was.
   */
  async function write(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    approved?: Approved,
  ): Promise<Outcome> {
    const fingerprint = requestFingerprint(request.documentId, request.args);
    if (request.keyOrigin !== "tool_call")
      return keyedWrite(tool, request, context, command, request.idempotencyKey!, fingerprint, approved);
    const { sessionId, slot } = slotOf(tool, request, fingerprint);
    const store = options.idempotency;
    await releasing.get(`${sessionId}\u0000${slot}`);
    const remembered = await store.uncertainKey(sessionId, slot).catch(storeError);
    const key = remembered ?? request.idempotencyKey!;
    await store.rememberUncertain(sessionId, slot, key, uncertainTtlMs, uncertainPerSession).catch(storeError);
    try {
      const outcome = await keyedWrite(tool, request, context, command, key, fingerprint, approved);
      return { ...outcome, undelivered: { sessionId, slot, key } };
    } catch (e) {
      const code = toFailure(e).code;
      const aboutAccess = code === ERR.permissionDenied || code === ERR.notAuthenticated;
      if (!errorCatalog[code].retryable && (!aboutAccess || remembered === undefined))
        await store.forgetUncertain(sessionId, slot, key).catch(storeError);
      throw e;
    }
  }

  /** A store that failed: reported, and the call goes on without it (the kernel is the guard). */
  function storeError(e: unknown): undefined {
    options.onStoreError?.(e);
    return undefined;
  }

  /** Replay, conflict or in-progress from the store, else the kernel under a claim kept alive by a heartbeat. */
  async function keyedWrite(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    key: string,
    fingerprint: string,
    approved?: Approved,
  ): Promise<Outcome> {
    const scope = idempotencyScope({
      workspaceId: request.workspaceId,
      actorId: request.actorId,
      toolName: tool.name,
      idempotencyKey: key,
    });
    if (approved) {
      const outcome = await approvedWrite(tool, request, context, command, key, fingerprint, scope, approved);
      return { ...outcome, approval: { decision: "approved", level: "ask", approvedBy: approved.approvedBy } };
    }
    return claimedWrite(request, context, command, key, fingerprint, scope);
  }

  /**
   * An approved write: the token is used up first, by this write's idempotency scope (a retry of
   * the same write, same key, finds it its own and replays; anything else finds it used), then the
   * write runs with the previewed revision, so a page changed since the preview is a conflict.
   * Without a store that can use the token up, no approved write runs (single use is the promise).
   */
  async function approvedWrite(
    tool: ToolDescriptor,
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    key: string,
    fingerprint: string,
    scope: string,
    approved: Approved,
  ): Promise<Outcome> {
    const { claims } = approved;
    const ttl = Math.max(0, claims.expiresAt - now()) + NONCE_MARGIN_MS;
    const use = await options.idempotency.consumeApproval(claims.nonce, scope, ttl).catch((e: unknown) => {
      options.onStoreError?.(e);
      return refuse(ERR.storeUnavailable);
    });
    if (use === "used")
      throw new ToolFailure(ERR.approvalInvalid, {
        reason: "replayed",
        decision: { decision: "invalid", level: "ask" },
      });
    const field = tool.revisionField;
    const args =
      field !== null && claims.revision !== null ? { ...request.args, [field]: claims.revision } : request.args;
    return claimedWrite({ ...request, args }, context, command, key, fingerprint, scope);
  }

  /** The idempotency claim around a write, in the scope of its key. */
  async function claimedWrite(
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    key: string,
    fingerprint: string,
    scope: string,
  ): Promise<Outcome> {
    const claim = await options.idempotency.claim(scope, fingerprint, leaseMs).catch((e: unknown) => {
      // The store is a fast path: when it cannot be reached, the kernel's own record still makes
      // the write happen once (a duplicate then replays there instead of getting in_progress).
      options.onStoreError?.(e);
      return { kind: "unavailable" } as const;
    });
    if (claim.kind === "unavailable") return applyWrite(request, context, command, { scope, fingerprint, key });
    if (claim.kind === "replay")
      return {
        result: claim.outcome.result as Record<string, unknown>,
        effect: "write",
        commandId: claim.outcome.commandId,
        replayed: true,
      };
    if (claim.kind === "conflict") refuse(ERR.idempotencyConflict);
    if (claim.kind === "in_progress") refuse(ERR.inProgress);
    const holding = `${scope}:${claim.token}`;
    held.set(holding, { scope, token: claim.token });
    // the heartbeat: a live process keeps its claim; a dead one loses it within one lease
    const heartbeat = setInterval(
      () => void options.idempotency.renew(scope, claim.token, leaseMs).catch(storeError),
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    heartbeat.unref();
    try {
      const outcome = await applyWrite(request, context, command, { scope, fingerprint, key });
      // The write is committed: a store that cannot record it must not turn it into a failure.
      // Free the claim instead, and the kernel's own record answers the retry.
      await options.idempotency
        .complete(scope, claim.token, fingerprint, { commandId: outcome.commandId!, result: outcome.result }, ttlMs)
        .catch(() => options.idempotency.release(scope, claim.token).catch(storeError));
      return outcome;
    } catch (e) {
      // nothing was written, or the kernel holds the truth and will answer the retry: free the key
      // (if even that fails, say on a full disk, the lease runs out within leaseMs)
      await options.idempotency.release(scope, claim.token).catch(storeError);
      throw e;
    } finally {
      clearInterval(heartbeat);
      held.delete(holding);
    }
  }

  /** The kernel command of a write, carrying the idempotency facts the kernel guards on. */
  async function applyWrite(
    request: T.ToolRequest,
    context: T.KernelContext,
    command: KernelCommandName,
    keyed: { scope: string; fingerprint: string; key: string },
  ): Promise<Outcome> {
    const commandId = commandIdFor(command, keyed.scope);
    let reply;
    try {
      reply = await kernelCall(command, {
        context,
        args: request.args,
        dryRun: false,
        write: {
          commandId,
          idempotencyKey: keyed.key,
          idempotencyScope: keyed.scope,
          fingerprint: keyed.fingerprint,
          ttlMs,
        },
      });
    } catch (e) {
      const lost = e instanceof KernelTransportError || (e instanceof KernelMisconfigured && e.mayHaveRun);
      if (!lost) throw e;
      // The command may have been applied and only its answer lost: ask before answering.
      return reconcile(context, { commandId, scope: keyed.scope, fingerprint: keyed.fingerprint });
    }
    return {
      result: reply.result as Record<string, unknown>,
      effect: "write",
      commandId: reply.commandId as string,
      replayed: reply.replayed,
    };
  }

  /**
   * After a write's answer was lost: asks the kernel (its status command) whether the write is applied,
   * for at most reconcileMs. Applied: the committed result (replayed when another tool call had
   * committed it). Otherwise outcome_unknown, retryable: a retry with the same key either replays
   * the write or applies it once, so the caller is told exactly that. "Not applied (yet)" is asked
   * again until the time is up, since a write still on its way may commit meanwhile.
   */
  async function reconcile(
    context: T.KernelContext,
    lost: { commandId: string; scope: string; fingerprint: string },
  ): Promise<Outcome> {
    // real time, not options.now: a test's frozen clock must not make this loop forever
    const clock = Date.now;
    const deadline = clock() + reconcileMs;
    let pause = 100;
    let misconfigured: KernelMisconfigured | undefined;
    for (let attempt = 0; attempt < 8; attempt++) {
      const left = deadline - clock();
      if (left <= 0) break;
      try {
        const status = await withTimeout(
          options.kernel.commandStatus({
            context,
            commandId: lost.commandId,
            idempotencyScope: lost.scope,
            fingerprint: lost.fingerprint,
          }),
          kernelTimeoutMs === null ? left : Math.min(left, kernelTimeoutMs),
        );
        const s = status.result;
        if (s.applied && s.commandId !== null && s.result !== null) {
          return {
            result: s.result,
            effect: "write",
            commandId: s.commandId,
            replayed: s.toolCallId !== context.toolCallId,
          };
        }
      } catch (e) {
        // a kernel that cannot be used as configured will not tell later either: say so, not "unknown"
        if (e instanceof KernelMisconfigured) {
          misconfigured = e;
          break;
        }
        // the kernel cannot answer this either (or does not know the status command): cannot tell yet
      }
      const wait = Math.min(pause, deadline - clock());
      if (wait <= 0) break;
      await new Promise((r) => setTimeout(r, wait));
      pause *= 2;
    }
    if (misconfigured) throw misconfigured;
    refuse(ERR.outcomeUnknown);
  }

  async function kernelCall(
    command: KernelCommandName,
    payload: unknown,
  ): Promise<{ commandId: string | null; replayed: boolean; result: unknown }> {
    return withTimeout(options.kernel.call(command, payload as KernelCommandMap[typeof command]["payload"]));
  }

  function withTimeout<R>(promise: Promise<R>, ms: number | null = kernelTimeoutMs): Promise<R> {
    if (ms === null) return promise;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new KernelTransportError("timeout", `no answer from the kernel within ${ms} ms`)),
        ms,
      );
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  async function releaseClaims(): Promise<void> {
    const claims = [...held.values()];
    held.clear();
    await Promise.all(claims.map((c) => options.idempotency.release(c.scope, c.token).catch(storeError)));
  }

  return { dispatch, dispatchTracked, releaseClaims };
}

/** Fields echoed back: only values that are valid as what they claim to be, never arbitrary input. */
function echoOf(request: unknown): Echo {
  const r = isPlainObject(request) ? request : {};
  const id = (v: unknown) => (validateIdentifier(v) ? v : null);
  return {
    toolName: validateToolName(r.toolName) ? r.toolName : null,
    toolCallId: id(r.toolCallId),
    traceId: id(r.traceId),
    workspaceId: id(r.workspaceId),
    documentId: id(r.documentId),
    sessionId: id(r.sessionId),
  };
}

/** The echo of a request its tool's validator accepted: every field is already what it claims to be. */
function validatedEcho(request: T.ToolRequest): Echo {
  return {
    toolName: request.toolName,
    toolCallId: request.toolCallId,
    traceId: request.traceId,
    workspaceId: request.workspaceId,
    documentId: request.documentId,
    sessionId: request.sessionId,
  };
}

function success(echo: Echo, outcome: Outcome): T.ToolResponse {
  const audit: T.Audit = {
    effect: outcome.effect,
    commandId: outcome.commandId,
    workspaceId: echo.workspaceId,
    documentId: echo.documentId,
  };
  if (outcome.effect === "write") audit.replayed = outcome.replayed;
  if (outcome.approval) audit.approval = outcome.approval;
  return {
    ok: true,
    toolName: echo.toolName!,
    toolCallId: echo.toolCallId!,
    traceId: echo.traceId!,
    result: outcome.result,
    audit,
    error: null,
  };
}

function failure(echo: Echo, e: unknown, tool: ToolDescriptor | undefined, locale: MessageLocale): T.ToolFailure {
  const { code, reason, pointer, field, rule, approval, decision } = toFailure(e);
  // A failed rule says what to fix in the caller's language; a reason or a tool's own wording wins.
  const message =
    rule && reason === undefined && !tool?.messages[code]
      ? ruleMessage(rule, locale)
      : messageFor(code, reason, tool, locale);
  const error: T.ToolError = { code, message, retryable: errorCatalog[code].retryable };
  if (reason !== undefined) error.reason = reason;
  if (pointer !== undefined) error.pointer = pointer;
  if (rule !== undefined) error.rule = rule;
  if (field !== undefined) error.field = field;
  if (approval !== undefined) error.approval = approval;
  const audit: T.Audit = {
    effect: "none",
    commandId: null,
    workspaceId: echo.workspaceId,
    documentId: echo.documentId,
  };
  if (decision !== undefined) audit.approval = decision;
  return {
    ok: false,
    toolName: echo.toolName,
    toolCallId: echo.toolCallId,
    traceId: echo.traceId,
    result: null,
    audit,
    error,
  };
}

/** Every error becomes a catalog code; unknown ones are internal, never passed through. */
function toFailure(e: unknown): {
  code: T.ErrorCode;
  reason?: string;
  pointer?: string;
  field?: string;
  rule?: T.FailedRule;
  approval?: T.ApprovalChallenge;
  decision?: T.ApprovalAudit;
} {
  if (e instanceof ToolFailure) return { code: e.code, ...e.detail };
  if (e instanceof KernelRefusal && isErrorCode(e.code)) return { code: e.code, reason: e.reason, field: e.field };
  if (e instanceof KernelMisconfigured)
    return { code: ERR.kernelMisconfigured, reason: MISCONFIGURATION_REASON[e.kind] };
  if (e instanceof KernelTransportError) return { code: ERR.kernelUnavailable, reason: undefined };
  // a full or read-only disk, an I/O error, a store busy past its timeout: retry later, nothing written
  if (isStoreUnavailable(e)) return { code: ERR.storeUnavailable };
  return { code: ERR.internal };
}

/** The response as the contract says it must be; if not (a bug), an internal error that is. */
function checked(
  response: T.ToolResponse,
  tool: ToolDescriptor | undefined,
  echo: Echo,
  locale: MessageLocale,
): T.ToolResponse {
  const validate = tool && response.toolName === tool.name ? tool.validateResponse : validateToolResponse;
  if (validate(response)) return response;
  const issue = validate.errors?.[0];
  process.stderr.write(
    `mnote-tools: bug: a response did not match the contract at ${issue?.instancePath || "/"}: ${issue?.message ?? "?"}\n`,
  );
  return failure(echo, new ToolFailure(ERR.internal, { reason: undefined }), tool, locale);
}

/** The catalog reason of each way the kernel client finds the kernel misconfigured (checked against the catalog). */
const MISCONFIGURATION_REASON = {
  token_refused: "token_refused",
  adapter_not_found: "adapter_not_found",
  adapter_not_executable: "adapter_not_executable",
  adapter_failed: "adapter_failed",
} as const satisfies Record<KernelMisconfigurationKind, ErrorReason<typeof ERR.kernelMisconfigured>>;

function record(echo: Echo, response: T.ToolResponse, ms: number, cause?: string): CallRecord {
  return {
    toolName: echo.toolName,
    toolCallId: echo.toolCallId,
    traceId: echo.traceId,
    sessionId: echo.sessionId,
    ok: response.ok,
    code: response.ok ? null : response.error.code,
    effect: response.audit.effect,
    commandId: response.audit.commandId,
    replayed: response.audit.replayed ?? false,
    ms,
    ...(cause !== undefined ? { cause } : {}),
    ...(response.audit.approval ? { approval: response.audit.approval } : {}),
    ...(!response.ok && response.audit.approval && response.error.reason ? { reason: response.error.reason } : {}),
  };
}

/**
 * A failure envelope for a refusal an agent surface makes before dispatch (model-call.ts), echoing
 * the fields of `request` that are valid as what they claim to be.
 */
export function failureResponse(
  e: unknown,
  request: unknown,
  tool: ToolDescriptor | undefined,
  locale: MessageLocale,
): T.ToolFailure {
  return failure(echoOf(request), e, tool, locale);
}

/** A failure envelope for a refusal made before a request reached dispatch (a transport's own checks). */
export function refusalResponse(code: T.ErrorCode, locale: MessageLocale = "zh-CN", reason?: string): T.ToolFailure {
  const echo: Echo = {
    toolName: null,
    toolCallId: null,
    traceId: null,
    workspaceId: null,
    documentId: null,
    sessionId: null,
  };
  return failure(echo, new ToolFailure(code, { reason }), undefined, locale);
}
