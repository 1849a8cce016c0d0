/**
 * The one loopback rule (common/http/loopback.ts) and its three users: `kernel serve
 * --insecure-no-auth` (a bind address), `--oauth-issuer`/`--oauth-jwks-url` (cli/options.ts) and
 * the key fetcher (runtime/transports/oauth-keys.ts), which read a URL's hostname. Each spelling is
 * asked of the function and of both URL users, so the three can no longer disagree.
 */
import { isLoopback } from "../../common/http/loopback";
import { parseOAuthUrl } from "../../cli/options";
import { fetchableUrl } from "../../runtime/transports/oauth-keys";

/** Host spellings that are this machine: traffic to them cannot leave it. */
const LOOPBACK = [
  "localhost",
  "LOCALHOST",
  "LocalHost",
  "127.0.0.1",
  "127.0.0.2",
  "127.255.255.254",
  "::1",
  "[::1]",
  "0:0::1",
  "[0:0:0:0:0:0:0:1]",
];

/** Spellings that are not, or that the rule is not sure of: refused. */
const NOT_LOOPBACK = [
  "",
  "localhost.",
  "a.localhost",
  "localhost.example.com",
  "127.999.0.1",
  "127.0.0.01",
  "128.0.0.1",
  "0.0.0.0",
  "::",
  "[::]",
  "::2",
  "::ffff:127.0.0.1",
  "[::1",
  "::1%lo",
  "example.com",
  "10.0.0.1",
];

describe("isLoopback", () => {
  it.each(LOOPBACK)("%s is loopback", (host) => expect(isLoopback(host)).toBe(true));
  it.each(NOT_LOOPBACK)("%j is not", (host) => expect(isLoopback(host)).toBe(false));
});

/** A host as it goes into a URL's authority: an IPv6 literal in brackets. */
const inUrl = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);

describe("the URL users agree with it", () => {
  // URL spellings the URL parser normalises to a loopback hostname first
  const urlLoopback = [...LOOPBACK.map(inUrl), "127.1", "0x7f.0.0.1", "2130706433"];
  const urlNot = ["localhost.", "a.localhost", "128.0.0.1", "[::ffff:127.0.0.1]", "example.com", "10.0.0.1"];

  it.each(urlLoopback)("http://%s is taken for an OAuth URL and fetched", (host) => {
    const url = `http://${host}:8080/issuer`;
    expect(parseOAuthUrl(url)).toBe(url);
    expect(fetchableUrl(url)?.protocol).toBe("http:");
  });

  it.each(urlNot)("http://%s is refused by both", (host) => {
    const url = `http://${host}:8080/issuer`;
    expect(() => parseOAuthUrl(url)).toThrow(/https:\/\/ URL \(http:\/\/ only on a loopback host\)/);
    expect(fetchableUrl(url)).toBeUndefined();
    // https is fine whatever the host
    expect(fetchableUrl(`https://${host}:8080/issuer`)?.protocol).toBe("https:");
  });
});
