/**
 * The approval page's base URL (`--approval-page-url`, `MNOTE_APPROVAL_PAGE_URL`, docs/MCP.md):
 * an origin only, since the page is served at `/approvals/<id>` on it (a path would be dropped by
 * one reader and kept by another), and, as the OAuth URLs, https:// or http:// only on a loopback
 * host: the links it makes may carry a sign-in ticket, which must not cross a network in clear.
 */
import { isLoopback } from "./loopback";

/** Whether a secret may travel in this URL: https, or http to this machine's loopback. */
export function staysPrivate(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url.hostname));
}

/**
 * The base's origin (no trailing slash), or the reason it is refused. `anyHost`: plain http to any
 * host passes (a base the server derives itself, such as --oauth-resource's origin: its links then
 * carry no ticket, see staysPrivate); the option a person sets is held to the private rule.
 */
export function approvalPageOrigin(text: string, anyHost = false): { origin: string } | { problem: string } {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const scheme = url?.protocol === "https:" || (anyHost && url?.protocol === "http:");
  if (!url || !url.hostname || !(scheme || staysPrivate(url)))
    return { problem: "Expected an https:// URL (http:// only on a loopback host), such as https://mcp.example.com." };
  if (url.username || url.password) return { problem: "Expected a URL without a user or password." };
  if (url.pathname !== "/" || url.search || url.hash)
    return {
      problem:
        "Expected an origin only (scheme, host and port, no path, query or #fragment): the page is served at /approvals/<id> on it (a proxy passes /approvals/ and /v1/approvals/ through unprefixed).",
    };
  return { origin: url.origin };
}
