/**
 * The session-grant store's interface, with no store behind it: SQLite (grant-store.ts), Redis
 * (redis-grant-store.ts) and PostgreSQL (pg-grant-store.ts) implement it. The dispatcher's types
 * name this file, so a package that embeds the dispatcher needs no database driver's types.
 */
import type { SessionGrant } from "../../generated/types";

/** Who a grant was issued to, as an OAuth token names them: the issuer and the token's subject (sub). */
export type Principal = NonNullable<SessionGrant["principal"]>;

/**
 * Whether `grant` may be used by `principal`: only a grant issued to exactly that issuer and
 * subject. A grant without a principal (issued for the static token's holder, or written before
 * grants recorded one) belongs to no OAuth caller.
 */
export function grantBelongsTo(grant: SessionGrant, principal: Principal): boolean {
  return grant.principal?.issuer === principal.issuer && grant.principal?.subject === principal.subject;
}

export interface GrantStore {
  put(grant: SessionGrant): Promise<void>;
  get(sessionId: string): Promise<SessionGrant | undefined>;
  revoke(sessionId: string): Promise<boolean>;
  /** Releases a connection the store holds, if any. */
  close?(): void | Promise<void>;
}
