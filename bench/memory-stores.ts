/**
 * Grant and idempotency stores in plain Maps, for measuring the dispatcher without SQLite. They
 * follow the store interfaces' rules (claim, replay, conflict, in progress, release, uncertain keys) in one
 * process; they are bench fixtures, not a store to run with.
 */
import type { SessionGrant } from "../generated/types";
import type { GrantStore } from "../runtime/state/grant-store";
import type { Claim, IdempotencyStore, StoredOutcome } from "../runtime/state/idempotency-store";

/** Session grants in a Map. */
export function memoryGrantStore(): GrantStore {
  const grants = new Map<string, SessionGrant>();
  return {
    put: async (grant) => void grants.set(grant.sessionId, grant),
    get: async (sessionId) => grants.get(sessionId),
    revoke: async (sessionId) => grants.delete(sessionId),
  };
}

interface Entry {
  fingerprint: string;
  token: string | null;
  outcome: StoredOutcome | null;
}

/** Idempotency records in a Map (no expiry: a bench run is short). */
export function memoryIdempotencyStore(): IdempotencyStore {
  const entries = new Map<string, Entry>();
  const uncertain = new Map<string, string>();
  const approvals = new Map<string, string>();
  let tokens = 0;
  return {
    async claim(scope, fingerprint): Promise<Claim> {
      const e = entries.get(scope);
      if (e) {
        if (e.fingerprint !== fingerprint) return { kind: "conflict" };
        return e.outcome ? { kind: "replay", outcome: e.outcome } : { kind: "in_progress" };
      }
      const token = `t${++tokens}`;
      entries.set(scope, { fingerprint, token, outcome: null });
      return { kind: "claimed", token };
    },
    async complete(scope, token, _fingerprint, outcome) {
      const e = entries.get(scope);
      if (e?.token === token) e.outcome = outcome;
    },
    async release(scope, token) {
      if (entries.get(scope)?.token === token) entries.delete(scope);
    },
    async renew() {
      // no leases here: a bench run does not die mid-write
    },
    async uncertainKey(sessionId, slot) {
      return uncertain.get(`${sessionId}\n${slot}`);
    },
    async rememberUncertain(sessionId, slot, key) {
      uncertain.set(`${sessionId}\n${slot}`, key);
    },
    async forgetUncertain(sessionId, slot) {
      uncertain.delete(`${sessionId}\n${slot}`);
    },
    async consumeApproval(nonce, owner) {
      const had = approvals.get(nonce);
      if (had === undefined) approvals.set(nonce, owner);
      return had === undefined ? "fresh" : had === owner ? "same" : "used";
    },
    async close() {
      entries.clear();
    },
  };
}
