/**
 * Issue 41: the approval page on `mcp --http` with OAuth, two people signed in at a real
 * authorization server (`oidc-provider`, test/support/oidc-flow.ts). Alice's own bearer token reads
 * and answers her approval through the JSON API; Bob's token, valid, is told it does not exist
 * (the same 404 as an unknown record) and cannot sign in as her; a token that does not verify is
 * 401. Alice's token also mints the ticket that signs her browser in. The kernel's state is
 * asserted after each step: one write after Alice's approve, none after Bob's attempts or a decline.
 */
import type { Server } from "node:http";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { createMcpOAuth } from "../../runtime/transports/mcp-oauth";
import { pageStores } from "../../runtime/transports/approval-page";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { createLogger } from "../../common/http/logger";
import { ALL_SCOPES, testRuntime, type TestRuntime } from "../support/runtime";
import { freePort } from "../support/oauth-issuer";
import { signIn, startAuthorizationServer, type AuthorizationServer } from "../support/oidc-flow";

const SLOW = 60_000;
const STATIC = "static-host-token";
const MODERN = "2026-07-28";

let as: AuthorizationServer;
let t: TestRuntime;
let mcp: Server;
let base: string;
let resource: string;
const tokens: Record<"alice" | "bob", string> = { alice: "", bob: "" };

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  resource = `${base}/mcp`;
  as = await startAuthorizationServer(resource);
  // the contract's approval levels: update_title asks
  t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
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
      principal: { issuer: as.issuer, subject: sub },
    });
  const oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: as.issuer, resource: new URL(resource) });
  mcp = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: "sess_none",
    token: STATIC,
    oauth,
    approvalPage: { ...pageStores(t.runtime), hostTokens: [STATIC], oauth },
    log: createLogger({ service: "test", level: "silent" }),
  });
  await new Promise<void>((resolve) => mcp.listen(port, "127.0.0.1", resolve));
  for (const [sub, session] of [
    ["alice", "sess_alice"],
    ["bob", "sess_bob"],
  ] as const) {
    const signed = await signIn(as.issuer, resource, sub, session);
    tokens[sub] = signed.token;
    await signed.client.close();
  }
}, 120_000);
afterAll(async () => {
  await new Promise((r) => mcp.close(r));
  as.stop();
  await t.close();
});

/** Alice renames her page over MCP (2026-07-28): the round's requestState, and the record it made. */
async function aliceAsks(title: string, extra: Record<string, unknown> = {}) {
  const res = await fetch(resource, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tokens.alice}`,
      "x-mnote-session": "sess_alice",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "mnote_page_update_title",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "mnote_page_update_title",
        arguments: { title },
        ...extra,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
        },
      },
    }),
  });
  return ((await res.json()) as any).result;
}

const pendingIds = () =>
  (t.runtime.state.prepare("SELECT id FROM approval_records WHERE status = 'pending'").all() as { id: string }[]).map(
    (r) => r.id,
  );

const api = async (id: string, bearer: string, answer?: "approve" | "decline") => {
  const res = await fetch(`${base}/v1/approvals/${id}`, {
    method: answer ? "POST" : "GET",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", "accept-language": "en" },
    ...(answer ? { body: JSON.stringify({ answer }) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any, challenge: res.headers.get("www-authenticate") };
};

const ticket = (bearer: string, body: Record<string, unknown>) =>
  fetch(`${base}/v1/approvals/tickets`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const title = () =>
  (t.kernel.db.prepare("SELECT title FROM pages WHERE id = 'doc_1'").get() as { title: string }).title;
const ACCEPT = { inputResponses: { approve: { action: "accept", content: { approve: true } } } };

describe("the approval page answers a person's own OAuth token", () => {
  it("Alice reads and approves her approval with her token; Bob's is told it does not exist; one write", async () => {
    const round = await aliceAsks("Renamed by Alice's token");
    expect(round.resultType).toBe("input_required");
    const [id] = pendingIds();
    const unknown = "0".repeat(32);
    const before = t.kernelStateHash();
    const titleBefore = title();

    // Bob's valid token: Alice's record is answered exactly as one that does not exist
    for (const answer of [undefined, "approve", "decline"] as const) {
      const theirs = await api(id!, tokens.bob, answer);
      const none = await api(unknown, tokens.bob, answer);
      expect([theirs.status, theirs.body]).toEqual([404, none.body]);
      expect(JSON.stringify(theirs.body)).not.toContain("Renamed by");
    }
    // nor may Bob sign a browser in as Alice: her session is not his, and a ticket is only for himself
    expect((await ticket(tokens.bob, { sessionId: "sess_alice" })).status).toBe(404);
    const asHer = await ticket(tokens.bob, { sessionId: "sess_bob", issuer: as.issuer, subject: "alice" });
    expect(asHer.status).toBe(403);
    // a token that does not verify is 401 with its challenge, before any record is looked up
    const forged = tokens.alice.slice(0, -4) + (tokens.alice.endsWith("AAAA") ? "BBBB" : "AAAA");
    for (const target of [id!, unknown]) {
      const bad = await api(target, forged, "approve");
      expect(bad.status).toBe(401);
      expect(bad.challenge).toMatch(/Bearer .*error="invalid_token"/);
    }
    expect((await ticket(forged, { sessionId: "sess_alice" })).status).toBe(401);
    expect((await t.runtime.approvalRecords.get(id!))?.status).toBe("pending");
    expect(t.kernelStateHash()).toBe(before);

    // Alice's own token: the preview, then her yes moves the record (nothing written yet)
    const shown = await api(id!, tokens.alice);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id, status: "pending", locale: "en" });
    expect(shown.body.summary).toContain("Renamed by Alice's token");
    const yes = await api(id!, tokens.alice, "approve");
    expect([yes.status, yes.body.status]).toEqual([200, "approved"]);
    expect((await api(id!, tokens.alice, "decline")).status).toBe(409);
    expect((await t.runtime.approvalRecords.get(id!))?.answeredBy).toBe(
      JSON.stringify(["sess_alice", as.issuer, "alice"]),
    );
    expect(t.kernelStateHash()).toBe(before);

    // Alice's client completes the round: written once; the same round again writes nothing more
    const done = await aliceAsks("Renamed by Alice's token", { ...ACCEPT, requestState: round.requestState });
    expect(done.structuredContent.ok).toBe(true);
    expect(title()).toBe("Renamed by Alice's token");
    expect(t.count("command_log")).toBe(1);
    const again = await aliceAsks("Renamed by Alice's token", { ...ACCEPT, requestState: round.requestState });
    expect(again.structuredContent.ok).toBe(false);
    expect(t.count("command_log")).toBe(1);
    expect(titleBefore).not.toBe(title());
  });

  it("Alice's token signs her browser in (a ticket for herself); she declines there and nothing is written", async () => {
    const round = await aliceAsks("Declined in Alice's browser");
    const [id] = pendingIds();
    const before = t.kernelStateHash();
    const minted = await ticket(tokens.alice, { sessionId: "sess_alice" });
    expect(minted.status).toBe(200);
    const { ticket: signIn } = (await minted.json()) as { ticket: string };
    const signed = await fetch(`${base}/approvals/${id}?ticket=${signIn}`, { redirect: "manual" });
    expect(signed.status).toBe(303);
    const cookie = signed.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(`${base}/approvals/${id}`, { headers: { cookie, "accept-language": "en" } });
    const html = await page.text();
    expect([page.status, html.includes("Declined in Alice")]).toEqual([200, true]);
    const csrf = /data-csrf="([^"]*)"/.exec(html)![1]!;
    const no = await fetch(`${base}/v1/approvals/${id}`, {
      method: "POST",
      headers: { cookie, "x-mnote-csrf": csrf, "content-type": "application/json" },
      body: JSON.stringify({ answer: "decline" }),
    });
    expect(no.status).toBe(200);
    const after = await aliceAsks("Declined in Alice's browser", { ...ACCEPT, requestState: round.requestState });
    expect(after.structuredContent.error).toMatchObject({ code: "mnote_tool_approval_denied", reason: "declined" });
    expect(t.kernelStateHash()).toBe(before);
    expect(title()).not.toBe("Declined in Alice's browser");
  });
});
