/**
 * OAuth on `mnote-tools mcp --http` (runtime/transports/mcp-oauth.ts), with a real local issuer the
 * test starts: an HTTP server serving its JWKS, and JWTs signed with node:crypto (RS256, ES256).
 * The RFC 9728 metadata is served and named in the 401 challenge; the audience, issuer, expiry and
 * signature are checked; scopes map to the contract's capabilities (403 insufficient_scope naming
 * the missing one, nothing written); the static token keeps working for local use.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { mcpOAuth } from "../../runtime/transports/mcp-oauth";
import { createLogger } from "../../common/http/logger";
import { capabilityScopes } from "../../generated/registry";
import { testRuntime, type TestRuntime } from "../support/runtime";

const STATIC = "static-local-token";
const ALL = "page.read page.write artifact.write";

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

/** A local issuer: its JWKS over HTTP, and tokens it signs. */
async function startIssuer() {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = (key: KeyObject, kid: string, alg: string) => ({
    ...key.export({ format: "jwk" }),
    kid,
    alg,
    use: "sig",
  });
  const server = createServer((req, res) => {
    if (req.url !== "/.well-known/jwks.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: [jwk(rsa.publicKey, "rsa-1", "RS256"), jwk(ec.publicKey, "ec-1", "ES256")] }));
  });
  const url = `http://127.0.0.1:${await listen(server)}`;
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  function token(
    claims: Record<string, unknown>,
    how: { alg?: "RS256" | "ES256"; key?: KeyObject; kid?: string } = {},
  ) {
    const alg = how.alg ?? "RS256";
    const head = b64({ alg, typ: "JWT", kid: how.kid ?? (alg === "RS256" ? "rsa-1" : "ec-1") });
    const now = Math.floor(Date.now() / 1000);
    const body = b64({ iss: url, sub: "person_1", client_id: "client_1", iat: now, exp: now + 300, ...claims });
    const key = how.key ?? (alg === "RS256" ? rsa.privateKey : ec.privateKey);
    const signature = sign(
      "sha256",
      Buffer.from(`${head}.${body}`),
      alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" } : key,
    );
    return `${head}.${body}.${signature.toString("base64url")}`;
  }
  return { url, token, stranger: stranger.privateKey, close: () => new Promise((r) => server.close(r)) };
}

let issuer: Awaited<ReturnType<typeof startIssuer>>;
let t: TestRuntime;
let mcp: Server;
let resource: string;

beforeAll(async () => {
  issuer = await startIssuer();
  t = await testRuntime();
  const as = await t.session({ actorId: "user_1" });
  // the port first: the resource URL (the tokens' audience) names it
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  resource = `http://127.0.0.1:${port}/mcp`;
  mcp = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: as.sessionId,
    token: STATIC,
    oauth: mcpOAuth({ issuer: issuer.url, resource: new URL(resource) }),
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

const post = (bearer?: string) =>
  fetch(resource, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
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

  it.each(["RS256", "ES256"] as const)(
    "a %s token for this server with every scope: tools listed and called",
    async (alg) => {
      const c = await client(issuer.token({ aud: resource, scope: ALL }, { alg }));
      expect((await c.listTools()).tools).toHaveLength(6);
      const r = await c.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "from OAuth" } });
      expect((r.structuredContent as any).ok).toBe(true);
      expect(t.count("artifacts", "content = ?", "from OAuth")).toBeGreaterThan(0);
      await c.close();
    },
  );

  it.each([
    ["for another audience", () => issuer.token({ aud: "https://other.example/mcp", scope: ALL })],
    ["with no audience", () => issuer.token({ scope: ALL })],
    ["expired", () => issuer.token({ aud: resource, scope: ALL, exp: Math.floor(Date.now() / 1000) - 10 })],
    ["from another issuer", () => issuer.token({ aud: resource, scope: ALL, iss: "https://evil.example" })],
    [
      "signed by a key the issuer does not publish",
      () => issuer.token({ aud: resource, scope: ALL }, { key: issuer.stranger }),
    ],
    ["not a JWT", () => "not-a-jwt"],
  ])("a token %s: 401 invalid_token, nothing served", async (_what, make) => {
    const res = await post(make());
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("scopes are the contract's capabilities: page.read alone reads, and a write is 403 insufficient_scope", async () => {
    const c = await client(issuer.token({ aud: resource, scope: "page.read" }));
    expect(((await c.callTool({ name: "mnote_page_get", arguments: {} })).structuredContent as any).ok).toBe(true);
    await c.close();
    const before = t.kernelStateHash();
    const res = await fetch(resource, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${issuer.token({ aud: resource, scope: "page.read" })}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "mnote_page_update_title", arguments: { title: "not allowed" } },
      }),
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="page.write"');
    expect(t.kernelStateHash()).toBe(before);
  });

  it("the static token still works for local use, and a 2025-11-25 client with an OAuth token too", async () => {
    const local = await client(STATIC);
    expect(((await local.callTool({ name: "mnote_page_get", arguments: {} })).structuredContent as any).ok).toBe(true);
    await local.close();
    const v1 = new V1Client({ name: "v1", version: "1" });
    await v1.connect(
      new V1Http(new URL(resource), {
        requestInit: { headers: { Authorization: `Bearer ${issuer.token({ aud: resource, scope: ALL })}` } },
      }),
    );
    expect((await v1.listTools()).tools).toHaveLength(6);
    await v1.close();
  });
});
