/**
 * The uncertain-write step, the delivery rule (docs/RELIABILITY.md): a write stays uncertain until
 * a caller has RECEIVED its outcome. That the kernel committed it is not enough: a caller that hung
 * up (its timeout, a killed host, a dropped connection) never saw it, and its retry must replay it,
 * not write again.
 *
 * Uncertain writes are remembered here, not by the host (keyOrigin "tool_call": the host derived
 * the key from a model's tool call, and a model's retry is a new tool call with a new key): before
 * a write, the key remembered for its slot (session, identity, tool, request fingerprint) is used
 * instead of the request's. The slot -> key is remembered in the state store before the write runs
 * (a process killed mid-write leaves it there too), kept on every retryable answer, forgotten at
 * once on a definite failure (nothing was written), and after a success released only when the
 * transport confirms the answer reached its caller: deliveryOf() gives the response a Delivery
 * whose delivered() the transport calls then. A success never confirmed stays remembered for
 * uncertainTtlMs (6 h): within that time the same call made again replays; that is the price of
 * never writing twice.
 */
import type * as T from "../../../generated/types";
import { ERR, errorCatalog, type ToolDescriptor } from "../../../generated/registry";
import { commandIdFor, idempotencyScope, requestFingerprint, uncertainSlot } from "../keys";
import type { Delivery } from "../api";
import { toFailure } from "./answer";
import { claimedWrite, keyedWrite, scopeOfKey } from "./claim";
import type { UncertainClaim } from "../../state/idempotency-store";
import {
  storeError,
  type BeforeClaim,
  type DispatchDeps,
  type Outcome,
  type ToolCall,
  type UncertainSlot,
} from "./context";
import { withTimeout } from "./kernel";
import { refuse } from "../tool-failure";

/** A delivery with nothing to release (a read, a failure, an in-process answer already counted). */
export const NOTHING_TO_DELIVER: Delivery = { delivered: () => Promise.resolve() };

/**
 * A keyed write. With keyOrigin "tool_call" the key of an earlier uncertain write of the same slot
 * wins over the request's, and the slot holds this write's key from before it runs until its
 * answer is delivered: a retryable answer keeps it, a definite failure forgets it (nothing was
 * written), a success leaves it to the Delivery. An answer about something else than this key
 * (the kernel refusing access before it looked at its records) leaves the slot as it was.
 */
export async function uncertainWrite(deps: DispatchDeps, call: ToolCall, beforeClaim?: BeforeClaim): Promise<Outcome> {
  const { request } = call;
  const fingerprint = requestFingerprint(request.documentId, request.args);
  if (request.keyOrigin !== "tool_call")
    return keyedWrite(deps, call, request.idempotencyKey!, fingerprint, beforeClaim).catch((e: unknown) =>
      committedOr(deps, call, e),
    );
  const { sessionId, slot } = slotOf(call.tool, request, fingerprint);
  const store = deps.idempotency;
  await deps.releasing.get(`${sessionId}\u0000${slot}`);
  const taken = beforeClaim ? undefined : await slotAndClaim(deps, call, { sessionId, slot }, fingerprint);
  let remembered: string | undefined;
  let key: string;
  if (taken) ({ remembered, key } = taken);
  else {
    remembered = await store.uncertainKey(sessionId, slot).catch((e: unknown) => slotUnavailable(deps, e));
    key = remembered ?? request.idempotencyKey!;
    await store
      .rememberUncertain(sessionId, slot, key, deps.uncertainTtlMs, deps.uncertainPerSession)
      .catch((e: unknown) => slotUnavailable(deps, e));
  }
  try {
    const outcome = taken
      ? await claimedWrite(deps, call, { key, scope: taken.scope, fingerprint }, taken.claim)
      : await keyedWrite(deps, call, key, fingerprint, beforeClaim);
    return { ...outcome, undelivered: { sessionId, slot, key } };
  } catch (e) {
    const code = toFailure(e).code;
    const aboutAccess = code === ERR.permissionDenied || code === ERR.notAuthenticated;
    if (!errorCatalog[code].retryable && (!aboutAccess || remembered === undefined))
      await store.forgetUncertain(sessionId, slot, key).catch((e: unknown) => storeError(deps, e));
    return committedOr(deps, call, e);
  }
}

/**
 * A tool_call write whose slot cannot be read or written (the store down, restarting, busy) is not
 * run: the slot may hold the key of an earlier write of this call whose answer was lost, and the
 * request's own key is new to the kernel, so its record could not refuse a second write (the fault
 * matrix wrote twice that way: a model's retry while the runtime's Redis connection was still
 * reconnecting after a restart). Nor may a write run whose key the slot does not hold: its answer
 * lost, the next retry would miss it too. Refused as store_unavailable (retryable, nothing written);
 * the slot is left as it was, and a retry once the store answers replays or writes once.
 */
function slotUnavailable(deps: DispatchDeps, e: unknown): never {
  storeError(deps, e);
  return refuse(ERR.storeUnavailable);
}

/**
 * A write its budget refused may be one the kernel already applied whose record the idempotency
 * store does not hold (it could not record it, so "the kernel's own record answers the retry"):
 * that write replays, it is never refused (the answer the model lost). Anything else is thrown
 * again. Asked on a budget's refusal of a write only: one status lookup, nothing on the way of a call
 * that goes through.
 */
async function committedOr(deps: DispatchDeps, call: ToolCall, e: unknown): Promise<Outcome> {
  if (toFailure(e).code !== ERR.rateLimited) throw e;
  const replay = await committedReplay(deps, call);
  if (!replay) throw e;
  return replay;
}

/**
 * The slot's key read, the slot written and the claim taken in one step of the store, when it has
 * one (claimUncertain) and nothing runs between the slot and the claim (an approval does). Undefined
 * when the store has no such step or it failed, and the caller takes the three steps one by one,
 * each reporting its own failure (so a store that is down is reported as often as before). A failed
 * step may still have run (its answer lost: a store restarted or a command timed out): the slot then
 * holds this key and the claim is held until its lease runs out, so the steps answer in_progress
 * until then, never a second write (test/state/claim-uncertain.test.ts).
 */
async function slotAndClaim(
  deps: DispatchDeps,
  call: ToolCall,
  where: { sessionId: string; slot: string },
  fingerprint: string,
): Promise<UncertainClaim | undefined> {
  const store = deps.idempotency;
  if (!store.claimUncertain) return undefined;
  const slot = {
    ...where,
    key: call.request.idempotencyKey!,
    ttlMs: deps.uncertainTtlMs,
    cap: deps.uncertainPerSession,
  };
  return store.claimUncertain(slot, (key) => scopeOfKey(call, key), fingerprint, deps.leaseMs).catch(() => undefined);
}

/**
 * The committed result of this exact write (its key, or its slot's; or, with writtenUnder, the
 * scope an approved write ran under, as its approval record notes it), from the kernel's record;
 * undefined when none or unknown.
 */
export async function committedReplay(
  deps: DispatchDeps,
  call: ToolCall,
  writtenUnder?: string,
): Promise<Outcome | undefined> {
  const { tool, request } = call;
  const fingerprint = requestFingerprint(request.documentId, request.args);
  if (writtenUnder !== undefined) return committedUnder(deps, call, writtenUnder, fingerprint);
  const slot = request.keyOrigin === "tool_call" ? slotOf(tool, request, fingerprint) : undefined;
  const remembered = slot
    ? await deps.idempotency.uncertainKey(slot.sessionId, slot.slot).catch((e: unknown) => storeError(deps, e))
    : undefined;
  const key = remembered ?? request.idempotencyKey!;
  const scope = idempotencyScope({
    workspaceId: request.workspaceId,
    actorId: request.actorId,
    toolName: tool.name,
    idempotencyKey: key,
  });
  const outcome = await committedUnder(deps, call, scope, fingerprint);
  return outcome && slot ? { ...outcome, undelivered: { ...slot, key } } : outcome;
}

/** The kernel's committed result under one idempotency scope, as a replay; undefined when none or unknown. */
async function committedUnder(
  deps: DispatchDeps,
  call: ToolCall,
  scope: string,
  fingerprint: string,
): Promise<Outcome | undefined> {
  const status = await withTimeout(
    deps,
    deps.kernel.commandStatus({
      context: call.context,
      commandId: commandIdFor(call.command, scope),
      idempotencyScope: scope,
      fingerprint,
    }),
  ).catch(() => undefined);
  const s = status?.result;
  if (!s?.applied || s.commandId === null || s.result === null) return undefined;
  return { result: s.result, effect: "write", commandId: s.commandId, replayed: true };
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

/** The delivery of a response: releases the slot of a write that succeeded, once. */
export function deliveryOf(
  deps: DispatchDeps,
  response: T.ToolResponse,
  undelivered: UncertainSlot | undefined,
): Delivery {
  if (!response.ok || !undelivered) return NOTHING_TO_DELIVER;
  let done: Promise<void> | undefined;
  return {
    delivered: () => {
      done ??= releaseSlot(deps, undelivered);
      return done;
    },
  };
}

function releaseSlot(deps: DispatchDeps, u: UncertainSlot): Promise<void> {
  const id = `${u.sessionId}\u0000${u.slot}`;
  const job = deps.idempotency
    .forgetUncertain(u.sessionId, u.slot, u.key)
    .catch((e: unknown) => storeError(deps, e))
    .finally(() => {
      if (deps.releasing.get(id) === job) deps.releasing.delete(id);
    });
  deps.releasing.set(id, job);
  return job;
}
