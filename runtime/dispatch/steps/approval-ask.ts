/**
 * The approval step's question (docs/APPROVAL.md, "The record's life cycle"): a call at ask
 * without a token is previewed and its approval record made, or, when the same call was asked
 * before, found again by its generations of record ids; and the store-bound key tokens are signed with.
 */
import type * as T from "../../../generated/types";
import { ERR } from "../../../generated/registry";
import { callNonce, newNonce, signApproval, storeBoundKey } from "../../approval/token";
import { principalOf, RECORD_KEPT_MS, statusAt, type ApprovalRecord } from "../../approval/record";
import { previewOf } from "../../approval/preview";
import { previewText } from "../../approval/preview-text";
import { refuse, ToolFailure } from "../tool-failure";
import type { DispatchDeps, Outcome, ToolCall } from "./context";
import { kernelCall } from "./kernel";
import { committedReplay } from "./uncertain";

export const ASK = "ask" as const;

/**
 * No token yet: the tool's own dry run becomes the preview, and the answer is approval_required
 * with a token bound to this session, tool, args and the previewed revision, naming the approval
 * record made for it in the shared store. A call whose dry run plans no change asks nobody: it is
 * answered with that dry run (decision unchanged). The same call asked again (another process
 * resuming it: the same principal, session, tool, tool call id and arguments) finds its question
 * by its generations of record ids (questionOf): a live one is asked again (askedBefore), a
 * decline not yet told is told once, an ended one gives the next generation a fresh question.
 */
export async function askFor(deps: DispatchDeps, call: ToolCall, fingerprint: string): Promise<{ outcome: Outcome }> {
  const { tool, request } = call;
  const store = await storeIdOf(deps);
  const key = signingKey(deps, store);
  const principal = principalOf(request, request.sessionId);
  const parts = [principal, request.sessionId, tool.name, request.toolCallId, fingerprint];
  const found = await questionOf(deps, call, parts.map(String), key);
  if ("outcome" in found) return found;
  if ("record" in found) throw sameQuestion(call, found.record, key, store);
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
  const nonce = found.fresh;
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
  const raced = await createRecord(deps, record);
  if (raced) throw sameQuestion(call, raced, key, store);
  throw challenge(call, record, token, false);
}

/** The question asked before (by this call, or by its twin a moment ago): its record's preview and token. */
function sameQuestion(call: ToolCall, record: ApprovalRecord, key: Buffer, store: string | undefined): ToolFailure {
  return challenge(call, record, signApproval(key, { ...claimsOf(record), nonce: record.id, store }), true);
}

/** How many generations of one call's question are looked through before a question is asked under a random id. */
const GENERATIONS = 32;

/**
 * The record id of generation `n` of one call's question: generation 0 is the call's own id (as
 * before generations existed), each later one is asked only after the one before it ended.
 */
function generationId(key: Buffer, parts: readonly string[], n: number): string {
  return callNonce(key, n === 0 ? parts : [...parts, `generation ${n}`]);
}

/**
 * The call's question as the store keeps it (docs/APPROVAL.md, "The record's life cycle"), walking
 * its generations: a record still waiting, or approved with its token alive -> asked again; one
 * approved whose token expired -> its committed write (under the scope the record notes it was
 * written under, whatever key that write was sent with) replayed if the kernel has one, else ended;
 * declined or cancelled and not yet told -> approval_denied, once; anything else ended -> the
 * next generation. The first generation the store has no record of is where a fresh question goes.
 */
async function questionOf(
  deps: DispatchDeps,
  call: ToolCall,
  parts: readonly string[],
  key: Buffer,
): Promise<{ record: ApprovalRecord } | { outcome: Outcome } | { fresh: string }> {
  const { tool, request } = call;
  const same = { principal: parts[0]!, sessionId: request.sessionId, toolName: tool.name, fingerprint: parts[4]! };
  for (let n = 0; n < GENERATIONS; n++) {
    const id = generationId(key, parts, n);
    const record = await earlierRecord(deps, id);
    if (!record) return { fresh: id };
    if (!isSameCall(record, same)) continue;
    const status = statusAt(record, deps.now());
    const alive = deps.now() < record.expiresAt;
    if (status === "pending" || (status === "approved" && alive)) return { record };
    if (status === "approved") {
      // approved, but its token expired: a write it made is replayed; one that never happened is asked afresh
      const replay = await committedReplay(deps, call, record.writtenUnder);
      if (replay) return { outcome: replay };
    } else if ((status === "declined" || status === "cancelled") && (await firstToTell(deps, record))) {
      throw new ToolFailure(ERR.approvalDenied, {
        reason: record.reason ?? status,
        decision: { decision: "denied", level: ASK },
      });
    }
  }
  return { fresh: newNonce() };
}

/**
 * Whether this caller is the first to be told that the person said no (or could not be asked):
 * the record's nonce is used up, atomically in the shared store, for as long as the record is
 * kept. A no sent with the token (the host's answer) used it up already: the caller knew.
 */
export async function firstToTell(deps: DispatchDeps, record: ApprovalRecord): Promise<boolean> {
  const used = await deps.idempotency
    .consumeApproval(record.id, "not_approved", keptMs(deps, record.expiresAt))
    .catch((e: unknown) => recordStoreDown(deps, e));
  return used === "fresh";
}

/** How long a nonce that was not used by a write is kept: as long as its record (RECORD_KEPT_MS past its expiry). */
export function keptMs(deps: DispatchDeps, expiresAt: number): number {
  return Math.max(0, expiresAt - deps.now()) + RECORD_KEPT_MS;
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

/** The record is of this very call (principal, session, tool, arguments) and keeps its preview, to ask again. */
function isSameCall(
  record: ApprovalRecord,
  call: { principal: string; sessionId: string; toolName: string; fingerprint: string },
): boolean {
  return (
    record.preview !== undefined &&
    record.principal === call.principal &&
    record.sessionId === call.sessionId &&
    record.toolName === call.toolName &&
    record.fingerprint === call.fingerprint
  );
}

/**
 * The key approval tokens are signed with: the host's secret bound to the identity of the store
 * that keeps their records and uses their nonces up (IdempotencyStore.storeId). Instances that
 * share the secret but not the store cannot honour each other's tokens (one yes is never two
 * writes, silently). A token names its store, so a token whose store is not ours (a Redis
 * restarted without persistence has a new identity) is told apart from an altered one: the person
 * is asked again. Read at every approval, never cached.
 */
export async function storeIdOf(deps: DispatchDeps): Promise<string | undefined> {
  const store = deps.idempotency;
  if (!store.storeId) return undefined;
  return store.storeId().catch((e: unknown) => recordStoreDown(deps, e));
}

export function signingKey(deps: DispatchDeps, store: string | undefined): Buffer {
  return store === undefined ? deps.approval.secret : storeBoundKey(deps.approval.secret, store);
}

/** A store that cannot answer refuses, retryably: the record may say no, the nonce may be used. */
export function recordStoreDown(deps: DispatchDeps, e: unknown): never {
  deps.onStoreError?.(e);
  return refuse(ERR.storeUnavailable);
}

/**
 * Stores the new record. A create that fails because the same call's twin (the same retry sent twice
 * at once, by two processes) made this generation's record a moment before is no store failure:
 * that record is answered (askedBefore). Anything else the store does not answer refuses, retryably.
 */
async function createRecord(deps: DispatchDeps, record: ApprovalRecord): Promise<ApprovalRecord | undefined> {
  const records = deps.approval.records;
  if (!records) return undefined;
  const failure = await records.create(record).then(
    () => undefined,
    (e: unknown) => ({ e }),
  );
  if (!failure) return undefined;
  const there = await records.get(record.id).catch(() => undefined);
  const status = there && statusAt(there, deps.now());
  if (there && isSameCall(there, record) && (status === "pending" || status === "approved")) return there;
  return recordStoreDown(deps, failure.e);
}
