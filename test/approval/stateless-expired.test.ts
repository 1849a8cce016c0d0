/**
 * The 2025-era stateless MCP path (mcp --http, a v1 client without elicitation): a call approved
 * on the page and written, sent again after its token expired, replays that write (docs/APPROVAL.md,
 * "The record's life cycle": approved and written, token expired: the same call replays). The
 * record notes the scope its write ran under (writtenUnder), so the replay is found whatever key the
 * write was sent with; the kernel's command log is counted. Deliberate identical appends at allow
 * level still each write.
 */
import type { AddressInfo } from "node:net";
import type { Server as HttpServer } from "node:http";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { pageStores } from "../../runtime/transports/approval-page";
import { APPROVAL_URL_META_KEY } from "../../runtime/transports/mcp-approval-page";
import { EMPTY_POLICY, approvalPolicyFrom } from "../../runtime/approval/policy";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type Actor, type TestRuntime } from "../support/runtime";

const APPEND = { content: [{ type: "paragraph", text: "Approved on the page." }], mode: "append" };
const TOKEN = "mcp-page-token";
const RECORD_URL = /^(http:\/\/[^/]+)\/approvals\/([0-9a-f]{32})$/;

interface Served {
  t: TestRuntime;
  /** Moves the runtime's and the server's clock (approval expiry without sleeping). */
  advance(ms: number): void;
  as: Actor;
  origin: string;
  close(): Promise<void>;
}

/** `mcp --http` in process (its approval page beside /mcp), the save at `level`. */
async function served(level: "ask" | "allow"): Promise<Served> {
  let clock = Date.now();
  const now = () => clock;
  const t = await testRuntime({
    now,
    approval: {
      policy: level === "ask" ? approvalPolicyFrom({ tools: { "mnote.page.save": "ask" } }) : EMPTY_POLICY,
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
  return {
    t,
    advance: (ms) => void (clock += ms),
    as,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/** The host signs a person in (its bearer token mints the ticket); the browser keeps the cookie. */
async function signedIn(s: Served, url: string): Promise<string> {
  const minted = await fetch(`${s.origin}/v1/approvals/tickets`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(s.as),
  });
  const { ticket } = (await minted.json()) as { ticket: string };
  const r = await fetch(`${url}?ticket=${ticket}`, { redirect: "manual" });
  expect(r.status).toBe(303);
  return r.headers.get("set-cookie")!.split(";")[0]!;
}

/** Answers yes on the page as the cookie's person. */
async function approveOnPage(origin: string, id: string, cookie: string): Promise<void> {
  const page = await fetch(`${origin}/approvals/${id}`, { headers: { cookie, "accept-language": "en" } });
  const csrf = /data-csrf="([^"]*)"/.exec(await page.text())?.[1] ?? "";
  const posted = await fetch(`${origin}/v1/approvals/${id}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", "x-mnote-csrf": csrf },
    body: JSON.stringify({ answer: "approve" }),
  });
  expect([page.status, posted.status]).toEqual([200, 200]);
}

async function v1Client(s: Served) {
  const client = new V1Client({ name: "v1", version: "1" });
  const auth = { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } };
  await client.connect(new V1Http(new URL(`${s.origin}/mcp`), auth));
  return client;
}

describe("stateless 2025 path, at ask", () => {
  let s: Served;
  beforeEach(async () => {
    s = await served("ask");
  });
  afterEach(() => s.close());

  it("an append written after a page yes, sent again after its token expired, replays: one write, no second question", async () => {
    const client = await v1Client(s);
    const call = () => client.callTool({ name: "mnote_page_save", arguments: APPEND }) as Promise<any>;
    try {
      const url = (await call())._meta[APPROVAL_URL_META_KEY] as string;
      const id = RECORD_URL.exec(url)![2]!;
      await approveOnPage(s.origin, id, await signedIn(s, url));
      expect((await call()).structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
      expect((await s.t.runtime.approvalRecords.get(id))?.writtenUnder).toMatch(/^[0-9a-f]{64}$/);
      expect((await call()).structuredContent).toMatchObject({ ok: true, audit: { replayed: true } });
      s.advance(11 * 60_000); // past the token's 10 minutes, within the record's keeping
      const later = await call();
      expect(later._meta?.[APPROVAL_URL_META_KEY]).toBeUndefined();
      expect(later.structuredContent).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
      expect(s.t.count("command_log")).toBe(1);
      expect((await s.t.runtime.approvalRecords.get(id))?.status).toBe("approved");
    } finally {
      await client.close();
    }
  });
});

describe("stateless 2025 path, at allow", () => {
  let s: Served;
  beforeEach(async () => {
    s = await served("allow");
  });
  afterEach(() => s.close());

  it("two deliberate identical appends each write", async () => {
    const client = await v1Client(s);
    const call = () => client.callTool({ name: "mnote_page_save", arguments: APPEND }) as Promise<any>;
    try {
      expect((await call()).structuredContent).toMatchObject({ ok: true, audit: { replayed: false } });
      expect((await call()).structuredContent).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(s.t.count("command_log")).toBe(2);
    } finally {
      await client.close();
    }
  });
});
