/**
 * Where the runtime remembers keyed writes: the fast path that answers a retry without asking the
 * kernel. The kernel keeps its own record in the same transaction as the write and is the last
 * guard, so losing this store (or a lease running out) never causes a second write.
 *
 * Every time is in milliseconds. Every path checks the fingerprint: a live record for the same
 * scope with another fingerprint is a conflict, whether the first request is running or done.
 *
 * A claim's lease is short (default 5 s) and renewed by a heartbeat while its write runs, so a
 * process that dies mid-write (kill -9) holds the key for a few seconds, not for the whole write
 * budget; a lease that runs out while the write still runs lets a retry through to the kernel,
 * whose own record makes that retry replay or wait, never write twice.
 *
 * The store also remembers the keys of uncertain writes (keyOrigin "tool_call"; see the
 * dispatcher and contract/README.md "Reconciling a lost answer"): per session, slot (a sha256 of
 * the session, identity, tool and request fingerprint) -> the idempotency key of a write whose
 * answer was uncertain, for a bounded time and at most `cap` slots per session. A keyOrigin
 * "tool_call" write's slot is remembered before the write runs and forgotten only once its answer
 * was delivered to a caller (or it failed definitely): "uncertain" means "no caller has the outcome".
 *
 * And it uses approval tokens up (docs/APPROVAL.md): a token's nonce is consumed once, atomically,
 * by the write it approves (the owner: that write's idempotency scope), and kept until the token
 * expires. A retry of the same write (same key) finds its own consumption and goes on to replay;
 * any other use finds the nonce used.
 */
import type { ApprovalRecordStore } from "../approval/record";

export interface StoredOutcome {
  commandId: string;
  result: unknown;
}

export type Claim =
  /** Nobody holds the scope: go ahead, then complete or release with this token. */
  | { kind: "claimed"; token: string }
  /** Done before with the same fingerprint: answer with this. */
  | { kind: "replay"; outcome: StoredOutcome }
  /** Held (running or done) with another fingerprint. */
  | { kind: "conflict" }
  /** Running now with the same fingerprint, under a live lease. */
  | { kind: "in_progress" };

/** An uncertain write's slot, as claimUncertain takes it. */
export interface SlotOfWrite {
  sessionId: string;
  slot: string;
  /** The request's own key, used when the slot remembers none. */
  key: string;
  ttlMs: number;
  cap: number;
}

/** What claimUncertain found and did: the key the write runs under, the scope it makes, the claim. */
export interface UncertainClaim {
  /** The key the slot remembered before (undefined: none, the request's key was used). */
  remembered: string | undefined;
  key: string;
  scope: string;
  claim: Claim;
}

/** What consuming an approval nonce found. */
export type ApprovalUse = "fresh" | "same" | "used";

export interface IdempotencyStore {
  /** Atomically: replay, conflict, in_progress, or take the scope for leaseMs. */
  claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim>;
  /** Records the outcome for ttlMs, if token still holds the scope. */
  complete(scope: string, token: string, fingerprint: string, outcome: StoredOutcome, ttlMs: number): Promise<void>;
  /** Gives the scope up after a failure, if token still holds it: a failed call does not use the key up. */
  release(scope: string, token: string): Promise<void>;
  /** Extends a running claim's lease to leaseMs from now, if token still holds the scope (the heartbeat). */
  renew(scope: string, token: string, leaseMs: number): Promise<void>;
  /** The key remembered for an uncertain write in this session's slot, while it lives. */
  uncertainKey(sessionId: string, slot: string): Promise<string | undefined>;
  /** Remembers slot -> key for ttlMs; past `cap` slots in the session the oldest are dropped. */
  rememberUncertain(sessionId: string, slot: string, key: string, ttlMs: number, cap: number): Promise<void>;
  /**
   * Optional: uncertainKey, rememberUncertain and claim of one write, in one atomic step (one
   * transaction, one round trip) instead of three: the slot's remembered key (else slot.key), the
   * slot holding it, then the claim of scopeOf(that key). When it fails, nothing of it happened, and
   * the caller takes the three steps one by one (each with its own failure rule).
   */
  claimUncertain?(
    slot: SlotOfWrite,
    scopeOf: (key: string) => string,
    fingerprint: string,
    leaseMs: number,
  ): Promise<UncertainClaim>;
  /**
   * Forgets a slot: its write's outcome reached a caller (the delivery rule, docs/RELIABILITY.md),
   * or it failed definitely. With `key`, only while the slot still holds that key: a late delivery
   * of an earlier write must not forget the slot of a newer write made since (compare-and-delete,
   * atomic). Implementations must keep slots across a restart of the process (the host's retry after
   * a runtime restart relies on it); how well a store keeps them across its own restart is its row
   * in docs/RELIABILITY.md.
   */
  forgetUncertain(sessionId: string, slot: string, key?: string): Promise<void>;
  /**
   * Atomically uses up an approval nonce for owner, kept ttlMs (at least the token's remaining life): "fresh" the
   * first time, "same" when owner already used it (a retry of that write), "used" for anyone else.
   */
  consumeApproval(nonce: string, owner: string, ttlMs: number): Promise<ApprovalUse>;
  /**
   * A random id of this store's data, created atomically on first use and kept with the approval
   * nonces, so it lives and dies with them: a store emptied (Redis restarted without persistence, a
   * new state file) answers a new id. The dispatcher binds the approval key to it, so a token is
   * honoured only by instances using up their nonces in the same store (docs/RELIABILITY.md).
   * Every persistent store implements it (SQLite, Redis, Postgres); only a throwaway in-memory store
   * (a benchmark's) may leave it out, and then tokens are bound to the secret alone.
   */
  storeId?(): Promise<string>;
  /**
   * Approval records kept beside the nonces (runtime/approval/record.ts), on the same connection:
   * Redis and Postgres give theirs; without it the runtime keeps them in its state file.
   */
  approvalRecords?(now: () => number): ApprovalRecordStore;
  close(): Promise<void>;
}
