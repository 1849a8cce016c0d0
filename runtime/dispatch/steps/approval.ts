/**
 * The approval step (docs/APPROVAL.md), every rule of human approval in one place: the call's
 * level (contract and host policy), deny, the preview and its token for ask, the token's check,
 * the person's answer, the token used up once by the write it approves, and the expired token of
 * a write that committed (replayed, not refused).
 */
import type * as T from "../../../generated/types";
import { ERR } from "../../../generated/registry";
import { effectiveLevel } from "../../approval/level";
import { checkApproval, type ApprovalClaims } from "../../approval/token";
import { statusAt, statusOfAnswer, type ApprovalRecord, type FinalStatus } from "../../approval/record";
import { requestFingerprint } from "../keys";
import { failure, refuse, ToolFailure } from "../tool-failure";
import { storeError, type BeforeClaim, type DispatchDeps, type Outcome, type ToolCall } from "./context";
import { ASK, askFor, firstToTell, keptMs, recordStoreDown, signingKey, storeIdOf } from "./approval-ask";
import { committedReplay, uncertainWrite } from "./uncertain";

/** How much longer than its token a used nonce is kept: clocks of instances differ a little. */
const NONCE_MARGIN_MS = 60_000;

/** A verified approval on its way to the write it approves. */
export interface Approved {
  claims: ApprovalClaims;
  approvedBy: string;
}

/** The call's level; deny holds for everything the tool does, its dry run included. */
export function approvalLevel(deps: DispatchDeps, call: ToolCall): T.ApprovalLevel {
  const { tool, request } = call;
  const level = effectiveLevel(tool, request.sessionId, request.args as Record<string, unknown>, deps.approval.policy);
  if (level === "deny") throw failure(ERR.approvalDenied, "policy", { decision: { decision: "denied", level } });
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
    throw failure(ERR.approvalInvalid, check.problem, { decision: { decision: "invalid", level: ASK } });
  }
  const { answer } = request.approval;
  const approvedBy = request.approval.approvedBy ?? request.actorId;
  // a token whose store is not ours names a record this store never had or forgot: ask again
  const record = (check.claims.store ?? store) === store ? await recordOf(deps, check.claims) : null;
  if (answer !== undefined) {
    // the person did not say yes (or could not be asked): recorded, the token used up, nothing written
    if (record) await settleRecord(deps, check.claims.nonce, statusOfAnswer(answer), approvedBy, answer);
    await deps.idempotency
      .consumeApproval(check.claims.nonce, "not_approved", keptMs(deps, check.claims.expiresAt))
      .catch((e: unknown) => storeError(deps, e));
    throw failure(ERR.approvalDenied, answer, { decision: { decision: "denied", level: ASK } });
  }
  if (record === null) return askFor(deps, call, fingerprint);
  if (record) await recordSaysYes(deps, record, approvedBy);
  // a token bound to no revision (made before this check existed) would write unbound
  if (check.claims.revision === null || tool.revisionField === null) refuse(ERR.kernelMisconfigured, "no_revision");
  return { claims: check.claims, approvedBy };
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
      throw failure(ERR.approvalInvalid, "replayed", { decision: { decision: "invalid", level: ASK } });
    // the record remembers the scope its write runs under, before it runs: the same call asked after
    // the token expired finds this write and replays it (questionOf). The nonce is this scope's now,
    // so a failure here is retried by the same write (use "same").
    await deps.approval.records?.markWritten(claims.nonce, keyed.scope).catch((e: unknown) => recordStoreDown(deps, e));
    const field = call.tool.revisionField;
    const request = call.request;
    const args =
      field !== null && claims.revision !== null ? { ...request.args, [field]: claims.revision } : request.args;
    return { ...call, request: { ...request, args } };
  };
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
  // told now: the same call asked again later is a fresh question (questionOf)
  await firstToTell(deps, now);
  throw new ToolFailure(ERR.approvalDenied, {
    reason: now.reason ?? "declined", // the record's stored answer
    decision: { decision: "denied", level: ASK },
  });
}
