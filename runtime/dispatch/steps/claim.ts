/**
 * The claim step, the idempotency rule: a write runs under a claim on its key's scope in the
 * idempotency store. The store answers a replay (the same write done: its outcome), a conflict
 * (the same key, other args), in_progress (the same write running now), or the claim; a store
 * that cannot be reached is skipped, and the kernel's own record still makes the write happen once.
 *
 * A claim holds a short lease (leaseMs, default 5 s) that a heartbeat renews every third of it
 * while the write runs, so a process killed mid-write frees the key within one lease; a process
 * stopped by a signal releases its claims at once (releaseClaims). A full or read-only disk, an
 * I/O error or a store busy past its timeout is store_unavailable, retryable: the claim is released
 * (if the release fails too, the short lease frees the key).
 */
import { ERR } from "../../../generated/registry";
import { idempotencyScope } from "../keys";
import { refuse } from "../tool-failure";
import { storeError, type BeforeClaim, type DispatchDeps, type Keyed, type Outcome, type ToolCall } from "./context";
import { applyWrite } from "./kernel";
import { chargeBudget } from "./budget";
import type { Claim } from "../../state/idempotency-store";

/** A write under its key: the scope that key makes, what runs before the claim (approval), then the claim. */
export async function keyedWrite(
  deps: DispatchDeps,
  call: ToolCall,
  key: string,
  fingerprint: string,
  beforeClaim?: BeforeClaim,
): Promise<Outcome> {
  const keyed: Keyed = { key, scope: scopeOfKey(call, key), fingerprint };
  return claimedWrite(deps, beforeClaim ? await beforeClaim(call, keyed) : call, keyed);
}

/** The idempotency scope a key makes for this call (its workspace, actor and tool). */
export function scopeOfKey(call: ToolCall, key: string): string {
  const { request } = call;
  return idempotencyScope({
    workspaceId: request.workspaceId,
    actorId: request.actorId,
    toolName: call.tool.name,
    idempotencyKey: key,
  });
}

/**
 * Replay, conflict or in-progress from the store, else the kernel under a claim kept alive by a
 * heartbeat. `taken`: the store's answer to this claim, already asked (the uncertain step's one
 * transaction, steps/uncertain.ts).
 */
export async function claimedWrite(deps: DispatchDeps, call: ToolCall, keyed: Keyed, taken?: Claim): Promise<Outcome> {
  const { scope, fingerprint } = keyed;
  const store = deps.idempotency;
  const claim =
    taken ??
    (await store.claim(scope, fingerprint, deps.leaseMs).catch((e: unknown) => {
      // The store is a fast path: when it cannot be reached, the kernel's own record still makes
      // the write happen once (a duplicate then replays there instead of getting in_progress).
      deps.onStoreError?.(e);
      return { kind: "unavailable" } as const;
    }));
  if (claim.kind === "unavailable") return chargeBudget(deps, call).then(() => applyWrite(deps, call, keyed));
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
  deps.held.set(holding, { scope, token: claim.token });
  // the heartbeat: a live process keeps its claim; a dead one loses it within one lease
  const heartbeat = setInterval(
    () => void store.renew(scope, claim.token, deps.leaseMs).catch((e: unknown) => storeError(deps, e)),
    Math.max(1, Math.floor(deps.leaseMs / 3)),
  );
  heartbeat.unref();
  try {
    await chargeBudget(deps, call);
    const outcome = await applyWrite(deps, call, keyed);
    // The write is committed: a store that cannot record it must not turn it into a failure.
    // Free the claim instead, and the kernel's own record answers the retry.
    const stored = { commandId: outcome.commandId!, result: outcome.result };
    await store
      .complete(scope, claim.token, fingerprint, stored, deps.idempotencyTtlMs)
      .catch(() => store.release(scope, claim.token).catch((e: unknown) => storeError(deps, e)));
    return outcome;
  } catch (e) {
    // nothing was written, or the kernel holds the truth and will answer the retry: free the key
    // (if even that fails, say on a full disk, the lease runs out within leaseMs)
    await store.release(scope, claim.token).catch((e: unknown) => storeError(deps, e));
    throw e;
  } finally {
    clearInterval(heartbeat);
    deps.held.delete(holding);
  }
}

/** Gives up every claim held right now (a process about to exit on a signal). */
export async function releaseClaims(deps: DispatchDeps): Promise<void> {
  const claims = [...deps.held.values()];
  deps.held.clear();
  await Promise.all(
    claims.map((c) => deps.idempotency.release(c.scope, c.token).catch((e: unknown) => storeError(deps, e))),
  );
}
