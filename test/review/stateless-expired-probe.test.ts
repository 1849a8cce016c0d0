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
import { EMPTY_POLICY, approvalPolicyFrom } from "../../runtime/approval/policy";
import { ERR } from "../../generated/registry";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type Actor, type TestRuntime } from "../support/runtime";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { cliPath } from "../support/paths";

const REPLACE = { content: [{ type: "paragraph", text: "Approved on the page." }], mode: "append" };
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
  const t = await testRuntime({
    now,
    approval: {
      policy: process.env.PROBE_ASK ? approvalPolicyFrom({ tools: { "mnote.page.save": "ask" } }) : EMPTY_POLICY,
    },
  });
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

it("PROBE stateless 2025 path: a call written after a page yes, sent again after the token's expiry, replays (not a fresh question)", async () => {
  const client = new V1Client({ name: "v1", version: "1" });
  await client.connect(new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  const call = () => client.callTool({ name: "mnote_page_save", arguments: REPLACE }) as Promise<any>;
  try {
    const url = (await call())._meta[APPROVAL_URL_META_KEY] as string;
    const id = RECORD_URL.exec(url)![2]!;
    const mine = await openWithTicket(`${url}?ticket=${await hostTicket(s.origin, s.as)}`);
    expect(await answerOnPage(s.origin, id, mine, "approve")).toEqual([200, 200]);
    const done = await call();
    expect(done.structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
    expect(s.t.count("command_log")).toBe(1);
    const within = await call(); // within the token's life: replayed
    expect(within.structuredContent).toMatchObject({ ok: true, audit: { replayed: true } });
    s.advance(11 * 60_000); // past the token's 10 minutes
    const later = await call();
    // the same call, already written once: its answer should be the replay, not a new question
    expect(later.structuredContent).toMatchObject({ ok: true, audit: { replayed: true } });
  } finally {
    await client.close();
  }
});

it("PROBE (append) the same: after expiry a written call becomes a fresh question whose yes writes a second time", async () => {
  const client = new V1Client({ name: "v1", version: "1" });
  await client.connect(new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  const call = () => client.callTool({ name: "mnote_page_save", arguments: REPLACE }) as Promise<any>;
  try {
    const url = (await call())._meta[APPROVAL_URL_META_KEY] as string;
    const id = RECORD_URL.exec(url)![2]!;
    const mine = await openWithTicket(`${url}?ticket=${await hostTicket(s.origin, s.as)}`);
    expect(await answerOnPage(s.origin, id, mine, "approve")).toEqual([200, 200]);
    expect((await call()).structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
    s.advance(11 * 60_000);
    const later = await call();
    const fresh = later._meta?.[APPROVAL_URL_META_KEY] as string | undefined;
    console.log("after expiry:", later.structuredContent?.error?.code ?? later.structuredContent?.audit, fresh);
    if (fresh) {
      const freshId = RECORD_URL.exec(fresh)![2]!;
      await answerOnPage(s.origin, freshId, mine, "approve");
      await call();
    }
    expect(s.t.count("command_log")).toBe(1);
  } finally {
    await client.close();
  }
});

it("PROBE stateless path: two deliberate identical appends (allow level) each write", async () => {
  const client = new V1Client({ name: "v1", version: "1" });
  await client.connect(new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  const call = () => client.callTool({ name: "mnote_page_save", arguments: REPLACE }) as Promise<any>;
  try {
    const one = await call();
    const two = await call();
    console.log("appends:", JSON.stringify(one.structuredContent?.audit), JSON.stringify(two.structuredContent?.audit));
    expect(s.t.count("command_log")).toBe(2);
  } finally {
    await client.close();
  }
});
