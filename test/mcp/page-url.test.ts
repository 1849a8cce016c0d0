/**
 * The approval page's base URL (docs/MCP.md, "The approval page"): an origin only, https:// or
 * http:// only on loopback, as the OAuth URLs. A link to a plain-http host elsewhere never carries
 * a sign-in ticket; a base with a path is refused, never silently dropped; a page reached over https
 * sets its approver cookie Secure. The CLI option's refusals are swept in test/cli/option-sweep.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { mcpApprovalPage } from "../../runtime/transports/mcp-approval-page";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { pageStores } from "../../runtime/transports/approval-page";
import { readApprover, approverKeys } from "../../runtime/approval/approver";
import { parseApprovalPageUrl } from "../../cli/options";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type TestRuntime } from "../support/runtime";

const ID = "0".repeat(32);
const WHO = JSON.stringify(["s", null, null]);
const SECRET = Buffer.alloc(32, 7);
const TOKEN = "page-url-token";

const page = (base: string) =>
  mcpApprovalPage({ records: {} as never, secret: SECRET, now: () => 0, base: () => base });

test("a sign-in ticket goes only in an https:// link or one to loopback, and names its person", () => {
  for (const base of ["https://mcp.example", "http://127.0.0.1:8788", "http://localhost:3000", "http://[::1]:9"]) {
    const url = new URL(page(base).url(ID, WHO)!);
    expect(url.pathname).toBe(`/approvals/${ID}`);
    expect(readApprover(approverKeys(SECRET), "ticket", url.searchParams.get("ticket")!, 0)).toBe(WHO);
  }
  for (const base of ["http://203.0.113.5:8080", "http://mcp.example"]) {
    const url = page(base).url(ID, WHO)!;
    expect(url).toBe(`${base}/approvals/${ID}`); // the page, without a ticket
  }
});

test("a base with a path is refused by the option, by the server, and by the link maker, never dropped", () => {
  expect(() => parseApprovalPageUrl("https://example.com/mnote")).toThrow(/origin only/);
  expect(() => parseApprovalPageUrl("http://203.0.113.5:8080")).toThrow(/loopback/);
  expect(parseApprovalPageUrl("https://example.com:8443/")).toBe("https://example.com:8443");
  expect(() => page("https://example.com/mnote").url(ID)).toThrow(/origin/);
  expect(() =>
    createMcpHttpServer({
      dispatch: () => Promise.reject(new Error("unused")),
      grants: {} as never,
      sessionId: "s",
      token: TOKEN,
      approvalPageUrl: "https://example.com/mnote",
    } as never),
  ).toThrow(/origin only/);
});

describe("the approver cookie", () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await testRuntime({});
  });
  afterAll(() => t.close());

  /** Serves mcp --http with a page base; the host mints a ticket; the browser opens it: its Set-Cookie. */
  async function cookieWith(approvalPageUrl: string | undefined): Promise<string> {
    const as = await t.session({ actorId: "user_1" });
    const server: Server = createMcpHttpServer({
      dispatch: (r) => t.runtime.dispatcher.dispatch(r),
      grants: t.runtime.grants,
      sessionId: as.sessionId,
      token: TOKEN,
      log: createLogger({ service: "test", level: "silent" }),
      approvalPage: { ...pageStores(t.runtime), hostTokens: [TOKEN] },
      ...(approvalPageUrl ? { approvalPageUrl } : {}),
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const minted = await fetch(`${origin}/v1/approvals/tickets`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(as),
      });
      const { ticket } = (await minted.json()) as { ticket: string };
      const opened = await fetch(`${origin}/approvals/${ID}?ticket=${ticket}`, { redirect: "manual" });
      expect(opened.status).toBe(303);
      return opened.headers.get("set-cookie")!;
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  test("is Secure behind an https base URL, and not on a plain loopback page", async () => {
    const secure = await cookieWith("https://mcp.example");
    expect(secure).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    const plain = await cookieWith(undefined);
    expect(plain).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
  });
});
