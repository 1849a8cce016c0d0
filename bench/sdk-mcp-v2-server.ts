/**
 * The peer of `mnote-tools mcp` in section "mcp": what a team would write with the v2 MCP SDK alone
 * (`@modelcontextprotocol/server`), serving 2026-07-28 as ours does: serveStdio on stdio,
 * createMcpHandler over Streamable HTTP (stateless) behind a bearer token and the SDK's Host/Origin
 * guards. The SDK's McpServer with zod input schemas (contract 2.0.0's rules: strict objects, the block
 * rules, the title rule, the lengths) serves the same six tools, under the same provider names,
 * over the same reference kernel (the same database file): each handler asks the kernel for access
 * and runs the tool's kernel command, a write with fresh idempotency facts.
 *
 * What it does not do, and `mnote-tools mcp` does (the product's promises): no session grant (the
 * identity comes from the command line), no idempotency keys a retry can replay with (a fresh
 * random scope per call), no request envelope, no check of what the kernel answers, no span, no
 * log line per call.
 *
 *   node dist/bench/sdk-mcp-v2-server.js stdio <db> <identity json>
 *   node dist/bench/sdk-mcp-v2-server.js http <db> <identity json> <token>   prints {"listening": url}
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { z } from "zod";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  McpServer,
  originValidationResponse,
  type CallToolResult,
} from "@modelcontextprotocol/server";
import { sdkToolShapes } from "./sdk-tool-shapes";
import type { ReferenceKernel } from "../kernel/reference-kernel";

interface Identity {
  workspaceId: string;
  documentId: string;
  actorId: string;
  sessionId: string;
}

type Tool = (typeof import("../generated/registry"))["toolList"][number];
type ServerFactory = () => McpServer;

async function main(): Promise<void> {
  const [mode, db, identityText, token] = process.argv.slice(2);
  if ((mode !== "stdio" && mode !== "http") || !db || !identityText)
    throw new Error("usage: sdk-mcp-v2-server stdio|http <db> <identity json> [token]");
  const identity = JSON.parse(identityText) as Identity;
  const { ReferenceKernel } = await import("../kernel/reference-kernel");
  const { toolList } = await import("../generated/registry");
  const kernel = new ReferenceKernel({ path: db });
  const serverFor = serverFactory(identity, kernel, toolList);
  if (mode === "stdio") return serveOnStdio(serverFor, kernel);
  serveOnHttp(serverFor, kernel, token);
}

/** A new McpServer with the six tools registered (createMcpHandler asks for one per request). */
function serverFactory(identity: Identity, kernel: ReferenceKernel, toolList: readonly Tool[]): ServerFactory {
  const zodShapes = sdkToolShapes();
  let calls = 0;
  return () => {
    const server = new McpServer({ name: "sdk-only", version: "0.0.0" });
    for (const tool of toolList) {
      const inputSchema = zodShapes[tool.name];
      if (!inputSchema) throw new Error(`the SDK-only server has no schema for ${tool.name}`);
      server.registerTool(
        tool.providerName,
        { title: tool.title, description: tool.description, inputSchema: z.strictObject(inputSchema) },
        (input: Record<string, unknown>) => callTool(kernel, identity, tool, input, ++calls),
      );
    }
    return server;
  };
}

/** One call: the kernel's access check, then the tool's kernel command (a write with fresh idempotency facts). */
async function callTool(
  kernel: ReferenceKernel,
  identity: Identity,
  tool: Tool,
  input: Record<string, unknown>,
  n: number,
): Promise<CallToolResult> {
  const { dryRun, ...args } = input;
  const context = {
    ...identity,
    runId: "run_sdk",
    toolCallId: `sdk_${process.pid}_${n}`,
    traceId: "trace_sdk",
  };
  try {
    const access = (await kernel.accessCheck({ context })).result;
    if (!access.granted.includes(tool.capability)) throw new Error("permission denied");
    const write =
      tool.effect === "write" && dryRun !== true
        ? {
            commandId: `sdk_${process.pid}_${n}`,
            idempotencyScope: randomBytes(32).toString("hex"),
            fingerprint: randomBytes(32).toString("hex"),
            ttlMs: 86_400_000,
          }
        : undefined;
    const payload = { context, args, ...(tool.effect === "write" ? { dryRun: dryRun === true } : {}), write };
    const reply = await kernel.call(tool.kernelCommand, payload as never);
    return {
      content: [{ type: "text", text: JSON.stringify(reply.result) }],
      structuredContent: { ok: true, result: reply.result as Record<string, unknown> },
    };
  } catch (e) {
    return { content: [{ type: "text", text: (e as Error).message }], isError: true };
  }
}

async function serveOnStdio(serverFor: ServerFactory, kernel: ReferenceKernel): Promise<void> {
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const handle = serveStdio(serverFor);
  process.stdin.once("end", () => {
    void handle.close();
    kernel.close();
  });
}

/** Streamable HTTP, stateless (createMcpHandler: a server per request), behind a bearer token and the SDK's guards. */
function serveOnHttp(serverFor: ServerFactory, kernel: ReferenceKernel, token: string | undefined): void {
  const handler = createMcpHandler(serverFor);
  const expected = `Bearer ${token ?? ""}`;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST" || req.url !== "/mcp" || req.headers.authorization !== expected) {
      res.writeHead(req.headers.authorization !== expected ? 401 : 405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void answer(handler, req, Buffer.concat(chunks), res));
  });
  http.listen(0, "127.0.0.1", () => {
    const { port } = http.address() as { port: number };
    process.stdout.write(JSON.stringify({ listening: `http://127.0.0.1:${port}/mcp` }) + "\n");
  });
  process.on("SIGTERM", () => {
    http.closeAllConnections();
    http.close(() => {
      kernel.close();
      process.exit(0);
    });
  });
}

/** A POST /mcp as a fetch Request: refused by the SDK's Host/Origin guards, or answered by the handler. */
async function answer(
  handler: ReturnType<typeof createMcpHandler>,
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
): Promise<void> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const request = new Request(`http://${req.headers.host}/mcp`, {
    method: "POST",
    headers,
    body,
  });
  const refused =
    hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, []);
  const response = refused ?? (await handler.fetch(request));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  process.exitCode = 1;
});
