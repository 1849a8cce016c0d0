/**
 * What the 2026-07-28 revision asks of the server, checked on the wire (raw requests to our HTTP
 * server, in process): server/discover; ttlMs and cacheScope on tools/list; the standard headers
 * (MCP-Protocol-Version, Mcp-Method, Mcp-Name) checked against the body (-32020); an unsupported
 * version (-32022); traceparent in _meta continued into the call's span; and the guards this
 * server kept from before (bearer token, Host and Origin, the request limits), on both eras.
 */
import type { AddressInfo } from "node:net";
import type { Server as HttpServer } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { toolList } from "../../generated/registry";
import { mcpCacheHint } from "../../generated/mcp/tools";
import { inMemoryTracing, traceparent } from "../telemetry/support";

const MODERN = "2026-07-28";
const TOKEN = "mcp-protocol-token";
const tracing = inMemoryTracing();

let t: TestRuntime;
let server: HttpServer;
let url: string;

beforeAll(async () => {
  t = await testRuntime();
  const as = await t.session({ actorId: "user_1" });
  server = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: as.sessionId,
    token: TOKEN,
    maxBytes: 64 * 1024,
    log: createLogger({ service: "test", level: "silent" }),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const envelope = (version = MODERN) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
});

/** A raw modern request: the envelope in _meta and the standard headers, each of which a test may change. */
async function post(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
  meta: Record<string, unknown> = envelope(),
) {
  const all: Record<string, string | undefined> = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    ...headers,
  };
  const res = await fetch(url, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: meta } }),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

describe("MCP 2026-07-28 on the wire", () => {
  it("server/discover names 2026-07-28 and the tools capability, with the cache hint", async () => {
    const r = await post("server/discover", {});
    expect(r.status).toBe(200);
    expect(r.json.result.supportedVersions).toContain(MODERN);
    expect(r.json.result.capabilities.tools).toBeDefined();
    expect([r.json.result.ttlMs, r.json.result.cacheScope]).toEqual([mcpCacheHint.ttlMs, mcpCacheHint.cacheScope]);
    expect(r.json.result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("mnote-page-ai-tools");
  });

  it("tools/list: sorted, with ttlMs and cacheScope, the same bytes every time", async () => {
    const a = await post("tools/list", {});
    const b = await post("tools/list", {});
    expect(a.json.result.tools.map((x: { name: string }) => x.name)).toEqual(
      toolList.map((x) => x.providerName).sort(),
    );
    expect([a.json.result.ttlMs, a.json.result.cacheScope]).toEqual([300_000, "public"]);
    expect(JSON.stringify(a.json.result.tools)).toBe(JSON.stringify(b.json.result.tools));
    // readOnlyHint on the one read (clients that gate every tool without it)
    const reads = a.json.result.tools.filter((x: any) => x.annotations.readOnlyHint).map((x: any) => x.name);
    expect(reads).toEqual(toolList.filter((x) => x.effect === "read").map((x) => x.providerName));
  });

  it.each([
    ["an Mcp-Name that is not the body's tool", { "mcp-name": "mnote_page_save" }],
    ["no Mcp-Name", { "mcp-name": undefined }],
    ["an Mcp-Method that is not the body's method", { "mcp-method": "tools/list" }],
    ["no Mcp-Method", { "mcp-method": undefined }],
    ["no MCP-Protocol-Version", { "mcp-protocol-version": undefined }],
  ])("%s: HTTP 400, -32020, nothing dispatched", async (_what, headers) => {
    const before = t.kernelStateHash();
    const r = await post(
      "tools/call",
      { name: "mnote_artifact_create_ai_note", arguments: { content: "not written" } },
      headers,
    );
    expect([r.status, r.json.error.code]).toEqual([400, -32020]);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("an envelope naming a revision this server does not speak: -32022 naming the ones it does", async () => {
    const r = await post("tools/list", {}, { "mcp-protocol-version": "2099-01-01" }, envelope("2099-01-01"));
    expect(r.json.error.code).toBe(-32022);
    expect(JSON.stringify(r.json.error.data)).toContain(MODERN);
  });

  it("traceparent in _meta is continued into the call's span", async () => {
    const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    const PARENT = "00f067aa0ba902b7";
    const r = await post(
      "tools/call",
      { name: "mnote_page_get", arguments: {} },
      {},
      { ...envelope(), traceparent: traceparent(TRACE, PARENT) },
    );
    expect(r.json.result.structuredContent.ok).toBe(true);
    const spans = tracing.byName("execute_tool mnote.page.get");
    expect(spans.map((s) => [s.spanContext().traceId, s.parentSpanContext?.spanId])).toEqual([[TRACE, PARENT]]);
  });

  it("the guards hold for both eras: bearer token, Host, Origin, body size", async () => {
    const legacyInit = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "v1", version: "1" } },
    };
    const send = (headers: Record<string, string>, body: unknown = legacyInit) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await send(bearer)).status).toBe(200);
    expect((await send({})).status).toBe(401);
    expect((await send({ authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post("tools/list", {}, { authorization: undefined })).status).toBe(401);
    expect((await send({ ...bearer, origin: "https://evil.example" })).status).toBe(403);
    expect((await post("tools/list", {}, { origin: "https://evil.example" })).status).toBe(403);
    const tooBig = await send(bearer, JSON.stringify({ ...legacyInit, pad: "x".repeat(70 * 1024) }));
    expect(tooBig.status).toBe(413);
    // the token is never echoed back
    expect(await (await send({ authorization: "Bearer wrong" })).text()).not.toContain("wrong");
  });

  it("a 2025-era batch: a top-level __proto__ in any element is refused as in a single call, nothing written", async () => {
    // the SDK's parse drops a top-level "__proto__" of the arguments: the model's dry run would be a real write
    const call = (id: number, content: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"mnote_artifact_create_ai_note",` +
      `"arguments":{"__proto__":{"dryRun":true},"content":"${content}"}}}`;
    const before = t.kernelStateHash();
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: `[${call(1, "batched dry run 1")},${call(2, "batched dry run 2")}]`,
    });
    const answers = (await res.json()) as any[];
    expect(answers).toHaveLength(2);
    for (const answer of answers)
      expect(answer.result.structuredContent.error).toMatchObject({
        code: "mnote_tool_invalid_input",
        pointer: "/args/__proto__",
      });
    expect(t.count("artifacts", "content LIKE 'batched dry run%'")).toBe(0);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("a batch where a refused call shares its id with another call: the whole batch refused, nothing written", async () => {
    // the refusal is noted by request id: with two calls under one id, the clean one could take it
    // and the one whose "__proto__" the SDK drops would write
    const body =
      `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mnote_artifact_create_ai_note",` +
      `"arguments":{"content":"same id clean"}}},` +
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mnote_artifact_create_ai_note",` +
      `"arguments":{"__proto__":{"dryRun":true},"content":"same id dry run"}}}]`;
    const before = t.kernelStateHash();
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32600);
    expect(t.count("artifacts", "content LIKE 'same id%'")).toBe(0);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("the v2 client connects with no initialize and no session id, and calls a tool", async () => {
    const client = new Client({ name: "c", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } } });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    const r = await client.callTool({ name: "mnote_page_get", arguments: {} });
    expect((r.structuredContent as any).ok).toBe(true);
    await client.close();
  });
});
