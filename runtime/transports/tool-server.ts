/**
 * `mnote-tools serve`: the runtime over HTTP.
 *   POST /v1/tools/call       a request envelope in, a response envelope out (tool token)
 *   GET  /v1/tools            the registry: every tool's names, facts and model-facing parameters (tool token)
 *   GET  /healthz             liveness and the contract version (no token)
 *   POST /v1/sessions         register a session grant (host token: the mnote app)
 *   GET  /v1/sessions/:id     read a session's binding (tool or host token: the Hermes plugin)
 *   DELETE /v1/sessions/:id   revoke a grant (host token)
 * Every envelope answer is HTTP 200, whatever the envelope says, except a refused token (401) and
 * a body over the limit (413), which still carry a failure envelope. One JSON log line per call,
 * with ids and outcome and never page content.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { contract, ERR, toolList } from "../../generated/registry";
import { validateSessionGrant } from "../../generated/validators";
import { refusalResponse } from "../dispatch/dispatcher";
import { firstProblemPointer } from "../dispatch/problems";
import type { Runtime } from "../runtime";
import { BodyTooLarge, hasBearer, readBody, sendJson } from "./http-util";
import { DEFAULT_PROVIDER, PROVIDERS, toolsForProvider } from "../../generated/providers";

export interface ToolServerOptions {
  runtime: Runtime;
  /** Bearer token for tool calls (the Hermes plugin's). */
  token: string;
  /** Bearer token for registering grants (the mnote app's). Without it, grants come only from the CLI. */
  hostToken?: string;
  maxBytes: number;
  log?: (line: Record<string, unknown>) => void;
}

export function createToolServer(options: ToolServerOptions): Server {
  const { runtime } = options;
  const log = options.log ?? (() => undefined);
  const listing = {
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /healthz") return sendJson(res, 200, { ok: true, contract });

    if (route === "POST /v1/tools/call") {
      if (!hasBearer(req, options.token)) return sendJson(res, 401, refusalResponse(ERR.notAuthenticated), { "www-authenticate": "Bearer" });
      let body: Buffer;
      try {
        body = await readBody(req, options.maxBytes);
      } catch (e) {
        if (e instanceof BodyTooLarge) return sendJson(res, 413, refusalResponse(ERR.payloadTooLarge), { connection: "close" });
        throw e;
      }
      return sendJson(res, 200, await runtime.dispatcher.dispatch(body));
    }
    if (route === "GET /v1/tools") {
      if (!hasBearer(req, options.token)) return sendJson(res, 401, refusalResponse(ERR.notAuthenticated));
      // ?provider=<name> picks the schema variant (docs/PROVIDERS.md); portable by default
      const provider = url.searchParams.get("provider") ?? DEFAULT_PROVIDER;
      const variant = toolsForProvider(provider);
      if (!variant) return sendJson(res, 400, { error: `unknown provider ${provider}`, providers: PROVIDERS });
      const byName = new Map(variant.map((t) => [t.canonicalName, t]));
      return sendJson(res, 200, {
        ...listing,
        provider,
        tools: listing.tools.map((t) => ({ ...t, parameters: byName.get(t.name)!.parameters, definition: byName.get(t.name)!.definition })),
      });
    }

    const session = /^\/v1\/sessions(?:\/([^/]+))?$/.exec(url.pathname);
    if (session) {
      const id = session[1] ? decodeURIComponent(session[1]) : undefined;
      if (req.method === "POST" && !id) {
        if (!hasBearer(req, options.hostToken)) return sendJson(res, 401, { error: "a host token is required to register a session grant" });
        let grant: unknown;
        try {
          grant = JSON.parse((await readBody(req, 64 * 1024)).toString("utf8"));
        } catch {
          return sendJson(res, 400, { error: "the body is not a JSON session grant" });
        }
        if (!validateSessionGrant(grant)) {
          return sendJson(res, 400, { error: "invalid session grant", pointer: firstProblemPointer(validateSessionGrant.errors) });
        }
        await runtime.grants.put(grant);
        log({ event: "session_granted", sessionId: grant.sessionId, expiresAt: grant.expiresAt });
        return sendJson(res, 201, grant);
      }
      if (req.method === "GET" && id) {
        if (!hasBearer(req, options.token, options.hostToken)) return sendJson(res, 401, { error: "a token is required" });
        const grant = await runtime.grants.get(id);
        if (!grant || Date.parse(grant.expiresAt) <= Date.now()) return sendJson(res, 404, { error: "no live grant for this session" });
        return sendJson(res, 200, grant);
      }
      if (req.method === "DELETE" && id) {
        if (!hasBearer(req, options.hostToken)) return sendJson(res, 401, { error: "a host token is required" });
        return sendJson(res, (await runtime.grants.revoke(id)) ? 200 : 404, { sessionId: id });
      }
    }
    return sendJson(res, 404, { error: `no route ${route}` });
  }

  return createServer((req, res) => {
    handle(req, res).catch((e) => {
      log({ event: "http_error", message: (e as Error).message });
      if (!res.headersSent) sendJson(res, 500, refusalResponse(ERR.internal));
      else res.destroy();
    });
  });
}
