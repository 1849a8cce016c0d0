/**
 * `mnote-tools mcp`: parses the options and serves the tools over MCP, on stdio (for an MCP client
 * that starts the server) or Streamable HTTP (--http: runtime/transports/mcp-http.ts).
 */
import { checkKernelAtStartup, runtimeFrom, toolCallLogger, type RuntimeCliOptions } from "../runtime-options";
import { httpServiceOptions, type HttpCliOptions } from "../http-options";
import { startTelemetry } from "../../runtime/telemetry/sdk";
import { CliExit, environmentError, usageError } from "../exit";
import { generateTokenFile } from "../token-file";
import type { ProviderName } from "../../generated/providers";
import type { Logger } from "../../common/http/logger";
import type { Runtime } from "../../runtime/runtime";
import type { McpRequestStates } from "../../runtime/transports/mcp-request-state";

export interface McpOptions extends RuntimeCliOptions, HttpCliOptions {
  session: string;
  http?: boolean;
  token?: string;
  maxBytes: number;
  provider?: string;
  oauthIssuer?: string;
  oauthJwks?: string;
  oauthResource?: string;
  oauthAlgorithms?: string[];
  approvalPageUrl?: string;
}

/** What both transports serve with: the runtime, its tracked dispatch, the log and the approval rounds' states. */
interface McpServing {
  provider: ProviderName;
  log: Logger;
  runtime: Runtime;
  dispatch: (r: unknown) => ReturnType<Runtime["dispatcher"]["dispatchTracked"]>;
  states: McpRequestStates;
  /** Closes the runtime, then the telemetry. */
  stop: () => Promise<void>;
}

export async function runMcp(opts: McpOptions): Promise<void> {
  const oauthGiven = [opts.oauthIssuer, opts.oauthJwks, opts.oauthResource, opts.oauthAlgorithms].some(
    (v) => v !== undefined,
  );
  if (oauthGiven && !opts.http) throw usageError("the --oauth-* options need --http (OAuth guards the HTTP endpoint)");
  if (oauthGiven && !opts.oauthIssuer)
    throw usageError("--oauth-jwks, --oauth-resource and --oauth-algorithms need --oauth-issuer");
  const provider = await providerOf(opts);
  const serving = await startServing(opts, provider);
  if (!opts.http) return serveStdio(opts, serving);
  return serveHttp(opts, serving);
}

/** The provider the tools are described for: --provider, or the default; an unknown name exits 2. */
async function providerOf(opts: McpOptions): Promise<ProviderName> {
  const { isProviderName, PROVIDERS, DEFAULT_PROVIDER } = await import("../../generated/providers");
  const provider = opts.provider ?? DEFAULT_PROVIDER;
  if (!isProviderName(provider)) {
    process.stderr.write(`unknown provider ${provider}: one of ${PROVIDERS.join(", ")}\n`);
    throw new CliExit(2);
  }
  return provider;
}

async function startServing(opts: McpOptions, provider: ProviderName): Promise<McpServing> {
  const { createLogger, logEvent, storeErrorLogger } = await import("../../common/http/logger");
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
    warn: (message) => logEvent(log, "warn", "start_warning", { message }),
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
  return { provider, log, runtime, dispatch, states, stop };
}

/** What the MCP server is given over either transport: the dispatcher, the session and its grants, the approval rounds' state. */
function serverOptions(opts: McpOptions, s: McpServing) {
  return {
    dispatch: s.dispatch,
    grants: s.runtime.grants,
    sessionId: opts.session,
    now: s.runtime.now,
    provider: s.provider,
    states: s.states,
  };
}

/**
 * The approval page a stdio server sends clients that cannot show a form to: served by another
 * process on the same store (`serve`, `mcp --http`), named by --approval-page-url; none without it.
 */
async function stdioPage(opts: McpOptions, s: McpServing) {
  if (!opts.approvalPageUrl) return undefined;
  const { mcpApprovalPage } = await import("../../runtime/transports/mcp-approval-page");
  const base = opts.approvalPageUrl;
  const { approvalRecords: records, approvalSecret: secret, now } = s.runtime;
  return mcpApprovalPage({ records, secret, now, base: () => base });
}

async function serveStdio(opts: McpOptions, s: McpServing): Promise<void> {
  const { serveMcpStdio } = await import("../../runtime/transports/mcp-server");
  // SIGTERM/SIGINT (a client stopping its server): the claims held are given up and the process
  // exits 128 + the signal, its buffered log written on the way out, as `call` does
  const { releaseOnSignal } = await import("./call");
  const unhook = releaseOnSignal(s.runtime.dispatcher);
  try {
    // the kernel is asked once before the MCP channel opens (exit 3 if it cannot be used)
    await checkKernelAtStartup(s.runtime, opts, s.log);
    await serveMcpStdio({ ...serverOptions(opts, s), page: await stdioPage(opts, s) });
  } finally {
    unhook();
    await s.stop();
  }
}

async function serveHttp(opts: McpOptions, s: McpServing): Promise<void> {
  const { createMcpHttpServer } = await import("../../runtime/transports/mcp-http");
  const { serveUntilSignal } = await import("../../common/http/listen");
  const token = await httpToken(opts);
  const oauth = await oauthOf(opts, s.log).catch(async (e: unknown) => {
    await s.stop().catch(() => undefined);
    throw e;
  });
  const server = createMcpHttpServer({
    ...serverOptions(opts, s),
    oauth,
    token,
    // the approval page beside /mcp: the bearer token's holder signs its person in; with OAuth, a
    // person's own token reads and answers their approvals (and signs their browser in)
    approvalPage: {
      ...(await import("../../runtime/transports/approval-page")).pageStores(s.runtime),
      hostTokens: [token],
      oauth,
    },
    // behind a proxy the browser's origin is not the bound address: --approval-page-url, or the public /mcp URL's
    approvalPageUrl: opts.approvalPageUrl ?? (opts.oauthResource && new URL(opts.oauthResource).origin),
    maxBytes: opts.maxBytes,
    log: s.log,
    ...(await httpServiceOptions(opts)),
  });
  try {
    await serveUntilSignal(server, {
      host: opts.host,
      port: opts.port,
      path: "/mcp",
      log: s.log,
      beforeAnnounce: () => checkKernelAtStartup(s.runtime, opts, s.log),
      onStop: s.stop,
    });
  } catch (e) {
    await s.stop().catch(() => undefined);
    throw e;
  }
}

/** The bearer token: --token, or a new one written to a file only the user can read (and where it is said). */
async function httpToken(opts: McpOptions): Promise<string> {
  if (opts.token) return opts.token;
  const { showGeneratedTokenFile } = await import("../../common/http/logger");
  const generated = generateTokenFile("mcp", opts.state);
  showGeneratedTokenFile("mcp", "--token or MNOTE_TOOLS_TOKEN", generated.path);
  return generated.token;
}

/**
 * OAuth when --oauth-issuer is given; the resource defaults to this server's /mcp URL. The issuer's
 * metadata and key set are fetched now: unreachable or inconsistent is exit 3 (OAuthSetupError).
 */
async function oauthOf(opts: McpOptions, log: Logger) {
  if (!opts.oauthIssuer) return undefined;
  // jose is an ES module: required from CommonJS, which Node does from 22.12
  const { createMcpOAuth } = await import("../../runtime/transports/mcp-oauth").catch((e: { code?: string }) => {
    if (e?.code !== "ERR_REQUIRE_ESM") throw e;
    throw environmentError(`OAuth needs Node.js 22.12 or newer (this is ${process.version})`);
  });
  const resource = new URL(opts.oauthResource ?? `http://${opts.host}:${opts.port}/mcp`);
  return createMcpOAuth({
    issuer: opts.oauthIssuer,
    jwksUrl: opts.oauthJwks,
    resource,
    algorithms: opts.oauthAlgorithms,
    log,
  });
}
