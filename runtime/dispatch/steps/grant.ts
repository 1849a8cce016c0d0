/**
 * The grant step: the trusted binding of a call is a live session grant that agrees with the
 * request (workspace, document, actor, and a scope within the grant's).
 */
import type * as T from "../../../generated/types";
import { ERR } from "../../../generated/registry";
import { isStoreUnavailable } from "../../../common/sqlite";
import { isGrantLive } from "../../../common/grant-liveness";
import { refuse } from "../tool-failure";
import type { GrantStore } from "../../state/grants";
import type { DispatchDeps } from "./context";

/**
 * Grants a transport of this runtime read for the request it is about to dispatch, by that request
 * object (the MCP server reads the session's grant to build the envelope): the dispatcher takes it
 * instead of reading the same row again a moment later, once, and only from the same store. Its
 * liveness and agreement are checked here as for a grant read here: the grant is still asked of
 * the store once per call (which may answer from its per-process cache, grant-cache.ts, but never
 * with a grant revoked or replaced before the call began), so a revoked one is refused on the next call.
 */
const vouched = new WeakMap<object, { grant: T.SessionGrant; store: GrantStore }>();

/** Hands the dispatcher the grant just read from `store` for this request object (one use). */
export function vouchGrant(request: object, grant: T.SessionGrant, store: GrantStore): void {
  vouched.set(request, { grant, store });
}

function readGrant(deps: DispatchDeps, request: T.ToolRequest): Promise<T.SessionGrant | undefined> {
  const known = vouched.get(request);
  if (known) {
    vouched.delete(request);
    if (known.store === deps.grants && known.grant.sessionId === request.sessionId) return Promise.resolve(known.grant);
  }
  return deps.grants.get(request.sessionId);
}

export async function resolveGrant(deps: DispatchDeps, request: T.ToolRequest): Promise<T.SessionGrant> {
  // a store that says "retry later" (SQLite busy, Postgres down) is that; any other failure, unavailable
  const grant = await readGrant(deps, request).catch((e: unknown) =>
    refuse(isStoreUnavailable(e) ? ERR.storeUnavailable : ERR.unavailable),
  );
  if (!grant) refuse(ERR.notAuthenticated, "session_unknown");
  if (!isGrantLive(grant, deps.now())) refuse(ERR.notAuthenticated, "session_expired");
  const agrees =
    grant.workspaceId === request.workspaceId &&
    grant.documentId === request.documentId &&
    grant.actorId === request.actorId &&
    request.capabilityScope.every((scope) => grant.capabilityScope.includes(scope));
  if (!agrees) refuse(ERR.permissionDenied, "session_mismatch");
  return grant;
}
