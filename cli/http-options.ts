/** The options the three HTTP servers share (serve, mcp --http, kernel serve), and turning them into the HTTP layer's. */
import type { Command } from "commander";
import { usageError } from "./exit";
import { InvalidArgumentError, LOG_LEVELS, oneOf, option, parseMs } from "./options";

export interface HttpCliOptions {
  host: string;
  port: number;
  allowedHosts?: string;
  allowedOrigins?: string;
  requestTimeout: number;
  logLevel: string;
}

/** Adds --allowed-hosts, --allowed-origins, --request-timeout and --log-level to a server verb. */
export function addHttpOptions(command: Command): Command {
  return command
    .addOption(
      option(
        "--allowed-hosts <list>",
        "host names (no port) the Host header may carry, comma-separated, or * (default: localhost, 127.0.0.1, [::1] and the --host address)",
        parseAllowedHosts,
      ),
    )
    .addOption(
      option(
        "--allowed-origins <list>",
        "origins (scheme://host[:port]) a browser request may come from, comma-separated, or * (default: http(s) origins on an allowed host)",
        parseAllowedOrigins,
      ),
    )
    .addOption(
      option("--request-timeout <ms>", "longest time to receive a whole request, headers and body", parseMs, {
        default: 30_000,
      }),
    )
    .addOption(
      option("--log-level <level>", `${LOG_LEVELS.join(", ")}`, oneOf(LOG_LEVELS), {
        default: "info",
        env: "MNOTE_TOOLS_LOG_LEVEL",
      }),
    );
}

const entries = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/**
 * --allowed-hosts entries are host names: the Host check ignores the port, so `localhost:8787` is
 * refused with the entry to write instead (accepting it would make the port look checked), as is a
 * scheme or a path. Checked where commander reads the flag: exit 2 and one line, before anything starts.
 */
export function parseAllowedHosts(text: string): string {
  for (const entry of entries(text)) {
    const port = /^(\[[^\]]*\]|[^:[\]/]+):(\d*)$/.exec(entry);
    if (port)
      throw new InvalidArgumentError(
        `"${entry}" has a port: write the host name alone ("${port[1]}"); the Host check ignores ports.`,
      );
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.includes("/"))
      throw new InvalidArgumentError(
        `"${entry}" is not a host name: write the host alone (e.g. "${entry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/[/:].*$/, "")}").`,
      );
  }
  return text;
}

/**
 * --allowed-origins entries are whole origins, scheme included, as a browser sends them in Origin
 * (`https://app.example`): `app.example` alone could never match, and every browser request would
 * be refused, so it is refused here instead.
 */
export function parseAllowedOrigins(text: string): string {
  for (const entry of entries(text)) {
    if (entry === "*") continue;
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const exact = entry.replace(/\/$/, "");
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== exact.toLowerCase())
      throw new InvalidArgumentError(
        `"${entry}" is not an origin: write the scheme and host as a browser sends them (e.g. "https://${entry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/.*$/, "")}").`,
      );
  }
  return text;
}

/** The HTTP layer's allow-lists and timeouts from the flags; a malformed entry is a usage error (exit 2). */
export async function httpServiceOptions(opts: HttpCliOptions) {
  const { defaultAllowedHosts, normalizeHostName, parseList } = await import("../common/http/host");
  const allowedHosts = parseList(opts.allowedHosts);
  const allowedOrigins = parseList(opts.allowedOrigins);
  // what parseAllowedHosts lets through and the server still cannot compare (a malformed IPv6
  // literal) is a usage error too, never a crash
  for (const entry of allowedHosts ?? [])
    try {
      normalizeHostName(entry);
    } catch (e) {
      throw usageError(`--allowed-hosts: ${(e as Error).message}`);
    }
  return {
    allowedHosts: allowedHosts ?? defaultAllowedHosts(opts.host),
    allowedOrigins,
    timeouts: { requestTimeoutMs: opts.requestTimeout },
  };
}
