/**
 * Where the runtime remembers keyed writes: the fast path that answers a retry without asking the
 * kernel. The kernel keeps its own record in the same transaction as the write and is the last
 * guard, so losing this store (or a lease running out) never causes a second write.
 *
 * Every time is in milliseconds. Every path checks the fingerprint: a live record for the same
 * scope with another fingerprint is a conflict, whether the first request is running or done.
 */
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

export interface IdempotencyStore {
  /** Atomically: replay, conflict, in_progress, or take the scope for leaseMs. */
  claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim>;
  /** Records the outcome for ttlMs, if token still holds the scope. */
  complete(scope: string, token: string, fingerprint: string, outcome: StoredOutcome, ttlMs: number): Promise<void>;
  /** Gives the scope up after a failure, if token still holds it: a failed call does not use the key up. */
  release(scope: string, token: string): Promise<void>;
  close(): Promise<void>;
}
