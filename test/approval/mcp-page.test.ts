/**
 * Issue 41, finding 3: the approval page serves every MCP client that cannot show the yes/no form
 * (runtime/transports/mcp-approval-page.ts). The person answers on `/approvals/<id>`; the call
 * completes when the client sends it again: approved -> exactly one write; declined -> none; a
 * retry before the answer -> asked again, nothing used up; another person's ticket or cookie
 * cannot answer. The kernel's state is asserted after each step.
 *
 * - a URL-only 2026-07-28 client (the v2 SDK's client over Streamable HTTP, `input_required` with
 *   an `elicitUrl` request);
 * - a 2025-era client over the stateless HTTP path (the v1 SDK's client): a structured
 *   approval_required naming the page;
 * - an OAuth caller: its URL carries no sign-in ticket, only its own principal's cookie answers;
 * - two OS processes on one state file: `mnote-tools mcp` on stdio (a 2025-11-25 client, the
 *   SDK's legacy shim with an elicitationId) sends its person to the page `mnote-tools mcp --http`
 *   serves (--approval-page-url), and the call completes in the stdio process.
 */
import type { AddressInfo } from "node:net";
import type { Server as HttpServer } from "node:http";
import Database from "better-sqlite3";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import { pageStores } from "../../runtime/transports/approval-page";
import { APPROVAL_URL_META_KEY, mcpApprovalPage } from "../../runtime/transports/mcp-approval-page";
import { principalKey } from "../../runtime/approval/record";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { ERR } from "../../generated/registry";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type Actor, type TestRuntime } from "../support/runtime";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { cliPath } from "../support/paths";

const REPLACE = { content: [{ type: "paragraph", text: "Approved on the page." }], mode: "replace" };
const MODERN = "2026-07-28";
const TOKEN = "mcp-page-token";
/** How every approval token starts: base64url of '{"v":1,"s":"' (runtime/approval/token.ts). */
const TOKEN_PREFIX = Buffer.from('{"v":1,"s":"').toString("base64url");
const RECORD_URL = /^(http:\/\/[^/]+)\/approvals\/([0-9a-f]{32})(\?ticket=[A-Za-z0-9_.-]+)?$/;

interface Served {
  t: TestRuntime;
  /** Moves the runtime's and the server's clock (approval expiry without sleeping). */
  advance(ms: number): void;
  as: Actor;
  origin: string;
  url: string;
  close(): Promise<void>;
}

/** `mcp --http` in process (its approval page beside /mcp), over a runtime that asks for a replace. */
async function served(): Promise<Served> {
  let clock = Date.now();
  const now = () => clock;
  const t = await testRuntime({ now, approval: { policy: EMPTY_POLICY } });
  const as = await t.session({ actorId: "user_1" });
  const server: HttpServer = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: as.sessionId,
    token: TOKEN,
    now,
    log: createLogger({ service: "test", level: "silent" }),
    approvalPage: { ...pageStores(t.runtime), hostTokens: [TOKEN] },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    t,
    advance: (ms) => void (clock += ms),
    as,
    origin,
    url: `${origin}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/** A person's browser: opens a URL carrying a ticket and keeps the cookie it sets. */
async function openWithTicket(url: string): Promise<string> {
  const r = await fetch(url, { redirect: "manual" });
  expect(r.status).toBe(303);
  return r.headers.get("set-cookie")!.split(";")[0]!;
}

/** The host signs a person in (its bearer token mints the ticket), as docs/APPROVAL.md says. */
async function hostTicket(origin: string, who: { sessionId: string; issuer?: string; subject?: string }) {
  const r = await fetch(`${origin}/v1/approvals/tickets`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(who),
  });
  return ((await r.json()) as { ticket: string }).ticket;
}

/** Answers on the page as the cookie's person: the page's status, then the answer's. */
async function answerOnPage(origin: string, id: string, cookie: string, answer: "approve" | "decline") {
  const page = await fetch(`${origin}/approvals/${id}`, { headers: { cookie, "accept-language": "en" } });
  const csrf = /data-csrf="([^"]*)"/.exec(await page.text())?.[1] ?? "";
  const posted = await fetch(`${origin}/v1/approvals/${id}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", "x-mnote-csrf": csrf },
    body: JSON.stringify({ answer }),
  });
  return [page.status, posted.status];
}

const statusOf = async (t: TestRuntime, id: string) => (await t.runtime.approvalRecords.get(id))?.status;

type UrlParams = { mode?: string; url: string; message: string; elicitationId?: string };

/** The v2 client (2026-07-28) that declared only URL-mode elicitation; `open` plays the person. */
async function urlOnlyClient(url: string, open: (params: UrlParams, n: number) => Promise<{ action: string }>) {
  const client = new Client(
    { name: "url-only", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { url: {} } } },
  );
  let n = 0;
  client.setRequestHandler("elicitation/create", async (request) => open(request.params as UrlParams, ++n) as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
  );
  return client;
}

let s: Served;
beforeEach(async () => {
  s = await served();
});
afterEach(() => s.close());

describe("a client that can only open a URL (2026-07-28: input_required with a URL request)", () => {
  it("the page of the call's record; before the answer it is asked again; another person is refused; approve writes once", async () => {
    const before = s.t.kernelStateHash();
    const other = await s.t.session({ actorId: "user_2" });
    const seen: UrlParams[] = [];
    const client = await urlOnlyClient(s.url, async (params, n) => {
      seen.push(params);
      const [, origin, id] = RECORD_URL.exec(params.url)!;
      expect([params.mode, origin]).toEqual(["url", s.origin]);
      expect(params.message).toContain("替换「项目计划」的全部内容"); // the person's preview, in the session's locale
      expect([s.t.kernelStateHash(), await statusOf(s.t, id!)]).toEqual([before, "pending"]);
      if (n === 1) return { action: "accept" }; // opened, not answered yet: the retry is asked again
      // another person (their own ticket, their own cookie) cannot read or answer it
      const theirs = await openWithTicket(`${s.origin}/approvals/${id}?ticket=${await hostTicket(s.origin, other)}`);
      expect(await answerOnPage(s.origin, id!, theirs, "approve")).toEqual([404, 404]); // another's record: as an unknown one
      expect(await statusOf(s.t, id!)).toBe("pending");
      // the record's person opens the URL the client was given, and approves
      expect(await answerOnPage(s.origin, id!, await openWithTicket(params.url), "approve")).toEqual([200, 200]);
      return { action: "accept" };
    });
    try {
      const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
      expect(r).toMatchObject({ ok: true, audit: { effect: "write", approval: { decision: "approved" } } });
      expect(seen).toHaveLength(2);
      expect(seen[1]!.url.split("?")[0]).toBe(seen[0]!.url.split("?")[0]); // the same record both times
      expect(seen[0]!.url).toMatch(/\?ticket=/); // the operator's client: the URL signs its person in
      expect(s.t.count("command_log")).toBe(1);
      expect(s.t.count("blocks", "page_id = 'doc_1' AND text = ?", "Approved on the page.")).toBe(1);
    } finally {
      await client.close();
    }
  });

  it.each([
    ["declines on the page", "decline", "accept"],
    ["declines to open the URL", undefined, "decline"],
    ["dismisses the URL", undefined, "cancel"],
  ] as const)("a person who %s: approval_denied (declined), nothing written", async (_n, onPage, action) => {
    const before = s.t.kernelStateHash();
    let id = "";
    const client = await urlOnlyClient(s.url, async (params) => {
      id = RECORD_URL.exec(params.url)![2]!;
      if (onPage)
        expect(await answerOnPage(s.origin, id, await openWithTicket(params.url), onPage)).toEqual([200, 200]);
      return { action };
    });
    try {
      const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
      expect([r.error.code, r.error.reason]).toEqual([ERR.approvalDenied, "declined"]);
      expect([s.t.kernelStateHash(), await statusOf(s.t, id)]).toEqual([before, "declined"]);
    } finally {
      await client.close();
    }
  });
});

describe("a 2025-era client over the stateless HTTP path (nothing can be asked there)", () => {
  it("a structured approval_required naming the page; before the answer nothing is written; after it one write", async () => {
    const before = s.t.kernelStateHash();
    const client = new V1Client({ name: "v1", version: "1" }, { capabilities: { elicitation: { url: {} } } });
    await client.connect(
      new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    const call = () => client.callTool({ name: "mnote_page_save", arguments: REPLACE }) as Promise<any>;
    try {
      const first = await call();
      const url = first._meta?.[APPROVAL_URL_META_KEY] as string;
      const [, origin, id, ticket] = RECORD_URL.exec(url) ?? [];
      expect([origin, ticket]).toEqual([s.origin, undefined]); // what the model reads signs nobody in
      expect(first.isError).toBe(true);
      expect(first.structuredContent).toMatchObject({ ok: false, error: { code: ERR.approvalRequired } });
      expect(first.structuredContent.error.approval).toBeUndefined(); // no token, no summary for the model
      expect(first.content.map((c: { text: string }) => c.text)).toEqual([
        JSON.stringify(first.structuredContent),
        url,
      ]);
      expect(JSON.stringify(first)).not.toContain(TOKEN_PREFIX);
      expect([s.t.kernelStateHash(), await statusOf(s.t, id!)]).toEqual([before, "pending"]);

      // sent again before anyone answered: the same page, nothing written, nothing used up
      const again = await call();
      expect(again._meta?.[APPROVAL_URL_META_KEY]).toBe(url);
      expect([s.t.kernelStateHash(), await statusOf(s.t, id!)]).toEqual([before, "pending"]);

      // another person's cookie cannot answer; the host signs its own person in, who approves
      const other = await s.t.session({ actorId: "user_2" });
      const theirs = await openWithTicket(`${url}?ticket=${await hostTicket(s.origin, other)}`);
      expect(await answerOnPage(s.origin, id!, theirs, "approve")).toEqual([404, 404]); // another's record: as an unknown one
      const mine = await openWithTicket(`${url}?ticket=${await hostTicket(s.origin, s.as)}`);
      expect(await answerOnPage(s.origin, id!, mine, "approve")).toEqual([200, 200]);
      expect(s.t.kernelStateHash()).toBe(before);

      const done = await call();
      expect(done.structuredContent).toMatchObject({
        ok: true,
        audit: { effect: "write", approval: { decision: "approved" } },
      });
      expect(s.t.count("command_log")).toBe(1);
      // sent once more (a lost answer): replayed, still one write
      const twice = await call();
      expect(twice.structuredContent).toMatchObject({ ok: true, audit: { replayed: true } });
      expect(s.t.count("command_log")).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("declined on the page: nothing written; the next retry reads approval_denied once, the one after is a fresh question", async () => {
    const before = s.t.kernelStateHash();
    const client = new V1Client({ name: "v1", version: "1" });
    await client.connect(
      new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    const call = () => client.callTool({ name: "mnote_page_save", arguments: REPLACE }) as Promise<any>;
    try {
      const url = (await call())._meta[APPROVAL_URL_META_KEY] as string;
      const id = RECORD_URL.exec(url)![2]!;
      const mine = await openWithTicket(`${url}?ticket=${await hostTicket(s.origin, s.as)}`);
      expect(await answerOnPage(s.origin, id, mine, "decline")).toEqual([200, 200]);
      // the model reads the person's no, once
      const told = await call();
      expect(told.isError).toBe(true);
      expect(told.structuredContent).toMatchObject({ ok: false, error: { code: ERR.approvalDenied } });
      expect(told._meta?.[APPROVAL_URL_META_KEY]).toBeUndefined();
      // sent again after that: the person may have changed their mind, so a fresh question (a new page)
      const next = await call();
      expect(next.structuredContent.error.code).toBe(ERR.approvalRequired);
      expect(next._meta[APPROVAL_URL_META_KEY]).not.toBe(url);
      const nextId = RECORD_URL.exec(next._meta[APPROVAL_URL_META_KEY])![2]!;
      expect([s.t.kernelStateHash(), await statusOf(s.t, id), await statusOf(s.t, nextId)]).toEqual([
        before,
        "declined",
        "pending",
      ]);
    } finally {
      await client.close();
    }
  });

  it("approved on the page but its token expired before the retry: a fresh page, never approval_expired; its yes writes once", async () => {
    const before = s.t.kernelStateHash();
    const client = new V1Client({ name: "v1", version: "1" });
    await client.connect(
      new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    const call = () => client.callTool({ name: "mnote_page_save", arguments: REPLACE }) as Promise<any>;
    try {
      const url = (await call())._meta[APPROVAL_URL_META_KEY] as string;
      const id = RECORD_URL.exec(url)![2]!;
      const mine = await openWithTicket(`${url}?ticket=${await hostTicket(s.origin, s.as)}`);
      expect(await answerOnPage(s.origin, id, mine, "approve")).toEqual([200, 200]);
      s.advance(11 * 60_000); // past the token's 10 minutes (--approval-ttl's default)
      const codes: string[] = [];
      const urls = new Set<string>();
      for (let i = 0; i < 2; i++) {
        const again = await call();
        codes.push(again.structuredContent.error.code);
        urls.add(again._meta?.[APPROVAL_URL_META_KEY]);
      }
      // asked afresh, twice the same new page; nothing written
      expect(codes).toEqual([ERR.approvalRequired, ERR.approvalRequired]);
      expect(urls.size).toBe(1);
      const fresh = [...urls][0]!;
      expect(fresh).not.toBe(url);
      expect(s.t.kernelStateHash()).toBe(before);
      const freshId = RECORD_URL.exec(fresh)![2]!;
      const cookie = await openWithTicket(`${fresh}?ticket=${await hostTicket(s.origin, s.as)}`);
      expect(await answerOnPage(s.origin, freshId, cookie, "approve")).toEqual([200, 200]);
      const done = await call();
      expect(done.structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
      expect(s.t.count("command_log")).toBe(1);
      expect([await statusOf(s.t, id), await statusOf(s.t, freshId)]).toEqual(["approved", "approved"]);
    } finally {
      await client.close();
    }
  });
});

it("an OAuth caller's URL carries no ticket; only a cookie for its own principal answers", async () => {
  const who = { issuer: "https://issuer.example", subject: "alice" };
  const grant = await s.t.runtime.grants.get(s.as.sessionId);
  await s.t.runtime.grants.put({ ...grant!, principal: who });
  const page = mcpApprovalPage({ ...pageStores(s.t.runtime), base: () => s.origin });
  const server = createMcpServer(
    {
      dispatch: (r) => s.t.runtime.dispatcher.dispatch(r),
      grants: s.t.runtime.grants,
      sessionId: s.as.sessionId,
      page,
    },
    { sessionId: s.as.sessionId, principal: who, refusals: new Map() },
  );
  const client = new V1Client({ name: "oauth", version: "1" }, { capabilities: { elicitation: { url: {} } } });
  const before = s.t.kernelStateHash();
  const urls: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as UrlParams;
    urls.push(params.url);
    expect(typeof params.elicitationId).toBe("string"); // the 2025-11-25 shape, minted by the SDK's shim
    const [, , id, ticket] = RECORD_URL.exec(params.url)!;
    expect(ticket).toBeUndefined();
    expect((await s.t.runtime.approvalRecords.get(id!))?.principal).toBe(principalKey(s.as.sessionId, who));
    // the session's operator cookie is not this person's
    const operator = await openWithTicket(`${params.url}?ticket=${await hostTicket(s.origin, s.as)}`);
    expect(await answerOnPage(s.origin, id!, operator, "approve")).toEqual([404, 404]); // another's record: as an unknown one
    const alice = await openWithTicket(`${params.url}?ticket=${await hostTicket(s.origin, { ...s.as, ...who })}`);
    expect(await answerOnPage(s.origin, id!, alice, "approve")).toEqual([200, 200]);
    return { action: "accept" };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    expect(s.t.kernelStateHash()).toBe(before);
    const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
    expect([r.ok, urls.length, s.t.count("command_log")]).toEqual([true, 1, 1]);
  } finally {
    await client.close();
  }
});

it("two processes on one state file: stdio `mcp` sends its person to the page `mcp --http` serves; one write", async () => {
  const p = seededProject([
    { session: "s_1", actor: "user_1" },
    { session: "s_2", actor: "user_2" },
  ]);
  // the contract's levels (no allow-all policy); the page's public origin named for its own clients
  const PUBLIC = "https://mcp.example.test";
  const http = await start(
    [
      "mcp",
      "--session",
      "s_1",
      "--http",
      "--port",
      "0",
      "--token",
      TOKEN,
      "--db",
      p.db,
      "--state",
      p.state,
      "--approval-page-url",
      PUBLIC,
    ],
    { env: { MNOTE_APPROVAL_POLICY: undefined, MNOTE_APPROVAL_SECRET: undefined } },
  );
  const origin = new URL(http.url).origin;
  const writes = () => {
    const d = new Database(p.db, { readonly: true });
    try {
      return (d.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n;
    } finally {
      d.close();
    }
  };
  const client = new V1Client({ name: "v1", version: "1" }, { capabilities: { elicitation: { url: {} } } });
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked++;
    const params = request.params as UrlParams;
    const [, at, id] = RECORD_URL.exec(params.url)!;
    expect([at, writes()]).toEqual([origin, 0]);
    // the other session's person, signed in by the host on the page's process, is refused
    const theirs = await openWithTicket(
      `${origin}/approvals/${id}?ticket=${await hostTicket(origin, { sessionId: "s_2" })}`,
    );
    expect(await answerOnPage(origin, id!, theirs, "approve")).toEqual([404, 404]); // another's record: as an unknown one
    // the URL the stdio process minted signs this session's person in on the other process
    expect(await answerOnPage(origin, id!, await openWithTicket(params.url), "approve")).toEqual([200, 200]);
    return { action: "accept" };
  });
  await client.connect(
    new V1Stdio({
      command: process.execPath,
      args: [cliPath, "mcp", "--session", "s_1", "--db", p.db, "--state", p.state, "--approval-page-url", origin],
      stderr: "pipe",
    }),
  );
  try {
    const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
    expect([r.ok, asked, writes()]).toEqual([true, 1, 1]);
    // a 2025-era client of the HTTP process is sent to the origin --approval-page-url names
    const v1 = new V1Client({ name: "v1", version: "1" });
    await v1.connect(new V1Http(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    const rename = (await v1.callTool({ name: "mnote_page_update_title", arguments: { title: "Renamed" } })) as any;
    expect(rename.structuredContent.error.code).toBe(ERR.approvalRequired);
    expect(rename._meta[APPROVAL_URL_META_KEY]).toMatch(new RegExp(`^${PUBLIC}/approvals/[0-9a-f]{32}$`));
    expect(writes()).toBe(1);
    await v1.close();
  } finally {
    await client.close();
    await http.stop();
  }
});
