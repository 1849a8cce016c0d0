/**
 * When a session grant is alive: the one check every transport, store and the dispatcher use,
 * against one injected clock. A time that cannot be read (NaN from Date.parse, e.g. a leap
 * second) never means "forever": it counts as expired.
 */

/** What the check needs of a grant. */
export interface Expiring {
  readonly expiresAt: string;
}

/**
 * Date.parse of each expiresAt seen, by its text: a session's grant is judged on every call, and the
 * parse of the same text always gives the same number (NaN included), so it is done once. Bounded:
 * past MAX_CACHED texts the cache starts over.
 */
const parsed = new Map<string, number>();
const MAX_CACHED = 4096;

/** The milliseconds since the epoch when the grant dies, or NaN when expiresAt cannot be read. */
export function expiryMs(grant: Expiring): number {
  const text = grant.expiresAt;
  let ms = parsed.get(text);
  if (ms === undefined) {
    ms = Date.parse(text);
    if (parsed.size >= MAX_CACHED) parsed.clear();
    parsed.set(text, ms);
  }
  return ms;
}

/** True when expiresAt is a time this clock can compare (the registration check). */
export function hasReadableExpiry(grant: Expiring): boolean {
  return Number.isFinite(expiryMs(grant));
}

/** True while now is before expiresAt; false for an expired or unreadable expiresAt. */
export function isGrantLive(grant: Expiring, now: number): boolean {
  const expires = expiryMs(grant);
  return Number.isFinite(expires) && now < expires;
}

/** How long the grant still lives (0 when expired or unreadable): a store's TTL. */
export function remainingMs(grant: Expiring, now: number): number {
  const expires = expiryMs(grant);
  return Number.isFinite(expires) && expires > now ? expires - now : 0;
}
