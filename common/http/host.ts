/**
 * The Host and Origin checks of the HTTP layer (server.ts; DNS rebinding protection): every Host
 * header as it arrived, its hostname in one normal form, the allow-lists and their defaults.
 */
import type { IncomingMessage } from "node:http";
import { LOOPBACK_HOSTS } from "./loopback";

export type HostAnswer = { status: 400 | 403; problem: string | undefined };

/**
 * The Host header's answer, by its text: a shape problem is a 400, a host outside the allow-list a
 * 403. Cached: a client sends the same one on every request, and parsing it as a URL was a visible
 * share of a request's own cost (bench/, http).
 */
export function hostAnswers(allowedHosts: readonly string[]): (host: string | undefined) => HostAnswer {
  const answers = new Map<string | undefined, HostAnswer>();
  return (host) => {
    let answer = answers.get(host);
    if (answer === undefined) {
      // an empty Host is what HTTP/1.1 sends for a target without authority: the allow-list decides
      const malformed = host && hostnameOf(host) === undefined;
      answer = malformed
        ? { status: 400, problem: `the Host header "${host}" is not host[:port]` }
        : { status: 403, problem: checkHost(host, allowedHosts) };
      if (answers.size >= 256) answers.clear();
      answers.set(host, answer);
    }
    return answer;
  };
}

/** Every Host header of a request as it arrived, in order (req.headers keeps only the first). */
export function hostHeaders(req: IncomingMessage): string[] {
  const hosts: string[] = [];
  const raw = req.rawHeaders;
  // the length first: most names are not four letters, and lower-casing each made a string per header
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") hosts.push(raw[i + 1]!);
  return hosts;
}

/** A host name or IPv6 literal (bracketed), then an optional port: the only shapes a Host header or an allowed host takes. */
const HOST_SHAPE = /^(\[[0-9a-f:.]+\]|[^\s:/?#@[\]\\]+)(:\d*)?$/i;

/**
 * The hostname of a Host header value in its normal form (lower case, an IPv6 literal bracketed
 * and canonical: "[0:0::1]:80" -> "[::1]"), or undefined when the value is not host[:port] (a
 * user part, a path, two ports are refused rather than read leniently).
 */
export function hostnameOf(host: string): string | undefined {
  if (!HOST_SHAPE.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * An allowed host in the form Host headers are compared in: "::1", "[::1]" and "[0:0::1]" all give
 * "[::1]"; names are lower-cased; "*" stays. A port, a path or anything that is not a host is an
 * error: the check is port-agnostic, and an entry that can never match should not pass silently.
 */
export function normalizeHostName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "*") return "*";
  // an IPv6 literal has two colons or more; host:port has one
  const bracketed = (trimmed.match(/:/g)?.length ?? 0) >= 2 && !trimmed.startsWith("[") ? `[${trimmed}]` : trimmed;
  const hostname = bracketed.includes(":") && !bracketed.startsWith("[") ? undefined : hostnameOf(bracketed);
  if (hostname === undefined || (bracketed.startsWith("[") && !bracketed.endsWith("]")))
    throw new Error(
      `allowed host "${name}" is not a host name or address (no port, path or scheme; see --allowed-hosts)`,
    );
  return hostname;
}

/** Why a Host header is refused, or undefined when its hostname is allowed (both in normal form). */
export function checkHost(host: string | undefined, allowed: readonly string[]): string | undefined {
  if (allowed.includes("*")) return undefined;
  if (!host) return "a Host header is required";
  const hostname = hostnameOf(host);
  if (hostname === undefined) return `the Host header "${host}" is not a host`;
  return allowed.includes(hostname)
    ? undefined
    : `Host "${hostname}" is not allowed (DNS rebinding protection; see --allowed-hosts)`;
}

/** Why an Origin header is refused, or undefined (no Origin: not a browser, nothing to check). */
export function checkOrigin(
  origin: string | undefined,
  allowedOrigins: readonly string[] | undefined,
  allowedHosts: readonly string[],
): string | undefined {
  if (origin === undefined) return undefined;
  if (allowedOrigins) {
    return allowedOrigins.includes("*") || allowedOrigins.includes(origin)
      ? undefined
      : `Origin "${origin}" is not allowed (see --allowed-origins)`;
  }
  try {
    const url = new URL(origin);
    if (
      (url.protocol === "http:" || url.protocol === "https:") &&
      (allowedHosts.includes("*") || allowedHosts.includes(url.hostname))
    )
      return undefined;
  } catch {
    // "null" (a sandboxed page, a file) and anything else that is not a URL: refused below
  }
  return `Origin "${origin}" is not allowed (see --allowed-origins)`;
}

/** The default Host allow-list of a server bound to `bind`: the loopback names and its own address. */
export function defaultAllowedHosts(bind: string): string[] {
  const own = bind.includes(":") && !bind.startsWith("[") ? `[${bind.toLowerCase()}]` : bind.toLowerCase();
  const wildcard = own === "0.0.0.0" || own === "[::]";
  return [...new Set([...LOOPBACK_HOSTS, ...(wildcard ? [] : [own])])];
}

/** A comma-separated host or origin list from a flag, lower-cased, empty entries dropped. */
export function parseList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.startsWith("http") ? s.replace(/\/$/, "") : s.toLowerCase()));
}
