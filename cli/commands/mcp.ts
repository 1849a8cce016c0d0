/**
 * `mnote-tools mcp`: parses the options and serves the tools over MCP, on stdio (for an MCP client
 * that starts the server) or Streamable HTTP (--http: runtime/transports/mcp-http.ts).
 */
import { checkKernelAtStartup, runtimeFrom, toolCallLogger, type RuntimeCliOptions } from "../runtime-options";
import { httpServiceOptions, type HttpCliOptions } from "../http-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";
import { CliExit } from "../exit";
import { generateTokenFile } from "../token-file";

export interface McpOptions extends RuntimeCliOptions, HttpCliOptions {
  session: string;
  http?: boolean;
  token?: string;
  maxBytes: number;
  provider?: string;
  oauthIssuer?: string;
  oauthJwks?: string;
  oauthResource?: string;
}

export async function runMcp(opts: McpOptions): Promise<void> {
  const { isProviderName, PROVIDERS, DEFAULT_PROVIDER } = await import("../../generated/providers");
  const provider = opts.provider ?? DEFAULT_PROVIDER;
  if (!isProviderName(provider)) {
    process.stderr.write(`unknown provider ${provider}: one of ${PROVIDERS.join(", ")}\n`);
    throw new CliExit(2);
  }
  const { createLogger, showGeneratedTokenFile, storeErrorLogger } = await import("../../common/http/logger");
  // stdout is the MCP channel on stdio: the logger writes to stderr
  const log = createLogger({ service: "mcp", level: opts.logLevel });
  // only when OTEL_* asks; on stdio, stdout is the MCP channel, so console spans go to stderr
  const telemetry = await startTelemetry({
    serviceName: "mnote-tools",
    consoleStream: opts.http ? process.stdout : process.stderr,
  });
  const runtime = await runtimeFrom(opts, {
    onCall: await toolCallLogger(log),
    onStoreError: storeErrorLogger(log),
  });
  // tracked: an answer counts as delivered only once the transport sent it (docs/RELIABILITY.md)
  const dispatch = (r: unknown) => runtime.dispatcher.dispatchTracked(r);
  // the approval rounds' requestState: keyed from the runtime's approval secret, so every process on
  // the same state file (or MNOTE_APPROVAL_SECRET) reads the others' (runtime/transports/mcp-request-state.ts)
  const { mcpRequestStates } = await import("../../runtime/transports/mcp-request-state");
  // a round's requestState lives as long as the approval it carries (--approval-ttl), with a minute's margin
  const states = mcpRequestStates(runtime.approvalSecret, Math.ceil(opts.approvalTtl / 1000) + 60);
  const stop = async () => {
    await runtime.close();
    await telemetry?.shutdown();
  };

  if (!opts.http) {
    const { serveMcpStdio } = await import("../../runtime/transports/mcp-server");
    try {
      // the kernel is asked once before the MCP channel opens (exit 3 if it cannot be used)
      await checkKernelAtStartup(runtime, opts, log);
      await serveMcpStdio({
        dispatch,
        grants: runtime.grants,
        sessionId: opts.session,
        now: runtime.now,
        provider,
        states,
      });
    } finally {
      await stop();
    }
    return;
  }

  const { createMcpHttpServer } = await import("../../runtime/transports/mcp-http");
  const { serveUntilSignal } = await import("../../common/http/server");
  let token = opts.token;
  if (!token) {
    const generated = generateTokenFile("mcp", opts.state);
    token = generated.token;
    showGeneratedTokenFile("mcp", "--token or MNOTE_TOOLS_TOKEN", generated.path);
  }
  let oauth;
  if (opts.oauthIssuer) {
    const { mcpOAuth } = await import("../../runtime/transports/mcp-oauth");
    const resource = new URL(opts.oauthResource ?? `http://${opts.host}:${opts.port}/mcp`);
    oauth = mcpOAuth({ issuer: opts.oauthIssuer, jwksUrl: opts.oauthJwks, resource });
  }
  const server = createMcpHttpServer({
    oauth,
    dispatch,
    grants: runtime.grants,
    sessionId: opts.session,
    now: runtime.now,
    provider,
    states,
    token,
    maxBytes: opts.maxBytes,
    log,
    ...(await httpServiceOptions(opts)),
  });
  try {
    await serveUntilSignal(server, {
      host: opts.host,
      port: opts.port,
      path: "/mcp",
      log,
      beforeAnnounce: () => checkKernelAtStartup(runtime, opts, log),
      onStop: stop,
    });
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
