/**
 * The approval page (docs/APPROVAL.md, "The approval page"), mounted by `serve` and `mcp --http`:
 *   GET  /approvals/:id          the person's preview (zh-CN or en by Accept-Language), Approve and
 *                                Decline, or "already answered" / "expired"; `?ticket=` (minted by
 *                                the host) sets the approver cookie and redirects to the bare URL
 *   GET  /v1/approvals/:id       the same as JSON, for hosts with their own UI; to a reader's token
 *                                (the tool token: the Hermes plugin that named the page) its status only
 *   POST /v1/approvals/:id       {"answer": "approve" | "decline"}: settles the record, once
 *   POST /v1/approvals/tickets   {"sessionId", "subject"?} -> a ticket for that session's person
 *                                (the host's token; the session's grant must be live), or, with
 *                                an OAuth bearer, for the caller itself (approval-page-oauth.ts)
 * Only the record's own principal may read or answer it: the approver cookie (signed, HttpOnly,
 * SameSite=Strict) or, on `mcp --http` with OAuth, a bearer token of the record's issuer and
 * subject (approval-page-oauth.ts). Another's record is answered exactly as an unknown one (404),
 * and no credential is 401 whatever the id: no answer tells whether a record exists. A cookie answer
 * carries the CSRF token of that cookie and record in a header (and the body must be JSON, which no
 * cross-site form can send). Nothing the model must not see is shown: no token, no session id.
 * The page records the answer; the write happens when the surface that asked retries (its token's
 * nonce is used up then, so a yes is one write).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { HttpError, sendJson } from "../../common/http/answer";
import { hasBearer, requireBearer } from "../../common/http/auth";
import { readJson } from "../../common/http/body";
import type { RequestContext, Route } from "../../common/http/server";
import { isGrantLive } from "../../common/grant-liveness";
import type { GrantStore } from "../state/grant-store";
import type { Runtime } from "../runtime";
import { principalKey, RECORD_ID, statusAt, type ApprovalRecord, type ApprovalRecordStore } from "../approval/record";
import {
  APPROVER_COOKIE,
  approverKeys,
  COOKIE_MS,
  cookieValue,
  csrfMatches,
  csrfToken,
  readApprover,
  readerLocale,
  signApprover,
  TICKET_MS,
  type ApproverKeys,
} from "../approval/approver";
import { pageHtml } from "../approval/page-html";
import {
  bearerCaller,
  callersRecord,
  noSuchApproval,
  ticketPrincipal,
  type PageCaller,
  type PageOAuth,
} from "./approval-page-oauth";

export interface ApprovalPageOptions {
  records: ApprovalRecordStore;
  grants: GrantStore;
  /** The approval secret: the cookie's and CSRF token's keys are derived from it. */
  secret: Buffer;
  now: () => number;
  /** Bearer tokens that may mint tickets (the host's). */
  hostTokens: Array<string | undefined>;
  /** Tokens that may read a record's status (not its preview, nor answer it): the tool token on `serve`. */
  readers?: Array<string | undefined>;
  /** OAuth over `mcp --http` (the server's own verifier): a bearer token's subject reads and answers its records. */
  oauth?: PageOAuth;
  /** Browsers reach the page over https (an https base URL, a TLS-terminating proxy): the approver cookie is `Secure`. */
  secureCookie?: boolean;
}

/** What the page needs of a runtime. */
export function pageStores(runtime: Runtime): Omit<ApprovalPageOptions, "hostTokens" | "oauth" | "readers"> {
  return { records: runtime.approvalRecords, grants: runtime.grants, secret: runtime.approvalSecret, now: runtime.now };
}

const PAGE = /^\/approvals\/([0-9a-f]{32})$/;
const API = /^\/v1\/approvals\/([0-9a-f]{32})$/;

/** The page's routes, for a createHttpService route list. */
export function approvalPageRoutes(options: ApprovalPageOptions): Route[] {
  const p: Page = { options, keys: approverKeys(options.secret) };
  return [
    { method: "GET", path: PAGE, handle: (ctx) => showPage(p, ctx) },
    { method: "GET", path: API, handle: (ctx) => showJson(p, ctx) },
    { method: "POST", path: API, handle: (ctx) => answer(p, ctx) },
    { method: "POST", path: "/v1/approvals/tickets", handle: (ctx) => mintTicket(p, ctx) },
  ];
}

interface Page {
  options: ApprovalPageOptions;
  keys: ApproverKeys;
}

/** Who is asking: an OAuth bearer's caller (a token that does not verify: 401), else the cookie's principal (with the cookie, for CSRF). */
async function viewer(p: Page, req: IncomingMessage): Promise<Viewer> {
  const caller = await bearerCaller(p.options.oauth, req, p.options.hostTokens);
  if (caller) return { caller };
  const cookie = cookieValue(req.headers.cookie);
  const fromCookie = cookie && readApprover(p.keys, "cookie", cookie, p.options.now());
  return fromCookie ? { principal: fromCookie, cookie } : {};
}

interface Viewer {
  principal?: string;
  cookie?: string;
  caller?: PageCaller;
}

/**
 * The record, if it exists and belongs to this viewer. No answer depends on whether another's record
 * exists: no credential is 401 before any record is looked up, and another person's record is
 * exactly the unknown one (noSuchApproval), for a cookie as for a bearer token.
 */
async function ownRecord(p: Page, id: string, who: Viewer): Promise<ApprovalRecord> {
  if (!who.caller && who.principal === undefined)
    throw new HttpError(401, "open the link your app gave you to sign in");
  if (!RECORD_ID.test(id)) throw noSuchApproval();
  const record = await p.options.records.get(id);
  if (!record) throw noSuchApproval();
  if (who.caller) return callersRecord(p.options.oauth!, who.caller, record);
  if (who.principal !== record.principal) throw noSuchApproval();
  return record;
}

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

async function showPage(p: Page, { req, res, params, query }: RequestContext): Promise<void> {
  const id = params[0]!;
  const locale = readerLocale(req.headers["accept-language"]);
  const ticket = query.get("ticket");
  if (ticket !== null) return useTicket(p, { req, res }, id, ticket);
  const who = await viewer(p, req);
  let record: ApprovalRecord | undefined;
  let refusal: number | undefined;
  try {
    record = await ownRecord(p, id, who);
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    refusal = e.status;
  }
  const nonce = randomBytes(16).toString("base64");
  const html = pageHtml({
    locale,
    nonce,
    refusal,
    view: record && {
      id,
      summary: record.summary[locale],
      status: statusAt(record, p.options.now()),
      expiresAt: new Date(record.expiresAt).toISOString(),
      csrf: who.cookie ? csrfToken(p.keys, who.cookie, id) : "",
    },
  });
  res.writeHead(refusal ?? 200, {
    ...SECURITY_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
  });
  res.end(html);
}

/** A ticket in the URL becomes the approver cookie, and the URL loses it (history, Referer). */
function useTicket(
  p: Page,
  { req, res }: { req: IncomingMessage; res: ServerResponse },
  id: string,
  ticket: string,
): void {
  const now = p.options.now();
  const principal = readApprover(p.keys, "ticket", ticket, now);
  if (!principal) throw new HttpError(403, "this sign-in link is not valid (or expired): ask your app for a new one");
  const cookie = signApprover(p.keys, "cookie", principal, now + COOKIE_MS);
  // over https (served so, or behind an https base URL) the cookie never travels in clear
  const secure = p.options.secureCookie === true || (req.socket as { encrypted?: boolean }).encrypted === true;
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    location: `/approvals/${id}`,
    "set-cookie": `${APPROVER_COOKIE}=${cookie}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MS / 1000}${secure ? "; Secure" : ""}`,
  });
  res.end();
}

function recordJson(p: Page, record: ApprovalRecord, locale: "zh-CN" | "en") {
  return {
    id: record.id,
    status: statusAt(record, p.options.now()),
    summary: record.summary[locale],
    locale,
    expiresAt: new Date(record.expiresAt).toISOString(),
    answeredAt: record.answeredAt === null ? null : new Date(record.answeredAt).toISOString(),
  };
}

async function showJson(p: Page, { req, res, params }: RequestContext): Promise<void> {
  // a surface that sent its person to the page reads whether they answered before it sends the token
  if (p.options.readers && hasBearer(req, ...p.options.readers)) {
    const record = RECORD_ID.test(params[0]!) ? await p.options.records.get(params[0]!) : undefined;
    if (!record) throw noSuchApproval();
    const status = statusAt(record, p.options.now());
    return sendJson(
      res,
      200,
      { id: record.id, status, expiresAt: new Date(record.expiresAt).toISOString() },
      SECURITY_HEADERS,
    );
  }
  const record = await ownRecord(p, params[0]!, await viewer(p, req));
  sendJson(res, 200, recordJson(p, record, readerLocale(req.headers["accept-language"])), SECURITY_HEADERS);
}

async function answer(p: Page, { req, res, params }: RequestContext): Promise<void> {
  const id = params[0]!;
  const who = await viewer(p, req);
  const record = await ownRecord(p, id, who);
  // a cookie is sent by the browser on its own: the CSRF token proves the page asked
  if (who.cookie && !csrfMatches(p.keys, who.cookie, id, header(req, "x-mnote-csrf")))
    throw new HttpError(403, "the page's CSRF token is missing or wrong: reload the page");
  const body = (await readJson(req, 1024)) as { answer?: unknown } | null;
  const given = body && typeof body === "object" ? body.answer : undefined;
  if (given !== "approve" && given !== "decline") throw new HttpError(400, 'answer must be "approve" or "decline"');
  const now = p.options.now();
  const to = given === "approve" ? "approved" : "declined";
  const settled = await p.options.records.settle(id, to, {
    by: record.principal,
    reason: to === "declined" ? "declined" : null,
    now,
  });
  const after = settled.record ?? record;
  const locale = readerLocale(req.headers["accept-language"]);
  // 409: answered before (or expired) by anyone, this tab included; the body says how it stands
  sendJson(
    res,
    settled.changed ? 200 : 409,
    { ...recordJson(p, after, locale), answered: settled.changed },
    SECURITY_HEADERS,
  );
}

async function mintTicket(p: Page, { req, res }: RequestContext): Promise<void> {
  // the host's token signs in any session's person; an OAuth bearer only its own principal
  const caller = await bearerCaller(p.options.oauth, req, p.options.hostTokens);
  if (!caller) requireBearer(req, p.options.hostTokens, "the host's token is required to sign a person in");
  const body = (await readJson(req, 4096)) as { sessionId?: unknown; issuer?: unknown; subject?: unknown } | null;
  const sessionId = body?.sessionId;
  const { issuer, subject } = body ?? {};
  if (typeof sessionId !== "string") throw new HttpError(400, "sessionId must be a string");
  // an OAuth caller's approvals are its principal's (issuer and subject, both or neither)
  if ((issuer !== undefined || subject !== undefined) && (typeof issuer !== "string" || typeof subject !== "string"))
    throw new HttpError(400, "issuer and subject must be given together, as strings");
  const grant = await p.options.grants.get(sessionId);
  if (!grant || !isGrantLive(grant, p.options.now())) throw new HttpError(404, "no live grant for this session");
  const until = p.options.now() + TICKET_MS;
  const named = typeof issuer === "string" && typeof subject === "string" ? { issuer, subject } : undefined;
  const who = caller ? await ticketPrincipal(p.options.oauth!, caller, grant, { issuer, subject }) : named;
  const ticket = signApprover(p.keys, "ticket", principalKey(sessionId, who), until);
  sendJson(res, 200, { ticket, expiresAt: new Date(until).toISOString() });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
