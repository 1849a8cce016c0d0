/**
 * `mnote-tools mcp`: the tools over MCP, on stdio (for an MCP client that starts the server) or
 * Streamable HTTP (--http: loopback, bearer token, stateless: a fresh server per request).
 */
import { createServer } from "node:http";
import { randomBytes } from "node:crypto";
import { runtimeFrom, type RuntimeCliOptions } from "../runtime-options";
import { CliExit } from "../exit";

export interface McpOptions extends RuntimeCliOptions {
  session: string;
  http?: boolean;
  host: string;
  port: string;
  token?: string;
  provider?: string;
}

export async function runMcp(opts: McpOptions): Promise<void> {
  const { createMcpServer } = await import("../../runtime/transports/mcp-server");
  const { isProviderName, PROVIDERS, DEFAULT_PROVIDER } = await import("../../generated/providers");
  const provider = opts.provider ?? DEFAULT_PROVIDER;
  if (!isProviderName(provider)) {
    process.stderr.write(`unknown provider ${provider}: one of ${PROVIDERS.join(", ")}\n`);
    throw new CliExit(2);
  }
  // stdout is the MCP channel on stdio: every log line goes to stderr
  const log = (line: Record<string, unknown>) => process.stderr.write(JSON.stringify({ ts: new Date().toISOString(), mcp: process.pid, ...line }) + "\n");
  const runtime = await runtimeFrom(opts, { onCall: (r) => log({ event: "tool_call", ...r }) });
  const serverFor = (sessionId: string) => createMcpServer({ dispatch: (r) => runtime.dispatcher.dispatch(r), grants: runtime.grants, sessionId, provider });

  if (!opts.http) {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const server = serverFor(opts.session);
    const closed = new Promise<void>((resolve) => (server.onclose = () => resolve()));
    await server.connect(new StdioServerTransport());
    process.stdin.once("end", () => void server.close());
    await closed;
    await runtime.close();
    return;
  }

  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { hasBearer, sendJson, closeGracefully } = await import("../../runtime/transports/http-util");
  let token = opts.token;
  if (!token) {
    token = randomBytes(18).toString("base64url");
    log({ event: "token_generated", token });
  }
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/mcp") return sendJson(res, 404, { error: "the MCP endpoint is /mcp" });
    if (!hasBearer(req, token)) return sendJson(res, 401, { jsonrpc: "2.0", error: { code: -32001, message: "a bearer token is required" }, id: null });
    if (req.method !== "POST") return sendJson(res, 405, { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null });
    const header = req.headers["x-mnote-session"];
    const server = serverFor(typeof header === "string" && header ? header : opts.session);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      log({ event: "mcp_error", message: (e as Error).message });
      if (!res.headersSent) sendJson(res, 500, { jsonrpc: "2.0", error: { code: -32603, message: "internal error" }, id: null });
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(Number(opts.port), opts.host, () => resolve());
  });
  const address = http.address() as { port: number };
  process.stdout.write(JSON.stringify({ listening: `http://${opts.host}:${address.port}/mcp`, pid: process.pid }) + "\n");
  await new Promise<void>((resolve) => {
    const stop = async () => {
      await closeGracefully(http, 10_000);
      await runtime.close();
      resolve();
    };
    process.once("SIGTERM", () => void stop());
    process.once("SIGINT", () => void stop());
  });
}
