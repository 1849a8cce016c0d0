/**
 * `mnote-tools mcp`: parses the options and serves the tools over MCP, on stdio (for an MCP client
 * that starts the server) or Streamable HTTP (--http: runtime/transports/mcp-http.ts).
 */
import { randomBytes } from "node:crypto";
import { runtimeFrom, type RuntimeCliOptions } from "../runtime-options";
import { httpServiceOptions, type HttpCliOptions } from "../http-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";
import { CliExit } from "../exit";

export interface McpOptions extends RuntimeCliOptions, HttpCliOptions {
  session: string;
  http?: boolean;
  token?: string;
  maxBytes: number;
  provider?: string;
}

export async function runMcp(opts: McpOptions): Promise<void> {
  const { isProviderName, PROVIDERS, DEFAULT_PROVIDER } = await import("../../generated/providers");
  const provider = opts.provider ?? DEFAULT_PROVIDER;
  if (!isProviderName(provider)) {
    process.stderr.write(`unknown provider ${provider}: one of ${PROVIDERS.join(", ")}\n`);
    throw new CliExit(2);
  }
  const { createLogger, logEvent, showGeneratedToken, storeErrorLogger } = await import("../../common/http/logger");
  // stdout is the MCP channel on stdio: the logger writes to stderr
  const log = createLogger({ service: "mcp", level: opts.logLevel });
  // only when OTEL_* asks; on stdio, stdout is the MCP channel, so console spans go to stderr
  const telemetry = await startTelemetry({
    serviceName: "mnote-tools",
    consoleStream: opts.http ? process.stdout : process.stderr,
  });
  const runtime = await runtimeFrom(opts, {
    onCall: (r) => logEvent(log, "info", "tool_call", r),
    onStoreError: storeErrorLogger(log),
  });
  const dispatch = (r: unknown) => runtime.dispatcher.dispatch(r);

  if (!opts.http) {
    const { serveMcpStdio } = await import("../../runtime/transports/mcp-server");
    await serveMcpStdio({ dispatch, grants: runtime.grants, sessionId: opts.session, now: runtime.now, provider });
    await runtime.close();
    await telemetry?.shutdown();
    return;
  }

  const { createMcpHttpServer } = await import("../../runtime/transports/mcp-http");
  const { serveUntilSignal } = await import("../../common/http/server");
  let token = opts.token;
  if (!token) {
    token = randomBytes(18).toString("base64url");
    showGeneratedToken("mcp", "--token or MNOTE_TOOLS_TOKEN", token);
  }
  const server = createMcpHttpServer({
    dispatch,
    grants: runtime.grants,
    sessionId: opts.session,
    now: runtime.now,
    provider,
    token,
    maxBytes: opts.maxBytes,
    log,
    ...(await httpServiceOptions(opts)),
  });
  await serveUntilSignal(server, {
    host: opts.host,
    port: opts.port,
    path: "/mcp",
    log,
    onStop: async () => {
      await runtime.close();
      await telemetry?.shutdown();
    },
  });
}
