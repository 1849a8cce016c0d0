/**
 * The grant step: the trusted binding of a call is a live session grant that agrees with the
 * request (workspace, document, actor, and a scope within the grant's).
 */
import type * as T from "../../../generated/types";
import { ERR } from "../../../generated/registry";
import { isStoreUnavailable } from "../../../common/sqlite";
import { isGrantLive } from "../../../common/grant-liveness";
import { refuse } from "../tool-failure";
import type { DispatchDeps } from "./context";

export async function resolveGrant(deps: DispatchDeps, request: T.ToolRequest): Promise<T.SessionGrant> {
  // a store that says "retry later" (SQLite busy, Postgres down) is that; any other failure, unavailable
  const grant = await deps.grants
    .get(request.sessionId)
    .catch((e: unknown) => refuse(isStoreUnavailable(e) ? ERR.storeUnavailable : ERR.unavailable));
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
