/**
 * Many people through one MCP server (issue 40): Alice and Bob, each with a token from the same
 * issuer and a session grant issued to their own principal (issuer + sub) on their own page. Each
 * names the session it acts in per request (X-Mnote-Session) and can use only a grant issued to
 * it: another person's session is answered exactly as an unknown one. An approval round's
 * requestState minted for Alice does nothing for Bob. A read-only token writes nothing on any
 * path, and answers no approval of a write on the approval page. The kernel's state is asserted
 * after every step.
 */
import type { Server } from "node:http";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { createMcpOAuth } from "../../runtime/transports/mcp-oauth";
import { pageStores } from "../../runtime/transports/approval-page";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { createLogger } from "../../common/http/logger";
import { ALL_SCOPES, testRuntime, type TestRuntime } from "../support/runtime";
import { freePort, startIssuer, type TestIssuer } from "../support/oauth-issuer";

/** Fetch timeout for the issuer the test serves itself: wide, the suites must pass at load 20. */
const SLOW = 60_000;

const STATIC = "static-operator-token";
const MODERN = "2026-07-28";
const ALL = "page.read page.write artifact.write";

let issuer: TestIssuer;
let t: TestRuntime;
let mcp: Server;
let resource: string;

const grant = (sessionId: string, documentId: string, workspaceId: string, actorId: string, subject?: string) =>
  t.runtime.grants.put({
    sessionId,
    workspaceId,
    documentId,
    actorId,
    capabilityScope: ALL_SCOPES as never,
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    ...(subject ? { principal: { issuer: issuer.url, subject } } : {}),
  });

beforeAll(async () => {
  issuer = await startIssuer();
  // the contract's approval levels: update_title asks
  t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
  await grant("sess_alice", "doc_1", "ws_1", "user_1", "alice");
  await grant("sess_bob", "doc_other", "ws_2", "user_3", "bob");
  await grant("sess_operator", "doc_1", "ws_1", "user_1"); // no principal: the static token's
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  const oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: new URL(resource) });
  mcp = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: "sess_operator",
    token: STATIC,
    oauth,
    approvalPage: { ...pageStores(t.runtime), hostTokens: [STATIC], oauth },
    log: createLogger({ service: "test", level: "silent" }),
  });
  await new Promise<void>((resolve) => mcp.listen(port, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((r) => mcp.close(r));
  await issuer.close();
  await t.close();
});

const tokenOf = (sub: string, scope = ALL) => issuer.token({ aud: resource, sub, scope });

/** One 2026-07-28 tools/call over HTTP, as `bearer`, in `session` (none: the server's --session). */
async function callAs(bearer: string, session: string | undefined, name: string, params: Record<string, unknown>) {
  const res = await fetch(resource, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...(session ? { "x-mnote-session": session } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
        },
      },
    }),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as any };
}

const notes = (doc: string) => t.count("artifacts", "page_id = ?", doc);
const title = (doc: string) =>
  (t.kernel.db.prepare("SELECT title FROM pages WHERE id = ?").get(doc) as { title: string }).title;
const errorOf = (r: { json: any }) => r.json.result?.structuredContent?.error;

describe("two people through one MCP server", () => {
  it("Alice and Bob each read and write only their own page", async () => {
    const [alice, bob] = [await tokenOf("alice"), await tokenOf("bob")];
    const a = await callAs(alice, "sess_alice", "mnote_artifact_create_ai_note", { arguments: { content: "Alice" } });
    expect(a.json.result.structuredContent.ok).toBe(true);
    expect([notes("doc_1"), notes("doc_other")]).toEqual([1, 0]);
    const b = await callAs(bob, "sess_bob", "mnote_artifact_create_ai_note", { arguments: { content: "Bob" } });
    expect(b.json.result.structuredContent.ok).toBe(true);
    expect([notes("doc_1"), notes("doc_other")]).toEqual([1, 1]);
    const read = await callAs(bob, "sess_bob", "mnote_page_get", { arguments: {} });
    expect(read.json.result.structuredContent.result.title).toBe(title("doc_other"));
    expect(t.count("artifacts", "page_id = 'doc_1' AND content = 'Alice'")).toBe(1);
    expect(t.count("artifacts", "page_id = 'doc_other' AND content = 'Bob'")).toBe(1);
  });

  it("Bob cannot use Alice's session: the same answer as an unknown session, nothing read or written", async () => {
    const bob = await tokenOf("bob");
    const before = t.kernelStateHash();
    for (const tool of ["mnote_artifact_create_ai_note", "mnote_page_get"]) {
      const args = { arguments: tool === "mnote_page_get" ? {} : { content: "Bob in Alice's page" } };
      const theirs = await callAs(bob, "sess_alice", tool, args);
      const unknown = await callAs(bob, "sess_nobody", tool, args);
      expect(errorOf(theirs)).toMatchObject({ code: "mnote_tool_not_authenticated" });
      expect(errorOf(theirs)).toEqual(errorOf(unknown));
      expect(theirs.json.result.structuredContent.result ?? null).toBeNull();
    }
    // nor the operator's grant (no principal: the static token's), named or by default
    for (const session of ["sess_operator", undefined]) {
      const r = await callAs(bob, session, "mnote_page_get", { arguments: {} });
      expect(errorOf(r)).toMatchObject({ code: "mnote_tool_not_authenticated" });
    }
    // the same subject from another issuer is another person: a token from elsewhere is refused outright
    const forged = await issuer.token({ aud: resource, sub: "alice", scope: ALL, iss: "https://other.example" });
    expect((await callAs(forged, "sess_alice", "mnote_page_get", { arguments: {} })).status).toBe(401);
    expect(t.kernelStateHash()).toBe(before);
    expect(t.count("artifacts", "content = ?", "Bob in Alice's page")).toBe(0);
  });

  it("a requestState minted for Alice does nothing for Bob; Alice's own yes writes once", async () => {
    const [alice, bob] = [await tokenOf("alice"), await tokenOf("bob")];
    const args = { arguments: { title: "Alice's new title" } };
    const before = t.kernelStateHash();
    const titleBefore = title("doc_1");
    const round = (await callAs(alice, "sess_alice", "mnote_page_update_title", args)).json.result;
    expect(round.resultType).toBe("input_required");
    expect(t.kernelStateHash()).toBe(before);
    const yes = { inputResponses: { approve: { action: "accept", content: { approve: true } } } };
    const replay = { ...args, ...yes, requestState: round.requestState };
    // Bob, in his own session, with Alice's round
    const inOwn = await callAs(bob, "sess_bob", "mnote_page_update_title", replay);
    expect(errorOf(inOwn)).toMatchObject({ code: "mnote_tool_approval_invalid", reason: "other_session" });
    // Bob, naming Alice's session, with Alice's round: not even her session is his
    const inHers = await callAs(bob, "sess_alice", "mnote_page_update_title", replay);
    expect(errorOf(inHers)).toMatchObject({ code: "mnote_tool_not_authenticated" });
    expect(t.kernelStateHash()).toBe(before);
    expect([title("doc_1"), title("doc_other")]).toEqual([titleBefore, title("doc_other")]);
    // the static token's holder in Alice's session is the operator, not Alice: the round is not theirs either
    const operator = await callAs(STATIC, "sess_alice", "mnote_page_update_title", replay);
    expect(errorOf(operator)).toMatchObject({ code: "mnote_tool_approval_invalid", reason: "other_session" });
    expect(t.kernelStateHash()).toBe(before);
    // the 2025-era path (no protocol version header or _meta) honours no requestState, even Alice's own
    const legacy = await fetch(resource, {
      method: "POST",
      headers: {
        authorization: `Bearer ${alice}`,
        "x-mnote-session": "sess_alice",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "mnote_page_update_title", ...replay },
      }),
    });
    expect(legacy.status).toBe(400);
    expect(t.kernelStateHash()).toBe(before);
    // Alice's yes writes, once
    const done = await callAs(alice, "sess_alice", "mnote_page_update_title", replay);
    expect(done.json.result.structuredContent.ok).toBe(true);
    expect(title("doc_1")).toBe("Alice's new title");
  });

  it("a read-only token writes nothing on any path (single, batch, 2025-era)", async () => {
    const readOnly = await tokenOf("alice", "page.read");
    const before = t.kernelStateHash();
    const write = { arguments: { content: "read-only write" } };
    const single = await callAs(readOnly, "sess_alice", "mnote_artifact_create_ai_note", write);
    expect(single.status).toBe(403);
    const raw = (body: unknown) =>
      fetch(resource, {
        method: "POST",
        headers: {
          authorization: `Bearer ${readOnly}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-mnote-session": "sess_alice",
        },
        body: JSON.stringify(body),
      });
    const legacyCall = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "mnote_artifact_create_ai_note", arguments: { content: "read-only write" } },
    });
    expect((await raw(legacyCall(1))).status).toBe(403);
    expect((await raw([legacyCall(1), legacyCall(2)])).status).toBe(403);
    expect(t.kernelStateHash()).toBe(before);
    expect(t.count("artifacts", "content = ?", "read-only write")).toBe(0);
    // and it still reads its own page
    const read = await callAs(readOnly, "sess_alice", "mnote_page_get", { arguments: {} });
    expect(read.json.result.structuredContent.result.title).toBe(title("doc_1"));
  });

  it("a read-only token answers no approval of a write on the page and signs no browser in for a session that writes", async () => {
    const pending = () =>
      (
        t.runtime.state.prepare("SELECT id FROM approval_records WHERE status = 'pending'").all() as { id: string }[]
      ).map((r) => r.id);
    const earlier = pending();
    const asked = await callAs(await tokenOf("alice"), "sess_alice", "mnote_page_update_title", {
      arguments: { title: "Asked of a read-only token" },
    });
    expect(asked.json.result.resultType).toBe("input_required");
    const [id] = pending().filter((p) => !earlier.includes(p));
    const before = t.kernelStateHash();
    const page = (bearer: string, path: string, body?: unknown) =>
      fetch(new URL(path, resource), {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const readOnly = await tokenOf("alice", "page.read");
    for (const res of [
      await page(readOnly, `/v1/approvals/${id}`),
      await page(readOnly, `/v1/approvals/${id}`, { answer: "approve" }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.headers.get("www-authenticate")).toMatch(/error="insufficient_scope".*scope="page.write"/);
    }
    // a ticket signs the browser in for every approval of the session: it needs every scope of the grant
    const ticket = await page(readOnly, "/v1/approvals/tickets", { sessionId: "sess_alice" });
    expect(ticket.status).toBe(403);
    expect(ticket.headers.get("www-authenticate")).toMatch(/scope="artifact.write page.write"/);
    expect((await t.runtime.approvalRecords.get(id!))?.status).toBe("pending");
    // the full token may: Alice declines with it, and nothing is written
    const no = await page(await tokenOf("alice"), `/v1/approvals/${id}`, { answer: "decline" });
    expect([no.status, ((await no.json()) as any).status]).toEqual([200, "declined"]);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("the static token's holder (the operator) may still name any session", async () => {
    const r = await callAs(STATIC, "sess_bob", "mnote_page_get", { arguments: {} });
    expect(r.json.result.structuredContent.result.title).toBe(title("doc_other"));
  });
});
