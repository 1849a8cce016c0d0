/**
 * OAuth on `mnote-tools mcp --http` (runtime/transports/mcp-oauth.ts, oauth-keys.ts), with a real
 * local issuer the test starts (test/support/oauth-issuer.ts: RFC 8414 metadata, keys at a
 * non-default jwks_uri, tokens signed by jose). The RFC 9728 metadata is served and named in the
 * 401 challenge; the audience, issuer, expiry, subject and signature are checked; every failure is
 * a 401 with its reason, never a 500; scopes map to the contract's capabilities on every request
 * shape (a batch too), checked before anything is dispatched; the body of an unauthenticated POST
 * is never read; the 2025-era path honours no requestState. The kernel's state is asserted after
 * each refusal.
 */
import type { Server } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { createMcpOAuth, type McpOAuth } from "../../runtime/transports/mcp-oauth";
import { createLogger } from "../../common/http/logger";
import { capabilityScopes } from "../../generated/registry";
import { ALL_SCOPES, testRuntime, type TestRuntime } from "../support/runtime";
import { freePort, startIssuer, type TestIssuer } from "../support/oauth-issuer";

/** Fetch timeout for the issuer the test serves itself: wide, the suites must pass at load 20. */
const SLOW = 60_000;

const STATIC = "static-local-token";
const ALL = "page.read page.write artifact.write";
const SESSION = "sess_person_1";

let issuer: TestIssuer;
let t: TestRuntime;
let mcp: Server;
let oauth: McpOAuth;
let resource: string;
const logged: string[] = [];

beforeAll(async () => {
  issuer = await startIssuer();
  t = await testRuntime();
  // the grant is issued to the issuer's person_1: the OAuth caller's own
  await t.runtime.grants.put({
    sessionId: SESSION,
    workspaceId: "ws_1",
    documentId: "doc_1",
    actorId: "user_1",
    capabilityScope: ALL_SCOPES as never,
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    principal: { issuer: issuer.url, subject: "person_1" },
  });
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const log = createLogger({
    service: "test",
    level: "warn",
    destination: { write: (line: string) => void logged.push(line) } as never,
  });
  oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: new URL(resource), log });
  mcp = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: SESSION,
    token: STATIC,
    oauth,
    log: createLogger({ service: "test", level: "silent" }),
  });
  await new Promise<void>((resolve) => mcp.listen(port, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((r) => mcp.close(r));
  await issuer.close();
  await t.close();
});

const metadataUrl = () => resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");

async function client(bearer: string) {
  const c = new Client({ name: "oauth-test", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(resource), {
      requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
    }),
  );
  return c;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

const post = (bearer?: string, body: unknown = INITIALIZE, headers: Record<string, string> = {}) =>
  fetch(resource, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const call = (id: number, name: string, args: Record<string, unknown>, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...params },
});

describe("OAuth on the MCP HTTP server", () => {
  it("serves the RFC 9728 metadata, and names it in the 401 challenge", async () => {
    const doc = (await (await fetch(metadataUrl())).json()) as any;
    expect(doc).toEqual({
      resource,
      authorization_servers: [issuer.url],
      scopes_supported: [...capabilityScopes],
      bearer_methods_supported: ["header"],
    });
    const res = await post();
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl()}"`);
  });

  it("found the keys at the jwks_uri of the issuer's RFC 8414 metadata (not <issuer>/.well-known/jwks.json)", () => {
    expect(oauth.jwksUrl.href).toBe(`${issuer.url}${issuer.jwksPath}`);
  });

  it.each(["RS256", "ES256"] as const)(
    "a %s token for this server with every scope: tools listed and called",
    async (alg) => {
      const c = await client(await issuer.token({ aud: resource, scope: ALL }, { alg }));
      expect((await c.listTools()).tools).toHaveLength(6);
      const r = await c.callTool({
        name: "mnote_artifact_create_ai_note",
        arguments: { content: `from OAuth ${alg}` },
      });
      expect((r.structuredContent as any).ok).toBe(true);
      expect(t.count("artifacts", "content = ?", `from OAuth ${alg}`)).toBe(1);
      await c.close();
    },
  );

  it.each([
    ["for another audience", () => issuer.token({ aud: "https://other.example/mcp", scope: ALL }), "aud"],
    ["with no audience", () => issuer.token({ scope: ALL }), "aud"],
    ["whose audience is not a URL", () => issuer.token({ aud: "not a url", scope: ALL }), "aud"],
    ["expired", () => issuer.token({ aud: resource, scope: ALL, exp: Math.floor(Date.now() / 1000) - 10 }), "expired"],
    ["from another issuer", () => issuer.token({ aud: resource, scope: ALL, iss: "https://evil.example" }), "issuer"],
    [
      "signed by a key the issuer does not publish",
      () => issuer.token({ aud: resource, scope: ALL }, { key: issuer.stranger }),
      "signature",
    ],
    ["with an empty sub", () => issuer.token({ aud: resource, scope: ALL, sub: "" }), "subject"],
    ["with no sub, only a client_id", () => issuer.token({ aud: resource, scope: ALL, sub: undefined }), "subject"],
    ["not a JWT", async () => "not-a-jwt", "JWT"],
  ])("a token %s: 401 invalid_token with its reason, nothing served", async (_what, make, reason) => {
    const before = t.kernelStateHash();
    const res = await post(await make(), call(1, "mnote_artifact_create_ai_note", { content: "refused" }));
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(reason);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("an unauthenticated POST is refused before its body is read: 401, not 400 or 413", async () => {
    for (const body of ["{not json", `{"a":${"[".repeat(5000)}`, "x".repeat(2 * 1024 * 1024)]) {
      const res = await post(undefined, body);
      expect(res.status).toBe(401);
      const bad = await post("not-a-jwt", body);
      expect(bad.status).toBe(401);
    }
  });

  it("scopes are the contract's capabilities: page.read alone reads, and a write is 403 insufficient_scope", async () => {
    const c = await client(await issuer.token({ aud: resource, scope: "page.read" }));
    expect(((await c.callTool({ name: "mnote_page_get", arguments: {} })).structuredContent as any).ok).toBe(true);
    await c.close();
    const before = t.kernelStateHash();
    const res = await post(
      await issuer.token({ aud: resource, scope: "page.read" }),
      call(2, "mnote_page_update_title", { title: "not allowed" }),
    );
    expect(res.status).toBe(403);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="page.write"');
    expect(t.kernelStateHash()).toBe(before);
  });

  it("a batch is gated element by element: a read-only token's batch with a write runs nothing (403)", async () => {
    const readOnly = await issuer.token({ aud: resource, scope: "page.read" });
    const notes = t.count("artifacts");
    const before = t.kernelStateHash();
    const batch = [
      INITIALIZE,
      call(2, "mnote_page_get", {}),
      call(3, "mnote_artifact_create_ai_note", { content: "batched write" }),
      call(4, "mnote_page_save", { blocks: [] }),
    ];
    const res = await post(readOnly, batch);
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toContain('scope="artifact.write page.write"');
    expect(t.kernelStateHash()).toBe(before);
    expect(t.count("artifacts")).toBe(notes);
    // the same on the 2026-07-28 path's headers
    const modern = await post(readOnly, [call(5, "mnote_artifact_create_ai_note", { content: "batched write" })], {
      "mcp-protocol-version": "2026-07-28",
    });
    expect(modern.status).toBe(403);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("the 2025-era path honours no requestState: a tools/call carrying one is refused and writes nothing", async () => {
    const before = t.kernelStateHash();
    const res = await post(
      STATIC,
      call(
        7,
        "mnote_artifact_create_ai_note",
        { content: "legacy with state" },
        {
          requestState: "forged",
          inputResponses: { approve: { action: "accept", content: { approve: true } } },
        },
      ),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toContain("2026-07-28");
    expect(t.kernelStateHash()).toBe(before);
    expect(t.count("artifacts", "content = ?", "legacy with state")).toBe(0);
  });

  it("GET and DELETE authenticate first (401 with the challenge), then are 405 for any valid caller", async () => {
    for (const method of ["GET", "DELETE"]) {
      const refused = await fetch(resource, { method });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain("resource_metadata");
      const token = await issuer.token({ aud: resource, scope: "page.read" });
      const allowed = await fetch(resource, { method, headers: { authorization: `Bearer ${token}` } });
      expect(allowed.status).toBe(405);
    }
  });

  it("the static token still works for local use, and a 2025-11-25 client with an OAuth token too", async () => {
    const local = await client(STATIC);
    expect(((await local.callTool({ name: "mnote_page_get", arguments: {} })).structuredContent as any).ok).toBe(true);
    await local.close();
    const v1 = new V1Client({ name: "v1", version: "1" });
    await v1.connect(
      new V1Http(new URL(resource), {
        requestInit: { headers: { Authorization: `Bearer ${await issuer.token({ aud: resource, scope: ALL })}` } },
      }),
    );
    expect((await v1.listTools()).tools).toHaveLength(6);
    await v1.close();
  });
});
