/**
 * When a session grant is alive: the one check every transport, store and the dispatcher use,
 * against one injected clock. A time that cannot be read (NaN from Date.parse, e.g. a leap
 * second) never means "forever": it counts as expired.
 */

/** What the check needs of a grant. */
export interface Expiring {
  readonly expiresAt: string;
}

/** The milliseconds since the epoch when the grant dies, or NaN when expiresAt cannot be read. */
export function expiryMs(grant: Expiring): number {
  return Date.parse(grant.expiresAt);
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
