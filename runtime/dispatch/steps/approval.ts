/**
 * The approval step (docs/APPROVAL.md), every rule of human approval in one place: the call's
 * level (contract and host policy), deny, the preview and its token for ask, the token's check,
 * the person's answer, the token used up once by the write it approves, and the expired token of
 * a write that committed (replayed, not refused).
 */
import type * as T from "../../../generated/types";
import { ERR } from "../../../generated/registry";
import { effectiveLevel } from "../../approval/level";
import {
  callNonce,
  checkApproval,
  newNonce,
  signApproval,
  storeBoundKey,
  type ApprovalClaims,
} from "../../approval/token";
import { principalOf, statusAt, statusOfAnswer, type ApprovalRecord, type FinalStatus } from "../../approval/record";
import { previewOf } from "../../approval/preview";
import { previewText } from "../../approval/preview-text";
import { requestFingerprint } from "../keys";
import { refuse, ToolFailure } from "../tool-failure";
import { storeError, type BeforeClaim, type DispatchDeps, type Outcome, type ToolCall } from "./context";
import { kernelCall } from "./kernel";
import { committedReplay, uncertainWrite } from "./uncertain";

/** How much longer than its token a used nonce is kept: clocks of instances differ a little. */
const NONCE_MARGIN_MS = 60_000;
const ASK = "ask" as const;

/** A verified approval on its way to the write it approves. */
export interface Approved {
  claims: ApprovalClaims;
  approvedBy: string;
}

/** The call's level; deny holds for everything the tool does, its dry run included. */
export function approvalLevel(deps: DispatchDeps, call: ToolCall): T.ApprovalLevel {
  const { tool, request } = call;
  const level = effectiveLevel(tool, request.sessionId, request.args as Record<string, unknown>, deps.approval.policy);
  if (level === "deny")
    throw new ToolFailure(ERR.approvalDenied, { reason: "policy", decision: { decision: "denied", level } });
  return level;
}

/**
 * An ask-level write: approve, then write. A token that expired may belong to a write that
 * committed and whose answer was lost: the kernel is asked first, and that write's retry replays
 * its committed result instead of approval_expired (which is not retryable, so the model would
 * stop there and never learn that the write happened).
 */
export async function askedWrite(deps: DispatchDeps, call: ToolCall): Promise<Outcome> {
  let approval: Approved | { outcome: Outcome };
  try {
    approval = await approve(deps, call);
  } catch (e) {
    if (!(e instanceof ToolFailure && e.code === ERR.approvalExpired)) throw e;
    const replay = await committedReplay(deps, call);
    if (!replay) throw e;
    return replay;
  }
  // an outcome without a write: nothing would change (answered as the dry run shows)
  if ("outcome" in approval) return approval.outcome;
  const outcome = await uncertainWrite(deps, call, useApproval(deps, approval));
  return { ...outcome, approval: { decision: "approved", level: ASK, approvedBy: approval.approvedBy } };
}

/**
 * A write whose level is ask. Without a token: the preview (askFor). With one: the token checked
 * (signature, binding, expiry), then its approval record (recorded.ts): a store that never had or
 * forgot the record asks the person again; a record the person declined on the approval page
 * refuses. The token is used up by the write itself (useApproval), which carries the previewed
 * revision to the kernel.
 */
export async function approve(deps: DispatchDeps, call: ToolCall): Promise<Approved | { outcome: Outcome }> {
  const { tool, request } = call;
  const fingerprint = requestFingerprint(request.documentId, request.args);
  if (!request.approval) return askFor(deps, call, fingerprint);
  const store = await storeIdOf(deps);
  const check = checkApproval(deps.approval.secret, request.approval.token, {
    sessionId: request.sessionId,
    toolName: tool.name,
    fingerprint,
    now: deps.now(),
    keyFor: (claimed) => signingKey(deps, claimed ?? store),
  });
  if (!check.ok) {
    if (check.problem === "expired")
      throw new ToolFailure(ERR.approvalExpired, { decision: { decision: "expired", level: ASK } });
    throw new ToolFailure(ERR.approvalInvalid, {
      reason: check.problem,
      decision: { decision: "invalid", level: ASK },
    });
  }
  const { answer } = request.approval;
  const approvedBy = request.approval.approvedBy ?? request.actorId;
  // a token whose store is not ours names a record this store never had or forgot: ask again
  const record = (check.claims.store ?? store) === store ? await recordOf(deps, check.claims) : null;
  if (answer !== undefined) {
    // the person did not say yes (or could not be asked): recorded, the token used up, nothing written
    if (record) await settleRecord(deps, check.claims.nonce, statusOfAnswer(answer), approvedBy, answer);
    const ttl = Math.max(0, check.claims.expiresAt - deps.now()) + NONCE_MARGIN_MS;
    await deps.idempotency
      .consumeApproval(check.claims.nonce, "not_approved", ttl)
      .catch((e: unknown) => storeError(deps, e));
    throw new ToolFailure(ERR.approvalDenied, { reason: answer, decision: { decision: "denied", level: ASK } });
  }
  if (record === null) return askFor(deps, call, fingerprint);
  if (record) await recordSaysYes(deps, record, approvedBy);
  // a token bound to no revision (made before this check existed) would write unbound
  if (check.claims.revision === null || tool.revisionField === null) refuse(ERR.kernelMisconfigured, "no_revision");
  return { claims: check.claims, approvedBy };
}

/**
 * No token yet: the tool's own dry run becomes the preview, and the answer is approval_required
 * with a token bound to this session, tool, args and the previewed revision, naming the approval
 * record made for it in the shared store. A call whose dry run plans no change asks nobody: it is
 * answered with that dry run (decision unchanged). The same call asked again (another process
 * resuming it: the same principal, session, tool, tool call id and arguments) while its record
 * waits or was approved gets that record again (askedBefore): the preview and revision the
 * person was shown, not a fresh question.
 */
async function askFor(deps: DispatchDeps, call: ToolCall, fingerprint: string): Promise<{ outcome: Outcome }> {
  const { tool, request } = call;
  const store = await storeIdOf(deps);
  const key = signingKey(deps, store);
  const principal = principalOf(request, request.sessionId);
  const callId = callNonce(key, [principal, request.sessionId, tool.name, request.toolCallId, fingerprint]);
  const earlier = await earlierRecord(deps, callId);
  if (
    earlier &&
    isSameCall(deps, earlier, { principal, sessionId: request.sessionId, toolName: tool.name, fingerprint })
  )
    throw challenge(call, earlier, signApproval(key, { ...claimsOf(earlier), nonce: earlier.id, store }), true);
  const reply = await kernelCall(deps, call.command, { context: call.context, args: request.args, dryRun: true });
  const result = reply.result as Record<string, unknown>;
  const preview = previewOf(result);
  // nothing would change: nothing to approve, and nothing to write
  if (preview.ops.length === 0) {
    const approval: T.ApprovalAudit = { decision: "unchanged", level: ASK };
    return { outcome: { result, effect: "dry_run", commandId: null, replayed: false, approval } };
  }
  // no revision to bind (the contract's baseRevision is optional): a token could write unbound
  if (preview.revision === undefined || tool.revisionField === null) refuse(ERR.kernelMisconfigured, "no_revision");
  const expiresAt = deps.now() + deps.approval.ttlMs;
  const claims = { sessionId: request.sessionId, toolName: tool.name, fingerprint, revision: preview.revision };
  // the call's own record id, unless a record of it ended (declined, expired): then a fresh question
  const nonce = earlier ? newNonce() : callId;
  const token = signApproval(key, { ...claims, expiresAt, nonce, store });
  const record: ApprovalRecord = {
    ...claims,
    id: nonce,
    principal,
    expiresAt,
    createdAt: deps.now(),
    summary: { en: previewText(preview, "en"), "zh-CN": previewText(preview, "zh-CN") },
    preview,
    status: "pending",
    answeredBy: null,
    answeredAt: null,
    reason: null,
  };
  await createRecord(deps, record);
  throw challenge(call, record, token, false);
}

/** approval_required for a record: its preview, in the caller's locale, and the token naming it. */
function challenge(call: ToolCall, record: ApprovalRecord, token: string, askedBefore: boolean): ToolFailure {
  return new ToolFailure(ERR.approvalRequired, {
    approval: {
      preview: record.preview!,
      summary: record.summary[call.locale],
      token,
      expiresAt: new Date(record.expiresAt).toISOString(),
      ...(askedBefore ? { askedBefore } : {}),
    },
    decision: { decision: "required", level: ASK },
  });
}

function claimsOf(record: ApprovalRecord) {
  const { sessionId, toolName, fingerprint, revision, expiresAt } = record;
  return { sessionId, toolName, fingerprint, revision, expiresAt };
}

/** The record a call's own id names, if the store keeps one (any status). */
async function earlierRecord(deps: DispatchDeps, id: string): Promise<ApprovalRecord | undefined> {
  return deps.approval.records?.get(id).catch((e: unknown) => recordStoreDown(deps, e));
}

/** The same call, still waiting or approved, with its preview: the person's question, to ask again. */
function isSameCall(
  deps: DispatchDeps,
  record: ApprovalRecord,
  call: { principal: string; sessionId: string; toolName: string; fingerprint: string },
): boolean {
  const status = statusAt(record, deps.now());
  return (
    (status === "pending" || status === "approved") &&
    record.preview !== undefined &&
    record.principal === call.principal &&
    record.sessionId === call.sessionId &&
    record.toolName === call.toolName &&
    record.fingerprint === call.fingerprint
  );
}

/**
 * An approved write, before its claim: the token is used up first, by this write's idempotency
 * scope (a retry of the same write, same key, finds it its own and replays; anything else finds it
 * used), then the write runs with the previewed revision, so a page changed since the preview is a
 * conflict. Without a store that can use the token up, no approved write runs (single use is the promise).
 */
function useApproval(deps: DispatchDeps, approved: Approved): BeforeClaim {
  return async (call, keyed) => {
    const { claims } = approved;
    const ttl = Math.max(0, claims.expiresAt - deps.now()) + NONCE_MARGIN_MS;
    const use = await deps.idempotency.consumeApproval(claims.nonce, keyed.scope, ttl).catch((e: unknown) => {
      deps.onStoreError?.(e);
      return refuse(ERR.storeUnavailable);
    });
    if (use === "used")
      throw new ToolFailure(ERR.approvalInvalid, { reason: "replayed", decision: { decision: "invalid", level: ASK } });
    const field = call.tool.revisionField;
    const request = call.request;
    const args =
      field !== null && claims.revision !== null ? { ...request.args, [field]: claims.revision } : request.args;
    return { ...call, request: { ...request, args } };
  };
}

/**
 * The key approval tokens are signed with: the host's secret bound to the identity of the store
 * that keeps their records and uses their nonces up (IdempotencyStore.storeId). Instances that
 * share the secret but not the store cannot honour each other's tokens (one yes is never two
 * writes, silently). A token names its store, so a token whose store is not ours (a Redis
 * restarted without persistence has a new identity) is told apart from an altered one: the person
 * is asked again. Read at every approval, never cached.
 */
async function storeIdOf(deps: DispatchDeps): Promise<string | undefined> {
  const store = deps.idempotency;
  if (!store.storeId) return undefined;
  return store.storeId().catch((e: unknown) => recordStoreDown(deps, e));
}

function signingKey(deps: DispatchDeps, store: string | undefined): Buffer {
  return store === undefined ? deps.approval.secret : storeBoundKey(deps.approval.secret, store);
}

/** A store that cannot answer refuses, retryably: the record may say no, the nonce may be used. */
function recordStoreDown(deps: DispatchDeps, e: unknown): never {
  deps.onStoreError?.(e);
  return refuse(ERR.storeUnavailable);
}

async function createRecord(deps: DispatchDeps, record: ApprovalRecord): Promise<void> {
  await deps.approval.records?.create(record).catch((e: unknown) => recordStoreDown(deps, e));
}

/** The token's record; null when the store has none (never had or forgot it); undefined without a record store. */
async function recordOf(deps: DispatchDeps, claims: ApprovalClaims): Promise<ApprovalRecord | null | undefined> {
  const records = deps.approval.records;
  if (!records) return undefined;
  const record = await records.get(claims.nonce).catch((e: unknown) => recordStoreDown(deps, e));
  return record ?? null;
}

/** A no: recorded when the record is still pending (the nonce, used up next, is the guard). */
async function settleRecord(deps: DispatchDeps, id: string, to: FinalStatus, by: string, reason: string) {
  await deps.approval.records
    ?.settle(id, to, { by, reason, now: deps.now() })
    .catch((e: unknown) => storeError(deps, e));
}

/**
 * A token sent back without an answer is the host's yes: a pending record becomes approved (once,
 * atomically); one the person answered on the approval page says what they answered.
 */
async function recordSaysYes(deps: DispatchDeps, record: ApprovalRecord, approvedBy: string): Promise<void> {
  let now = record;
  if (statusAt(record, deps.now()) === "pending") {
    const settled = await deps.approval
      .records!.settle(record.id, "approved", { by: approvedBy, reason: null, now: deps.now() })
      .catch((e: unknown) => recordStoreDown(deps, e));
    now = settled.record ?? { ...record, status: "expired" };
  }
  const status = statusAt(now, deps.now());
  if (status === "approved") return;
  if (status === "expired" || status === "pending")
    throw new ToolFailure(ERR.approvalExpired, { decision: { decision: "expired", level: ASK } });
  throw new ToolFailure(ERR.approvalDenied, {
    reason: now.reason ?? "declined",
    decision: { decision: "denied", level: ASK },
  });
}
