/** The options the three HTTP servers share (serve, mcp --http, kernel serve), and turning them into the HTTP layer's. */
import type { Command } from "commander";
import { LOG_LEVELS, oneOf, option, parseMs } from "./options";

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
    .option(
      "--allowed-hosts <list>",
      "host names the Host header may carry, comma-separated, or * (default: localhost, 127.0.0.1, [::1] and the --host address)",
    )
    .option(
      "--allowed-origins <list>",
      "origins a browser request may come from, comma-separated, or * (default: http(s) origins on an allowed host)",
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

/** The HTTP layer's allow-lists and timeouts from the flags. */
export async function httpServiceOptions(opts: HttpCliOptions) {
  const { defaultAllowedHosts, parseList } = await import("../common/http/server");
  return {
    allowedHosts: parseList(opts.allowedHosts) ?? defaultAllowedHosts(opts.host),
    allowedOrigins: parseList(opts.allowedOrigins),
    timeouts: { requestTimeoutMs: opts.requestTimeout },
  };
}
