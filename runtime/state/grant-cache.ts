/**
 * A per-process cache of session grants in front of a grant store, such that a put or revoke made
 * by any process sharing the store is seen by every call that starts after it returned. Two ways
 * to know a cached grant is still the store's (docs/RELIABILITY.md, "Session grants: the
 * per-process cache"):
 *
 * - SQLite (`grant-store.ts`): a revision row that triggers on the grants table bump on every
 *   write, by any connection or process, read on every call; a cached grant is used only while the
 *   revision is the one it was read under.
 * - PostgreSQL and Redis (`LeasedGrants` below): a lease. A cached grant is used for at most
 *   `leaseMs` after the read that fetched it was sent, and every put and revoke waits `leaseMs`
 *   (plus a margin) after its write is acknowledged before it returns. A cached copy was read
 *   before the write committed, so its lease has run out by the time the write returns: the next
 *   call in any process reads the store again. Only elapsed time on each process's monotonic
 *   clock is compared, never two clocks' readings.
 *
 * Either way a cached grant that has expired (by the store's clock) is not served: the store is
 * read instead, and the dispatcher judges what it returns, as without the cache. An absent grant is
 * never cached, so a newly registered one is seen at once.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { SessionGrant } from "../../generated/types";
import { isGrantLive } from "../../common/grant-liveness";

/** How many sessions one process keeps at most; past it the cache starts over. */
const MAX_ENTRIES = 4096;

/** The default lease of a cached grant on a network store, ms (every put and revoke waits it out). */
export const GRANT_LEASE_MS = 250;

/** Added to the writer's wait: a timer may fire up to a millisecond early, and clocks' rates differ by ppm. */
const MARGIN_MS = 5;

/** The grant, frozen: one object is handed to every call that finds it cached. */
function frozen(grant: SessionGrant): SessionGrant {
  Object.freeze(grant.capabilityScope);
  if (grant.principal) Object.freeze(grant.principal);
  return Object.freeze(grant);
}

/** Grants by session, each with the tag it was read under (a revision, or the time its read was sent). */
export class GrantCache {
  private readonly entries = new Map<string, { grant: SessionGrant; tag: number }>();

  find(sessionId: string): { grant: SessionGrant; tag: number } | undefined {
    return this.entries.get(sessionId);
  }

  keep(sessionId: string, grant: SessionGrant | undefined, tag: number): SessionGrant | undefined {
    if (!grant) {
      this.entries.delete(sessionId);
      return undefined;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(sessionId, { grant: frozen(grant), tag });
    return grant;
  }

  drop(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The lease protocol of a network store: reads through the cache, writes that wait the lease out. */
export class LeasedGrants {
  private readonly cache = new GrantCache();

  /** leaseMs 0: no caching and no waiting (every call reads the store). */
  constructor(readonly leaseMs: number = GRANT_LEASE_MS) {
    if (!(Number.isFinite(leaseMs) && leaseMs >= 0))
      throw new RangeError(`grant lease must be ms >= 0, not ${leaseMs}`);
  }

  /** The cached grant while its lease runs and it is live at `now`; otherwise `load`'s, cached. */
  async read(
    sessionId: string,
    now: number,
    load: () => Promise<SessionGrant | undefined>,
  ): Promise<SessionGrant | undefined> {
    if (this.leaseMs === 0) return load();
    const hit = this.cache.find(sessionId);
    if (hit && performance.now() - hit.tag < this.leaseMs && isGrantLive(hit.grant, now)) return hit.grant;
    const sent = performance.now(); // before the read goes out: the lease can only end early
    return this.cache.keep(sessionId, await load(), sent);
  }

  /**
   * A put or revoke of `sessionId`: drops this process's copy at once, runs the write, then waits
   * until every copy any process read before the write committed has run out of lease.
   */
  async write<T>(sessionId: string, run: () => Promise<T>): Promise<T> {
    this.cache.drop(sessionId);
    try {
      return await run();
    } finally {
      // a write that failed may still have committed (its answer lost): waited out the same
      this.cache.drop(sessionId);
      if (this.leaseMs > 0) await waitOut(this.leaseMs + MARGIN_MS);
    }
  }

  /** Every copy dropped (the store's connection was lost: what it held may have changed unseen). */
  clear(): void {
    this.cache.clear();
  }
}

/** Waits `ms` of this process's monotonic clock (a timer alone may fire a little early). */
async function waitOut(ms: number): Promise<void> {
  const until = performance.now() + ms;
  for (let left = ms; left > 0; left = until - performance.now()) await sleep(Math.ceil(left));
}
