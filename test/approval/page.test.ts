/**
 * Issue 41: the approval page and its JSON API on `serve`, over plain HTTP (the browser suite,
 * page-browser.test.ts, drives the same page in Chromium). Only the record's own person (the
 * cookie from the host's ticket) reads or answers it; a cookie answer needs the page's CSRF token;
 * an answer moves the record once; the host's retry then writes once on approve and never on
 * decline; an expired record takes no answer and writes nothing. The kernel's writes are counted.
 */
import { once } from "node:events";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { pageStores } from "../../runtime/transports/approval-page";
import { createLogger } from "../../common/http/logger";
import { pageWorld, TOOL_TOKEN, type PageWorld } from "./page-support";

let w: PageWorld;
beforeEach(async () => {
  w = await pageWorld();
});
afterEach(() => w.close());

/** Opens the ticket link like a browser: the cookie it sets. */
async function signIn(id: string, sessionId = w.as.sessionId): Promise<string> {
  const r = await fetch(`${w.base}/approvals/${id}?ticket=${await w.ticket(sessionId)}`, { redirect: "manual" });
  expect([r.status, r.headers.get("location")]).toEqual([303, `/approvals/${id}`]);
  const cookie = r.headers.get("set-cookie")!;
  expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
  return cookie.split(";")[0]!;
}

async function page(id: string, cookie: string, lang = "en") {
  const r = await fetch(`${w.base}/approvals/${id}`, { headers: { cookie, "accept-language": lang } });
  const html = await r.text();
  const csrf = /data-csrf="([^"]*)"/.exec(html)?.[1] ?? "";
  return { status: r.status, html, csrf, csp: r.headers.get("content-security-policy") };
}

const answer = (id: string, cookie: string, csrf: string | undefined, body: unknown) =>
  fetch(`${w.base}/v1/approvals/${id}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", ...(csrf === undefined ? {} : { "x-mnote-csrf": csrf }) },
    body: JSON.stringify(body),
  });

it("approve on the page, then the host's retry writes once; the second answer is 'already answered'", async () => {
  const { token, id, summary } = await w.ask();
  const cookie = await signIn(id);
  const p = await page(id, cookie);
  expect(p.status).toBe(200);
  expect(p.html).toContain("Replace all text of");
  expect(summary).toContain("“"); // the host's own summary is in the session's locale
  expect(p.html).not.toContain(token.split(".")[0]);
  expect(p.html).not.toContain(w.as.sessionId);
  expect(p.csp).toMatch(/default-src 'none'/);
  // no CSRF token: refused, nothing moved
  expect((await answer(id, cookie, undefined, { answer: "approve" })).status).toBe(403);
  expect((await answer(id, cookie, "x".repeat(43), { answer: "approve" })).status).toBe(403);
  expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("pending");
  const yes = await answer(id, cookie, p.csrf, { answer: "approve" });
  expect([yes.status, ((await yes.json()) as any).status]).toEqual([200, "approved"]);
  const again = await answer(id, cookie, p.csrf, { answer: "decline" });
  expect([again.status, ((await again.json()) as any).status]).toEqual([409, "approved"]);
  expect(w.writes()).toBe(0);
  expect((await w.retry(token)).ok).toBe(true);
  expect(w.writes()).toBe(1);
  const replay = await w.retry(token);
  expect([replay.error?.code, replay.error?.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
  expect(w.writes()).toBe(1);
  expect((await page(id, cookie)).html).toContain('data-initial="approved"');
});

it("decline on the page: the host's retry is refused as declined and nothing is written", async () => {
  const { token, id } = await w.ask();
  const cookie = await signIn(id);
  const p = await page(id, cookie, "zh-CN,zh;q=0.9,en;q=0.5");
  expect(p.html).toContain("替换「");
  expect((await answer(id, cookie, p.csrf, { answer: "decline" })).status).toBe(200);
  const r = await w.retry(token);
  expect([r.error?.code, r.error?.reason]).toEqual(["mnote_tool_approval_denied", "declined"]);
  expect(w.writes()).toBe(0);
});

it("another person's cookie, no cookie, a forged ticket: refused, the preview not shown, nothing moved", async () => {
  const { id } = await w.ask();
  const other = await w.t.session({ actorId: "user_2" });
  const theirs = await signIn(id, other.sessionId);
  const p = await page(id, theirs);
  expect(p.status).toBe(404); // another's record is an unknown one (see below: byte for byte)
  expect(p.html).not.toContain("Replace all text of");
  expect((await answer(id, theirs, p.csrf, { answer: "approve" })).status).toBe(404);
  expect((await fetch(`${w.base}/v1/approvals/${id}`, { headers: { cookie: theirs } })).status).toBe(404);
  expect((await fetch(`${w.base}/approvals/${id}`)).status).toBe(401);
  const good = await w.ticket(w.as.sessionId);
  const forged = (good[0] === "e" ? "f" : "e") + good.slice(1);
  expect((await fetch(`${w.base}/approvals/${id}?ticket=${forged}`, { redirect: "manual" })).status).toBe(403);
  // only the host's token mints tickets
  const minted = await fetch(`${w.base}/v1/approvals/tickets`, {
    method: "POST",
    headers: { authorization: "Bearer tool-token-for-page-tests", "content-type": "application/json" },
    body: JSON.stringify({ sessionId: w.as.sessionId }),
  });
  expect(minted.status).toBe(401);
  expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("pending");
});

describe("no existence oracle: an existing record and a missing one get the same answer", () => {
  /** status, the headers a reader could tell apart, and the body (the page's per-response nonce made one). */
  async function seen(r: Response) {
    const body = (await r.text()).replace(/nonce="[^"]*"/g, 'nonce=""');
    const headers = ["content-type", "www-authenticate", "cache-control"].map((h) => r.headers.get(h));
    return { status: r.status, headers, body };
  }
  const reads = (cookie?: string) => {
    const headers: Record<string, string> = cookie ? { cookie } : {};
    return {
      page: (id: string) => fetch(`${w.base}/approvals/${id}`, { headers }),
      json: (id: string) => fetch(`${w.base}/v1/approvals/${id}`, { headers }),
      answer: (id: string) =>
        fetch(`${w.base}/v1/approvals/${id}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: '{"answer":"approve"}',
        }),
    };
  };
  const MISSING = "0123456789abcdef0123456789abcdef";

  it("no credential: 401 whatever the id, on the page, the JSON read and the answer", async () => {
    const { id } = await w.ask();
    expect(id).not.toBe(MISSING);
    expect(await w.t.runtime.approvalRecords.get(MISSING)).toBeUndefined();
    for (const [route, call] of Object.entries(reads())) {
      const existing = await seen(await call(id));
      expect([route, existing.status]).toEqual([route, 401]);
      expect([route, await seen(await call(MISSING))]).toEqual([route, existing]);
    }
    expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("pending");
    expect(w.writes()).toBe(0);
  });

  it("a second person's cookie: exactly the unknown record's 404 on an existing record of the first", async () => {
    const { id } = await w.ask();
    // the second person, who may write their own page: their cookie reads their own record, so the 404 is about the record
    const other = await w.t.session({ actorId: "user_3", workspaceId: "ws_2", documentId: "doc_other" });
    const theirs = await signIn(id, other.sessionId);
    const mine = await w.ask(other);
    expect((await reads(theirs).json(mine.id)).status).toBe(200);
    for (const [route, call] of Object.entries(reads(theirs))) {
      const existing = await seen(await call(id));
      expect([route, existing.status]).toEqual([route, 404]);
      expect([route, await seen(await call(MISSING))]).toEqual([route, existing]);
    }
    expect((await seen(await reads(theirs).page(id))).body).not.toContain("Replace all text of");
    expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("pending");
    expect(w.writes()).toBe(0);
  });
});

it("the JSON API shows the record to its person; an expired record takes no answer and writes nothing", async () => {
  const { token, id } = await w.ask();
  const cookie = await signIn(id);
  const json = (await (await fetch(`${w.base}/v1/approvals/${id}`, { headers: { cookie } })).json()) as any;
  expect(json).toMatchObject({ id, status: "pending", locale: "en" });
  expect(Object.keys(json).sort()).toEqual(["answeredAt", "expiresAt", "id", "locale", "status", "summary"]);
  // the tool token (the Hermes plugin that named the page) reads the status only, and answers nothing
  const tool = { authorization: `Bearer ${TOOL_TOKEN}`, "content-type": "application/json" };
  const status = await fetch(`${w.base}/v1/approvals/${id}`, { headers: tool });
  expect(await status.json()).toEqual({ id, status: "pending", expiresAt: json.expiresAt });
  const byTool = await fetch(`${w.base}/v1/approvals/${id}`, {
    method: "POST",
    headers: tool,
    body: '{"answer":"approve"}',
  });
  expect(byTool.status).toBe(401);
  expect((await w.t.runtime.approvalRecords.get(id))?.status).toBe("pending");
  const { csrf } = await page(id, cookie);
  w.clock.now += 11 * 60 * 1000; // past the 10-minute token
  expect((await page(id, cookie)).html).toContain('data-initial="expired"');
  const late = await answer(id, cookie, csrf, { answer: "approve" });
  expect([late.status, ((await late.json()) as any).status]).toEqual([409, "expired"]);
  const r = await w.retry(token);
  expect(r.error?.code).toBe("mnote_tool_approval_expired");
  expect(w.writes()).toBe(0);
});

it("mcp --http serves the same page: the record's person signs in with the bearer holder's ticket and reads it there", async () => {
  const server = createMcpHttpServer({
    dispatch: (r) => w.t.runtime.dispatcher.dispatch(r),
    grants: w.t.runtime.grants,
    sessionId: w.as.sessionId,
    token: "mcp-bearer",
    log: createLogger({ service: "test", level: "silent" }),
    approvalPage: { ...pageStores(w.t.runtime), hostTokens: ["mcp-bearer"] },
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const { id } = await w.ask();
    const minted = await fetch(`${base}/v1/approvals/tickets`, {
      method: "POST",
      headers: { authorization: "Bearer mcp-bearer", "content-type": "application/json" },
      body: JSON.stringify({ sessionId: w.as.sessionId }),
    });
    const { ticket } = (await minted.json()) as { ticket: string };
    const signed = await fetch(`${base}/approvals/${id}?ticket=${ticket}`, { redirect: "manual" });
    const cookie = signed.headers.get("set-cookie")!.split(";")[0]!;
    const r = await fetch(`${base}/approvals/${id}`, { headers: { cookie, "accept-language": "en" } });
    expect([r.status, (await r.text()).includes("Replace all text of")]).toEqual([200, true]);
    expect((await fetch(`${base}/approvals/${id}`)).status).toBe(401);
  } finally {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  }
});
