/**
 * The approval page (approval-page.ts) for MCP clients that cannot show the yes/no form
 * (docs/MCP.md, "Approval on the page"). The page records the person's answer in the call's
 * approval record; the call completes when the client sends it again.
 *
 * - **URL mode.** A client that declared only URL-mode elicitation gets one `elicitation/create`
 *   in URL mode (2026-07-28 `input_required`; on a 2025-11-25 connection the SDK's legacy shim sends
 *   it with an `elicitationId`) naming `/approvals/<record id>`, and the same signed requestState as
 *   a form round. On the retry the record says what happened: approved -> the call goes to the
 *   dispatcher with the token (written once: its nonce is used up there); declined, expired or
 *   cancelled -> the runtime refuses as the record says; still pending -> asked again (the same
 *   URL), nothing used up, unless the client reports that the person declined or dismissed the
 *   URL (then declined, as in a form round).
 * - **The 2025-era stateless HTTP path** (no request can reach the client) answers a structured
 *   `approval_required` envelope (without `error.approval`: its token and summary are never for
 *   the model) and names the record's page in `_meta["mnote/approvalUrl"]` and in a second text
 *   block. The same call sent again is the same tool call (statelessCallId), so the dispatcher
 *   finds its record: approved -> written once (the record names the idempotency key, so a second
 *   retry replays); pending -> the page again, nothing written; declined -> approval_denied once,
 *   then a fresh question (a new page); approved but its token expired unwritten -> a fresh
 *   question (the dispatcher's generations, docs/APPROVAL.md "The record's life cycle").
 *
 * Who may answer is the record's principal (the page checks it). A client the operator vouches
 * for (the static token, stdio: it can mint the same ticket itself) is sent a URL carrying a
 * sign-in ticket for that principal; an OAuth caller's URL carries none (the spec's "no
 * pre-authenticated URL"): its person signs in on the page. A URL the model reads never carries one.
 */
import { createHash } from "node:crypto";
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputResponse,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { ERR, modelView, type ToolDescriptor } from "../../generated/registry";
import { staysPrivate } from "../../common/http/page-url";
import type { ApprovalChallenge, ToolResponse } from "../../generated/types";
import { approverKeys, signApprover, TICKET_MS } from "../approval/approver";
import { statusAt, type ApprovalRecordStore } from "../approval/record";
import { approvalIdOf } from "../approval/token";
import { failure, ToolFailure } from "../dispatch/tool-failure";
import { APPROVAL_INPUT, approvalAnswer, askAgain, askApproval, stateProblem } from "./mcp-approval";
import { argumentsFingerprint, type ApprovalState, type McpRequestStates } from "./mcp-request-state";

/** Where a result names the approval page of its record, for the host. */
export const APPROVAL_URL_META_KEY = "mnote/approvalUrl";

/** The page an MCP server sends its people to, and the store its answers are read from. */
export interface McpApprovalPage {
  records: ApprovalRecordStore;
  /** The page of one record, or undefined while no base URL is known; `signIn`: the principal a ticket in it signs in. */
  url(id: string, signIn?: string): string | undefined;
}

/**
 * The page's links: `base()` is the origin a browser reaches the page at (--approval-page-url, the
 * OAuth resource's origin, or the address `mcp --http` listens on), an origin only; a ticket is
 * signed as the page's own tickets are (runtime/approval/approver.ts), for 10 minutes, and put only
 * in an https:// link or one to a loopback host (common/http/page-url.ts).
 */
export function mcpApprovalPage(options: {
  records: ApprovalRecordStore;
  secret: Buffer;
  now: () => number;
  base: () => string | undefined;
}): McpApprovalPage {
  const keys = approverKeys(options.secret);
  return {
    records: options.records,
    url(id, signIn) {
      const base = options.base();
      if (base === undefined) return undefined;
      const url = new URL(`/approvals/${id}`, base);
      // an origin only (docs/MCP.md): a path would be silently dropped here
      if (new URL(base).pathname !== "/") throw new Error(`the approval page's base must be an origin, not ${base}`);
      // a sign-in ticket never crosses a network in clear: none in plain http to another host
      if (signIn !== undefined && staysPrivate(url))
        url.searchParams.set("ticket", signApprover(keys, "ticket", signIn, options.now() + TICKET_MS));
      return url.href;
    },
  };
}

/** What the approval rounds of one call know about their caller. */
export interface Asker {
  states: McpRequestStates;
  page?: McpApprovalPage;
  principal: string;
  /** The operator vouches for the caller (the static token, stdio): the URL a client opens signs its person in. */
  vouched: boolean;
  now(): number;
}

/** The client's declared capabilities: the request's own on 2026-07-28, the connection's on 2025-11-25. */
export function clientCapabilities(
  ctx: ServerContext,
  connection?: ClientCapabilities,
): ClientCapabilities | undefined {
  const own = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return (own as ClientCapabilities | undefined) ?? connection;
}

/** Whether a client can be asked only by URL (it declared url and not form; a bare `elicitation: {}` is form). */
export function urlOnly(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  return elicitation !== undefined && elicitation.url !== undefined && elicitation.form === undefined;
}

/** The URL a client opens for a record: with a sign-in ticket only for a caller the operator vouches for. */
const urlFor = (a: Asker, id: string) => a.page?.url(id, a.vouched ? a.principal : undefined);

/** The first round of an approval: a URL round for a URL-only client where a page is served, else the form. */
export function askPerson(
  a: Asker,
  tool: ToolDescriptor,
  challenge: ApprovalChallenge,
  call: { args: unknown; capabilities: ClientCapabilities | undefined },
): Promise<InputRequiredResult> {
  const id = approvalIdOf(challenge.token);
  const url = id !== undefined && urlOnly(call.capabilities) ? urlFor(a, id) : undefined;
  const page = id !== undefined && url !== undefined ? { id, url } : undefined;
  return askApproval(a.states, tool, challenge, { principal: a.principal, args: call.args }, page);
}

/** What the retry of a URL round does: write (or be refused) with the token, ask again, or start afresh. */
export type PageAnswer = { token: string; answer?: "declined" } | { round: InputRequiredResult } | { fresh: true };

/** The retry of a URL round (state.u names the record), judged by the record the person answered. */
export async function pageAnswer(
  a: Asker,
  tool: ToolDescriptor,
  state: ApprovalState & { u: string },
  ctx: ServerContext,
  args: unknown,
): Promise<PageAnswer | ToolFailure> {
  const problem = stateProblem(state, tool, { principal: a.principal, args, now: a.now() });
  if (problem) return problem;
  const token = a.states.unseal(state.k);
  if (token === undefined || approvalIdOf(token) !== state.u)
    return failure(ERR.approvalInvalid, "altered", { decision: { decision: "invalid", level: "ask" } });
  if (!a.page) return { fresh: true }; // no page here to read the answer from: asked afresh
  const record = await a.page.records.get(state.u).catch(() => null);
  // the store cannot say: nothing is sent, nothing used up (the runtime's own retryable refusal)
  if (record === null) return new ToolFailure(ERR.storeUnavailable);
  if (record === undefined) return { fresh: true }; // the store forgot it: the person is asked again
  // answered on the page, or ended: the runtime writes once on approved, refuses as the record says otherwise
  if (statusAt(record, a.now()) !== "pending") return { token };
  const answer = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_INPUT);
  if (answer.kind === "elicit" && answer.action !== "accept") return { token, answer: "declined" };
  return { round: await askAgain(a.states, state, urlFor(a, state.u)) };
}

/**
 * The retry of an approval round: a form's answer (mcp-approval.ts) or, for a URL round, the
 * record the person answered on the page.
 */
export async function roundAnswer(
  a: Asker,
  tool: ToolDescriptor,
  state: ApprovalState,
  ctx: ServerContext,
  call: { args: unknown; now: number },
): Promise<PageAnswer | ToolFailure> {
  if (typeof state.u === "string") return pageAnswer(a, tool, state as ApprovalState & { u: string }, ctx, call.args);
  const answer = approvalAnswer(a.states, tool, state, ctx, { principal: a.principal, ...call });
  return answer instanceof ToolFailure || !("again" in answer) ? answer : { round: await askAgain(a.states, state) };
}

/**
 * On the 2025-era stateless path the same call (principal, tool, arguments) is the same tool call,
 * so its approval record is found again when it is sent again (the dispatcher's resume anywhere).
 */
export function statelessCallId(principal: string, tool: ToolDescriptor, args: unknown): string {
  const digest = createHash("sha256").update(JSON.stringify([principal, tool.name, argumentsFingerprint(args)]));
  return `mcp_${digest.digest("hex").slice(0, 32)}`;
}

/**
 * The 2025-era stateless answer to approval_required: the write, when the record was approved on
 * the page (its key derived from the record, so a second retry replays), else the structured
 * approval_required naming the page. Undefined where no page is served.
 */
export async function toPage(
  a: Asker,
  response: ToolResponse,
  challenge: ApprovalChallenge,
): Promise<
  | { write: { approval: { token: string }; idempotencyKey: string; keyOrigin: "caller" } }
  | { result: CallToolResult }
  | undefined
> {
  const id = approvalIdOf(challenge.token);
  const url = id === undefined ? undefined : a.page?.url(id);
  if (id === undefined || url === undefined || response.ok) return undefined;
  const record = await a.page!.records.get(id).catch(() => undefined);
  if (record && statusAt(record, a.now()) === "approved")
    return {
      write: { approval: { token: challenge.token }, idempotencyKey: `mcp-approval-${id}`, keyOrigin: "caller" },
    };
  const { approval: _secret, ...error } = response.error;
  const view = modelView({ ...response, error });
  return {
    result: {
      content: [
        { type: "text", text: JSON.stringify(view) },
        { type: "text", text: url },
      ],
      structuredContent: view,
      isError: true,
      _meta: { [APPROVAL_URL_META_KEY]: url },
    },
  };
}
