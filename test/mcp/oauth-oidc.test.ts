/**
 * End to end with a real authorization server (issue 40): `oidc-provider` started by the test on
 * loopback (test/support/oidc-issuer.mjs), its keys at a non-default jwks_uri found through its
 * metadata, and the MCP v2 client's own OAuth flow: the 401 names the resource metadata; the client
 * discovers the authorization server, sends the person to authorize (authorization code with
 * PKCE, the resource indicator), redeems the code for a token and calls the tools. Two people sign
 * in through the same server: each acts only in the session granted to their own principal.
 * The kernel's state is asserted after each step.
 */
import type { Server } from "node:http";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { createMcpOAuth, type McpOAuth } from "../../runtime/transports/mcp-oauth";
import { createLogger } from "../../common/http/logger";
import { ALL_SCOPES, testRuntime, type TestRuntime } from "../support/runtime";
import { freePort } from "../support/oauth-issuer";
import { signIn as signInAt, startAuthorizationServer, type AuthorizationServer } from "../support/oidc-flow";

/** Fetch timeout for the issuer the test serves itself: wide, the suites must pass at load 20. */
const SLOW = 60_000;

let as: AuthorizationServer;
let issuer: string;
let t: TestRuntime;
let mcp: Server;
let oauth: McpOAuth;
let resource: string;

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  as = await startAuthorizationServer(resource);
  issuer = as.issuer;
  t = await testRuntime();
  for (const [sub, doc, ws, actor] of [
    ["alice", "doc_1", "ws_1", "user_1"],
    ["bob", "doc_other", "ws_2", "user_3"],
  ] as const)
    await t.runtime.grants.put({
      sessionId: `sess_${sub}`,
      workspaceId: ws,
      documentId: doc,
      actorId: actor,
      capabilityScope: ALL_SCOPES as never,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      principal: { issuer, subject: sub },
    });
  oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer, resource: new URL(resource) });
  mcp = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: "sess_none",
    token: "static-token-unused-here",
    oauth,
    log: createLogger({ service: "test", level: "silent" }),
  });
  await new Promise<void>((resolve) => mcp.listen(port, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((r) => mcp.close(r));
  as.stop();
  await t.close();
});

/** One person signs in through the MCP client's own OAuth flow and gets a connected client. */
async function signIn(sub: string, session: string) {
  const signed = await signInAt(issuer, resource, sub, session);
  expect(signed.authorize.origin).toBe(issuer);
  expect(signed.authorize.searchParams.get("code_challenge_method")).toBe("S256");
  expect(signed.authorize.searchParams.get("resource")).toBe(resource);
  expect(signed.token).toEqual(expect.any(String));
  return signed;
}

describe("the MCP client's own OAuth flow against oidc-provider", () => {
  it("found the issuer's keys at its non-default jwks_uri through its metadata; a 401 names the resource metadata", async () => {
    expect(oauth.jwksUrl.href).toBe(`${issuer}/signing/keys.json`);
    const res = await fetch(resource, { method: "POST", body: "{}" });
    expect(res.status).toBe(401);
    const metadata = /resource_metadata="([^"]+)"/.exec(res.headers.get("www-authenticate")!)![1]!;
    expect(((await (await fetch(metadata)).json()) as any).authorization_servers).toEqual([issuer]);
  });

  it("Alice and Bob sign in (code + PKCE, resource indicator) and each writes only to their own page", async () => {
    const alice = await signIn("alice", "sess_alice");
    const bob = await signIn("bob", "sess_bob");
    expect((await alice.client.listTools()).tools).toHaveLength(6);
    const a = await alice.client.callTool({
      name: "mnote_artifact_create_ai_note",
      arguments: { content: "Alice, e2e" },
    });
    expect((a.structuredContent as any).ok).toBe(true);
    const b = await bob.client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "Bob, e2e" } });
    expect((b.structuredContent as any).ok).toBe(true);
    expect(t.count("artifacts", "page_id = 'doc_1' AND content = 'Alice, e2e'")).toBe(1);
    expect(t.count("artifacts", "page_id = 'doc_other' AND content = 'Bob, e2e'")).toBe(1);
    expect(t.count("artifacts", "content IN ('Alice, e2e', 'Bob, e2e')")).toBe(2);

    // Bob's real token, naming Alice's session: answered as an unknown session, nothing written
    const before = t.kernelStateHash();
    const res = await fetch(resource, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bob.provider.tokens().access_token}`,
        "x-mnote-session": "sess_alice",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "mnote_artifact_create_ai_note", arguments: { content: "Bob in Alice's page" } },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result.structuredContent.error.code).toBe("mnote_tool_not_authenticated");
    expect(t.kernelStateHash()).toBe(before);
    await alice.client.close();
    await bob.client.close();
  });
});
