import { mcpApprovalPage } from "../../runtime/transports/mcp-approval-page";
import { parseHttpUrl } from "../../cli/options";

const page = (base: string) =>
  mcpApprovalPage({ records: {} as never, secret: Buffer.alloc(32, 7), now: () => 0, base: () => base });

// probe: --approval-page-url takes plain http:// to a non-loopback host, and the URL a vouched
// client is sent then carries a sign-in ticket in clear text
test("a sign-in ticket is never put in a plain-http URL to a non-loopback host", () => {
  const base = parseHttpUrl("http://203.0.113.5:8080"); // accepted by the CLI
  const url = page(base).url("0".repeat(32), JSON.stringify(["s", null, null]))!;
  expect(url.startsWith("http://203.0.113.5:8080/approvals/")).toBe(true);
  expect(new URL(url).searchParams.get("ticket")).toBeNull();
});

// probe: a page behind a path prefix (as MNOTE_APPROVAL_PAGE_URL allows for Hermes) loses its prefix
test("a base URL's path is kept", () => {
  const base = parseHttpUrl("https://example.com/mnote");
  expect(page(base).url("0".repeat(32))).toBe(`https://example.com/mnote/approvals/${"0".repeat(32)}`);
});
