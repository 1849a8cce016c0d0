/**
 * The one loopback rule, for the three places that ask it: a server without auth may bind only a
 * loopback address (`kernel serve --insecure-no-auth`), and an OAuth issuer or key-set URL may be
 * plain http:// only on a loopback host (`--oauth-issuer`, `--oauth-jwks-url`, and the key fetcher).
 *
 * Loopback means the traffic cannot leave the machine:
 * - `localhost`, in any case (not `localhost.`, not `a.localhost`: those go to a resolver);
 * - an IPv4 address in 127.0.0.0/8 written as four decimal numbers of at most 255 (RFC 1122: the
 *   whole block is this host), so `127.0.0.2` is, `127.999.0.1` is not (not an address: a resolver
 *   would be asked for it as a name);
 * - the IPv6 address ::1 in any spelling, with or without brackets (`::1`, `[::1]`, `0:0::1`).
 * Everything else is not, `::ffff:127.0.0.1` (IPv4-mapped) included: a host it is not sure of is
 * refused, never let through. A URL's hostname is already normalised by the URL parser (`127.1` and
 * `0x7f.0.0.1` are `127.0.0.1` there), so pass `url.hostname` for a URL.
 */
import { isIPv4, isIPv6 } from "node:net";

/** The Host names a server on this machine answers to by default. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** Whether a host name or address (a bind address, or a URL's hostname) is this machine's loopback. */
export function isLoopback(host: string): boolean {
  const h = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (h.toLowerCase() === "localhost") return true;
  if (isIPv4(h)) return h.startsWith("127.");
  if (!isIPv6(h)) return false;
  try {
    return new URL(`http://[${h}]`).hostname === "[::1]";
  } catch {
    return false;
  }
}
