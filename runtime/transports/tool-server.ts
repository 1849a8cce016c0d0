/**
 * `mnote-tools serve`: the runtime over HTTP.
 *   POST /v1/tools/call       a request envelope in, a response envelope out (tool token)
 *   POST /v1/tools/model-call a framework's tool call (the generated ai-sdk, langchain and
 *                             openai-agents targets): { sessionId, toolName, toolCallId,
 *                             arguments } in, a response envelope out (tool token); the runtime
 *                             builds the request (framework-call.ts)
 *   GET  /v1/tools            the registry: every tool's names, facts and model-facing parameters (tool token)
 *   GET  /healthz             liveness and the contract version (no token)
 *   POST /v1/sessions         register a session grant (host token: the mnote app)
 *   GET  /v1/sessions/:id     read a session's binding (tool or host token: the Hermes plugin needs
 *                             it to build requests; see the threat model in docs/RELIABILITY.md)
 *   DELETE /v1/sessions/:id   revoke a grant (host token)
 *   /approvals/:id, /v1/approvals/...  the approval page and its JSON API (approval-page.ts)
 * Every envelope answer is HTTP 200, whatever the envelope says, except a refused token (401), a
 * body over the limit (413) and a body that is not application/json (415), which still carry a
 * failure envelope. Host/Origin checks, body limits, timeouts and the http_error log line are the
 * shared HTTP layer's (common/http/server.ts); tool_call lines come from the dispatcher's onCall.
 * A tool answer counts as delivered (releasing a write's uncertain slot) only when no hang-up of the
 * client had been read when it was written and the response finished with the connection open
 * (watchDelivery; docs/RELIABILITY.md).
 */
import type { Server } from "node:http";
import { contract, ERR, toolList } from "../../generated/registry";
import { validateSessionGrant } from "../../generated/validators";
import { refusalResponse } from "../dispatch/dispatcher";
import { firstProblemPointer } from "../dispatch/problems";
import type { Runtime } from "../runtime";
import { HttpError, noteLogged, sendJson } from "../../common/http/answer";
import { requireBearer } from "../../common/http/auth";
import { readBody, readJson } from "../../common/http/body";
import { watchDelivery } from "../../common/http/delivery";
import { createHttpService, type RequestContext, type Timeouts } from "../../common/http/server";
import type { Logger } from "../../common/http/logger";
import { isGrantLive } from "../../common/grant-liveness";
import { continueTrace } from "../../common/telemetry/propagation";
import { DEFAULT_PROVIDER, PROVIDERS, toolsForProvider } from "../../generated/providers";
import { MODEL_CALL_PATH } from "../../generated/frameworks/connection";
import { DEFAULT_LIMITS, readRequest } from "../dispatch/limits";
import { failureResponse } from "../dispatch/dispatcher";
import { ToolFailure } from "../dispatch/tool-failure";
import { frameworkCaller } from "./framework-call";
import type { Delivery } from "../dispatch/api";
import { NOTHING_TO_DELIVER } from "../dispatch/steps/uncertain";
import { approvalPageRoutes, pageStores } from "./approval-page";

/**
 * A framework call's body: the model's arguments one level deeper than an envelope's args, and a
 * few members of its own, so a small margin over the envelope limits (the dispatcher then applies
 * the exact limits to the envelope the runtime builds).
 */
const MODEL_CALL_LIMITS = {
  ...DEFAULT_LIMITS,
  maxBytes: DEFAULT_LIMITS.maxBytes + 64 * 1024,
  maxDepth: DEFAULT_LIMITS.maxDepth + 1,
  maxValues: DEFAULT_LIMITS.maxValues + 64,
};

export interface ToolServerOptions {
  runtime: Runtime;
  /** Bearer token for tool calls (the Hermes plugin's). */
  token: string;
  /** Bearer token for registering grants (the mnote app's). Without it, grants come only from the CLI. */
  hostToken?: string;
  maxBytes: number;
  log: Logger;
  /** Host names the Host header may carry (default: the loopback names). */
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  timeouts?: Partial<Timeouts>;
}

/** The tool server (not yet listening). */
export function createToolServer(options: ToolServerOptions): Server {
  const serving: Serving = {
    options,
    refusedToken: refusalResponse(ERR.notAuthenticated),
    frameworks: frameworkCaller(options.runtime),
  };
  return createHttpService({
    log: options.log,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    timeouts: options.timeouts,
    errorBody: (status, message) => (status >= 500 ? refusalResponse(ERR.internal) : { error: message }),
    routes: [
      { method: "GET", path: "/healthz", handle: ({ res }) => sendJson(res, 200, { ok: true, contract }) },
      { method: "POST", path: "/v1/tools/call", handle: (ctx) => toolCall(serving, ctx) },
      { method: "POST", path: MODEL_CALL_PATH, handle: (ctx) => modelCall(serving, ctx) },
      { method: "GET", path: "/v1/tools", handle: (ctx) => toolListing(serving, ctx) },
      { method: "POST", path: "/v1/sessions", handle: (ctx) => putGrant(serving, ctx) },
      { method: "GET", path: SESSION_PATH, handle: (ctx) => getGrant(serving, ctx) },
      { method: "DELETE", path: SESSION_PATH, handle: (ctx) => revokeGrant(serving, ctx) },
      // the approval page and its JSON API (approval-page.ts); the host signs its person in
      ...approvalPageRoutes({
        ...pageStores(options.runtime),
        hostTokens: [options.hostToken ?? options.token],
        readers: [options.token], // the Hermes plugin reads whether its person answered on the page
      }),
    ],
  });
}

/** What every route of one tool server shares. */
interface Serving {
  options: ToolServerOptions;
  refusedToken: ReturnType<typeof refusalResponse>;
  frameworks: ReturnType<typeof frameworkCaller>;
}

const SESSION_PATH = /^\/v1\/sessions\/([^/]+)$/;

const requireToolToken = (s: Serving, req: RequestContext["req"]) =>
  requireBearer(req, [s.options.token], "the tool token is missing or wrong", s.refusedToken);

/** The request body, or the envelope the tool routes answer a refused body with (413, 415). */
async function toolBody(s: Serving, req: RequestContext["req"]): Promise<Buffer> {
  try {
    return await readBody(req, s.options.maxBytes);
  } catch (e) {
    // the tool routes answer in envelopes, even when the layer refuses the body
    if (e instanceof HttpError && e.status === 413)
      throw new HttpError(413, e.message, refusalResponse(ERR.payloadTooLarge));
    if (e instanceof HttpError && e.status === 415)
      throw new HttpError(415, e.message, refusalResponse(ERR.invalidInput));
    throw e;
  }
}

/** What runs once an answer counts as delivered, when there is anything to release (a write's slot). */
const toRelease = (delivery: Delivery) =>
  delivery === NOTHING_TO_DELIVER ? undefined : () => void delivery.delivered();

async function toolCall(s: Serving, { req, res }: RequestContext): Promise<void> {
  const answer = watchDelivery(res);
  requireToolToken(s, req);
  const body = await toolBody(s, req);
  // a W3C traceparent header is continued: the tool call's span becomes the caller's child
  const { response, delivery } = await continueTrace(req.headers, () =>
    s.options.runtime.dispatcher.dispatchTracked(body),
  );
  // the delivery rule: a write stays uncertain until this answer reached the client
  await answer(() => sendEnvelope(res, response), toRelease(delivery));
}

async function modelCall(s: Serving, { req, res }: RequestContext): Promise<void> {
  const answer = watchDelivery(res);
  requireToolToken(s, req);
  const body = await toolBody(s, req);
  let call: unknown;
  try {
    // the same byte, depth, value and UTF-8 rules as an envelope, before JSON.parse
    call = readRequest(body, MODEL_CALL_LIMITS);
  } catch (e) {
    if (!(e instanceof ToolFailure)) throw e;
    return sendJson(res, 200, failureResponse(e, undefined, undefined, "zh-CN"));
  }
  const { response, delivery } = await s.frameworks.callModelToolTracked(call, req.headers);
  await answer(() => sendEnvelope(res, response), toRelease(delivery)); // as /v1/tools/call
}

/**
 * A response envelope: 200, except a used-up budget (mnote_tool_rate_limited), which is 429 with
 * Retry-After (its error.retryAfterSeconds) so HTTP clients and proxies back off too; the body is
 * the same envelope either way.
 */
function sendEnvelope(res: RequestContext["res"], response: { ok: boolean; error?: unknown }): void {
  const error = response.ok ? undefined : (response.error as { code?: string; retryAfterSeconds?: number } | null);
  if (error?.code === ERR.rateLimited && error.retryAfterSeconds !== undefined) {
    noteLogged(res); // its tool_call line is the refusal's one log line (docs/RELIABILITY.md, budgets)
    return sendJson(res, 429, response, { "retry-after": String(error.retryAfterSeconds) });
  }
  sendJson(res, 200, response);
}

/** Every tool's names, facts and parameters, as the registry has them. */
const LISTING = {
  contract,
  tools: toolList.map((t) => ({
    name: t.name,
    providerName: t.providerName,
    title: t.title,
    description: t.description,
    effect: t.effect,
    capability: t.capability,
    idempotency: t.idempotency,
    dryRun: t.dryRun,
    semantics: t.semantics,
    parameters: t.parameters,
  })),
};

function toolListing(s: Serving, { req, res }: RequestContext): void {
  requireToolToken(s, req);
  // ?provider=<name> picks the schema variant (docs/PROVIDERS.md); portable by default
  const provider = new URL(req.url ?? "/", "http://localhost").searchParams.get("provider") ?? DEFAULT_PROVIDER;
  const variant = toolsForProvider(provider);
  if (!variant)
    throw new HttpError(400, `unknown provider ${provider}`, {
      error: `unknown provider ${provider}`,
      providers: PROVIDERS,
    });
  const byName = new Map(variant.map((t) => [t.canonicalName, t]));
  sendJson(res, 200, {
    ...LISTING,
    provider,
    tools: LISTING.tools.map((t) => ({
      ...t,
      parameters: byName.get(t.name)!.parameters,
      definition: byName.get(t.name)!.definition,
    })),
  });
}

async function putGrant(s: Serving, { req, res }: RequestContext): Promise<void> {
  requireBearer(req, [s.options.hostToken], "a host token is required to register a session grant");
  const grant = await readJson(req, 64 * 1024);
  if (!validateSessionGrant(grant)) {
    throw new HttpError(400, "invalid session grant", {
      error: "invalid session grant",
      pointer: firstProblemPointer(validateSessionGrant.errors),
    });
  }
  await s.options.runtime.grants.put(grant);
  s.options.log.info(
    { event: "session_granted", sessionId: grant.sessionId, expiresAt: grant.expiresAt },
    "session_granted",
  );
  sendJson(res, 201, grant);
}

async function getGrant(s: Serving, { req, res, params }: RequestContext): Promise<void> {
  const { runtime } = s.options;
  requireBearer(req, [s.options.token, s.options.hostToken], "a tool or host token is required");
  const grant = await runtime.grants.get(params[0]!);
  if (!grant || !isGrantLive(grant, runtime.now())) throw new HttpError(404, "no live grant for this session");
  sendJson(res, 200, grant);
}

async function revokeGrant(s: Serving, { req, res, params }: RequestContext): Promise<void> {
  requireBearer(req, [s.options.hostToken], "a host token is required");
  const id = params[0]!;
  if (!(await s.options.runtime.grants.revoke(id)))
    throw new HttpError(404, "no grant for this session", { sessionId: id });
  sendJson(res, 200, { sessionId: id });
}
