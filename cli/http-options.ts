/** The options the three HTTP servers share (serve, mcp --http, kernel serve), and turning them into the HTTP layer's. */
import type { Command } from "commander";

export interface HttpCliOptions {
  host: string;
  port: string;
  allowedHosts?: string;
  allowedOrigins?: string;
  requestTimeout: string;
  logLevel?: string;
}

/** Adds --allowed-hosts, --allowed-origins, --request-timeout and --log-level to a server verb. */
export function addHttpOptions(command: Command): Command {
  return command
    .option(
      "--allowed-hosts <list>",
      "host names the Host header may carry, comma-separated, or * (default: localhost, 127.0.0.1, [::1] and the --host address)",
    )
    .option(
      "--allowed-origins <list>",
      "origins a browser request may come from, comma-separated, or * (default: http(s) origins on an allowed host)",
    )
    .option("--request-timeout <ms>", "longest time to receive a whole request, headers and body", "30000")
    .option(
      "--log-level <level>",
      "trace, debug, info, warn, error or silent (env MNOTE_TOOLS_LOG_LEVEL)",
      process.env.MNOTE_TOOLS_LOG_LEVEL ?? "info",
    );
}

/** The HTTP layer's allow-lists and timeouts from the flags. */
export async function httpServiceOptions(opts: HttpCliOptions) {
  const { defaultAllowedHosts, parseList, parseMs } = await import("../common/http/server");
  return {
    allowedHosts: parseList(opts.allowedHosts) ?? defaultAllowedHosts(opts.host),
    allowedOrigins: parseList(opts.allowedOrigins),
    timeouts: { requestTimeoutMs: parseMs(opts.requestTimeout, "--request-timeout") },
  };
}

/** A TCP port from a flag (0: any free port). */
export function portOf(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port must be 0..65535, not "${text}"`);
  return n;
}
