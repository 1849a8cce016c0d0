/**
 * The approval page's OAuth side (docs/APPROVAL.md, "The approval page"), on `mcp --http` with
 * --oauth-issuer: a bearer token, verified by the MCP server's own gate (mcp-oauth.ts: signature,
 * issuer, audience, expiry, a `sub`), speaks for its principal, the issuer and subject.
 *
 * - The JSON API (GET and POST /v1/approvals/:id): the token reads and answers the records of its
 *   own principal, in any session granted to it (a record's principal is principalKey of its
 *   session and that issuer and subject, runtime/approval/record.ts). Another principal's record
 *   is answered exactly as an unknown one (404, the same body: no existence oracle). A token that
 *   does not verify is 401 with its challenge, before any record is looked up. The scope rule is
 *   the MCP gate's: the token must carry the capability of the record's tool (403
 *   insufficient_scope), since answering is the write's approval.
 * - POST /v1/approvals/tickets: an OAuth caller mints a ticket for its own principal only, in a
 *   live session granted to it (another's session: the same 404 as no grant). The ticket signs a
 *   browser in for every approval of that session, so the token must carry every scope the
 *   session's grant holds.
 * A bearer that is one of the host's tokens is the host, not a person: it is not read here.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../../common/http/answer";
import { hasBearer } from "../../common/http/auth";
import { toolByName } from "../../generated/registry";
import { principalKey, type ApprovalRecord } from "../approval/record";
import { grantBelongsTo, type Principal } from "../state/grants";
import type { SessionGrant } from "../../generated/types";

/** A verified OAuth caller (mcp-oauth.ts's OAuthCaller). */
export interface PageCaller {
  principal: Principal;
  scopes: string[];
}

/** What the page needs of the MCP server's OAuth (McpOAuth has both). */
export interface PageOAuth {
  /** The caller of an Authorization header, or the 401 challenge to answer. */
  authenticate(authorization: string | undefined): Promise<PageCaller | Response>;
  /** The 403 insufficient_scope challenge naming the scopes needed. */
  insufficientScope(scopes: string[]): Response;
}

/** The 404 of a record that is not there, or not the caller's: one answer for both. */
export const noSuchApproval = () => new HttpError(404, "no such approval (answered long ago, or never asked here)");

/** An OAuth challenge (401 or 403) as the HTTP layer's error, its WWW-Authenticate and body kept. */
async function refusalOf(response: Response): Promise<HttpError> {
  const challenge = response.headers.get("www-authenticate") ?? "";
  const body = (await response.json().catch(() => undefined)) as { error_description?: unknown } | undefined;
  const message = typeof body?.error_description === "string" ? body.error_description : "the bearer token is refused";
  return new HttpError(response.status, message, body, challenge ? { "www-authenticate": challenge } : {});
}

/**
 * The OAuth caller of a request carrying a bearer token other than the host's; undefined when it
 * carries none (or OAuth is off). A token that does not verify throws its 401.
 */
export async function bearerCaller(
  oauth: PageOAuth | undefined,
  req: IncomingMessage,
  hostTokens: Array<string | undefined>,
): Promise<PageCaller | undefined> {
  const authorization = req.headers.authorization;
  if (!oauth || typeof authorization !== "string" || !/^Bearer\s/i.test(authorization)) return undefined;
  if (hasBearer(req, ...hostTokens)) return undefined;
  const caller = await oauth.authenticate(authorization);
  if (caller instanceof Response) throw await refusalOf(caller);
  return caller;
}

/** The record, if it is the caller's and the token's scopes cover its tool (else 404, or 403 insufficient_scope). */
export async function callersRecord(
  oauth: PageOAuth,
  caller: PageCaller,
  record: ApprovalRecord,
): Promise<ApprovalRecord> {
  if (record.principal !== principalKey(record.sessionId, caller.principal)) throw noSuchApproval();
  const capability = toolByName(record.toolName)?.capability;
  if (capability === undefined) throw new HttpError(403, "this approval is of a tool this server does not have");
  if (!caller.scopes.includes(capability)) throw await refusalOf(oauth.insufficientScope([capability]));
  return record;
}

/**
 * The principal an OAuth caller's ticket is for: its own, in a live session granted to it, with
 * every scope of that grant. `named` (the body's issuer and subject) may only name the caller.
 */
export async function ticketPrincipal(
  oauth: PageOAuth,
  caller: PageCaller,
  grant: SessionGrant,
  named: { issuer?: unknown; subject?: unknown },
): Promise<Principal> {
  const { issuer, subject } = caller.principal;
  if ((named.issuer ?? issuer) !== issuer || (named.subject ?? subject) !== subject)
    throw new HttpError(403, "an OAuth caller signs in only itself");
  if (!grantBelongsTo(grant, caller.principal)) throw new HttpError(404, "no live grant for this session");
  const missing = grant.capabilityScope.filter((scope) => !caller.scopes.includes(scope));
  if (missing.length > 0) throw await refusalOf(oauth.insufficientScope(missing));
  return caller.principal;
}
