/**
 * The session-grant store's interface, with no store behind it: SQLite (grant-store.ts), Redis
 * (redis-grant-store.ts) and PostgreSQL (pg-grant-store.ts) implement it. The dispatcher's types
 * name this file, so a package that embeds the dispatcher needs no database driver's types.
 */
import type { SessionGrant } from "../../generated/types";

export interface GrantStore {
  put(grant: SessionGrant): Promise<void>;
  get(sessionId: string): Promise<SessionGrant | undefined>;
  revoke(sessionId: string): Promise<boolean>;
  /** Releases a connection the store holds, if any. */
  close?(): void | Promise<void>;
}
