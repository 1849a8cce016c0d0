/**
 * The tool call span, in process, with the SDK's InMemorySpanExporter: name, kind and attributes
 * per the GenAI semantic conventions' execute_tool span, the mnote attributes, failures, a
 * continued traceparent (HTTP header, MCP _meta), the kernel's client and server spans, and never
 * page content.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { inMemoryTracing, traceparent } from "./support";
import { ok, testRuntime, demoSeed } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { ATTR } from "../../common/telemetry/attributes";
import { continueTrace } from "../../common/telemetry/propagation";
import { tracesExportersFromEnv } from "../../runtime/telemetry/sdk";
import { createToolServer } from "../../runtime/transports/tool-server";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import { createKernelServer } from "../../kernel/http-server";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import { cliTransport, httpTransport } from "../../generated/kernel/transport";
import { createLogger } from "../../common/http/logger";

const quietLog = createLogger({ service: "test", level: "silent" });
import { createRuntime } from "../../runtime/runtime";

const tracing = inMemoryTracing();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

function only(name: string) {
  const spans = tracing.byName(name);
  expect(spans.map((s) => s.name)).toEqual([name]);
  return spans[0]!;
}

describe("execute_tool span", () => {
  it("one INTERNAL span per call, named after the tool, with the GenAI and mnote attributes", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const request = makeRequest("mnote.page.get", { includeBlocks: true }, {}, as);
    ok(await t.runtime.dispatcher.dispatch(request));
    const span = only("execute_tool mnote.page.get");
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "mnote.page.get",
      "gen_ai.tool.call.id": request.toolCallId,
      "mnote.tool.provider_name": "mnote_page_get",
      "mnote.trace_id": request.traceId,
      "mnote.workspace.id": "ws_1",
      "mnote.document.id": "doc_1",
      "mnote.effect": "read",
      "mnote.replayed": false,
    });
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    await t.close();
  });

  it("a write records its command id; its retry is marked replayed with the same command id", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const request = makeRequest("mnote.page.save", undefined, {}, as);
    const first = ok(await t.runtime.dispatcher.dispatch(request));
    const again = ok(await t.runtime.dispatcher.dispatch(request));
    expect(again.audit.replayed).toBe(true);
    const [a, b] = tracing.byName("execute_tool mnote.page.save");
    expect(a!.attributes).toMatchObject({
      "mnote.effect": "write",
      "mnote.command.id": first.audit.commandId,
      "mnote.replayed": false,
    });
    expect(b!.attributes).toMatchObject({
      "mnote.effect": "write",
      "mnote.command.id": first.audit.commandId,
      "mnote.replayed": true,
    });
    await t.close();
  });

  it("a failure sets error.type and the error code, and the span status to ERROR", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    ok(await t.call("mnote.page.save", as));
    const stale = await t.call("mnote.page.save", as); // baseRevision 0 again: a conflict
    expect(stale.ok).toBe(false);
    const span = tracing.byName("execute_tool mnote.page.save")[1]!;
    expect(span.attributes).toMatchObject({
      "error.type": "mnote_tool_conflict",
      "mnote.error.code": "mnote_tool_conflict",
      "mnote.effect": "none",
    });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "mnote_tool_conflict" });
    await t.close();
  });

  it("a request that names no known tool is still a span (execute_tool), with its error", async () => {
    const t = await testRuntime();
    await t.runtime.dispatcher.dispatch("{ not json");
    await t.runtime.dispatcher.dispatch(JSON.stringify(makeRequest("mnote.page.nope", {})));
    const spans = tracing.byName("execute_tool");
    expect(spans.map((s) => s.attributes["error.type"])).toEqual([
      "mnote_tool_invalid_input",
      "mnote_tool_unknown_tool",
    ]);
    expect(spans[1]!.attributes["gen_ai.tool.name"]).toBe("mnote.page.nope");
    await t.close();
  });

  it("never carries page content: not the arguments written, not the page read", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const secret = "SECRET-PARAGRAPH-7f3a";
    ok(
      await t.call("mnote.page.save", as, {
        content: [{ type: "paragraph", text: secret }],
        mode: "append",
        baseRevision: 0,
      }),
    );
    ok(await t.call("mnote.page.update_title", as, { title: "TITLE-SECRET-91", baseRevision: 1 }));
    const read = ok(await t.call("mnote.page.get", as, { includeBlocks: true }));
    expect(JSON.stringify(read.result)).toContain(secret); // the page does hold it...
    const seen = JSON.stringify(
      tracing.spans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    );
    for (const text of [secret, "TITLE-SECRET-91", "第一段"]) expect(seen).not.toContain(text); // ...no span does
    await t.close();
  });

  it("continues a W3C traceparent: same trace id, the caller's span as parent", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    await continueTrace({ traceparent: traceparent(TRACE, PARENT) }, () => t.call("mnote.page.get", as));
    const span = only("execute_tool mnote.page.get");
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(PARENT);
    // the envelope's traceId is the contract's correlation id, recorded beside the W3C one
    expect(span.attributes["mnote.trace_id"]).toBe("trace_1");
    await t.close();
  });

  it("a malformed traceparent starts a new trace instead of failing the call", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    ok(await continueTrace({ traceparent: "00-zz-nope-01" }, () => t.call("mnote.page.get", as)));
    const span = only("execute_tool mnote.page.get");
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    await t.close();
  });
});

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe("traceparent on the transports", () => {
  it("serve: the traceparent header of POST /v1/tools/call is continued", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const server = createToolServer({ runtime: t.runtime, token: "tok", maxBytes: 1 << 20, log: quietLog });
    const url = await listen(server);
    const res = await fetch(`${url}/v1/tools/call`, {
      method: "POST",
      headers: {
        authorization: "Bearer tok",
        "content-type": "application/json",
        traceparent: traceparent(TRACE, PARENT),
      },
      body: JSON.stringify(makeRequest("mnote.page.get", {}, {}, as)),
    });
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
    const span = only("execute_tool mnote.page.get");
    expect([span.spanContext().traceId, span.parentSpanContext?.spanId]).toEqual([TRACE, PARENT]);
    server.close();
    await t.close();
  });

  it("mcp: _meta.traceparent of tools/call is continued", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const server = createMcpServer({
      dispatch: (r) => t.runtime.dispatcher.dispatch(r),
      grants: t.runtime.grants,
      sessionId: as.sessionId,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "0" });
    await client.connect(clientSide);
    const result = await client.callTool({
      name: "mnote_page_get",
      arguments: {},
      _meta: { traceparent: traceparent(TRACE, PARENT) },
    });
    expect(result.isError).toBe(false);
    const span = only("execute_tool mnote.page.get");
    expect([span.spanContext().traceId, span.parentSpanContext?.spanId]).toEqual([TRACE, PARENT]);
    await client.close();
    await t.close();
  });

  it("kernel over HTTP: a CLIENT span per command, and the kernel's SERVER span is its child in the same trace", async () => {
    const kernel = new ReferenceKernel({ path: ":memory:" });
    seedKernel(kernel, demoSeed());
    const server = createKernelServer({ kernel, token: "ktok", log: quietLog });
    const url = await listen(server);
    const runtime = createRuntime({ kernel: { kind: "http", url, token: "ktok" }, statePath: ":memory:" });
    const t = { runtime };
    await runtime.grants.put({
      sessionId: "s1",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read"],
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await continueTrace({ traceparent: traceparent(TRACE, PARENT) }, () =>
      t.runtime.dispatcher.dispatch(
        makeRequest("mnote.page.get", {}, {}, { sessionId: "s1", capabilityScope: ["page.read"] }),
      ),
    );
    const tool = only("execute_tool mnote.page.get");
    const clients = tracing.spans().filter((s) => s.kind === SpanKind.CLIENT);
    const servers = tracing.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(clients.map((s) => s.name).sort()).toEqual(["kernel access.check", "kernel page.snapshot.read"]);
    expect(servers.map((s) => s.name).sort()).toEqual(["kernel access.check", "kernel page.snapshot.read"]);
    for (const s of [...clients, ...servers]) expect(s.spanContext().traceId).toBe(TRACE);
    for (const c of clients) expect(c.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    for (const s of servers) {
      const client = clients.find((c) => c.name === s.name)!;
      expect(s.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
      expect(s.attributes).toMatchObject({
        "mnote.kernel.command": s.name.slice("kernel ".length),
        "mnote.trace_id": "trace_1",
        "mnote.workspace.id": "ws_1",
      });
    }
    server.close();
    await runtime.close();
    kernel.close();
  });
});

describe("the generated kernel transports carry what traceContext gives them", () => {
  const fields = { traceparent: traceparent(TRACE, PARENT), tracestate: "mnote=1" };

  it("http: as the traceparent and tracestate headers", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const server = createServer((req, res) => {
      seen.push({ traceparent: req.headers.traceparent, tracestate: req.headers.tracestate });
      res.end(JSON.stringify({ ok: true, result: {} }));
    });
    const url = await listen(server);
    await httpTransport({ url, traceContext: () => fields })("access.check", {});
    await httpTransport({ url, traceContext: () => ({}) })("access.check", {});
    expect(seen).toEqual([fields, { traceparent: undefined, tracestate: undefined }]);
    server.close();
  });

  it("cli: as the TRACEPARENT and TRACESTATE environment variables of the adapter", async () => {
    const echo =
      "process.stdout.write(JSON.stringify({ ok: true, result: { tp: process.env.TRACEPARENT ?? null, ts: process.env.TRACESTATE ?? null } }))";
    const env = { PATH: process.env.PATH, TRACESTATE: "stale=1" };
    const reply = (await cliTransport({
      command: process.execPath,
      args: ["-e", echo],
      env,
      traceContext: () => fields,
    })("x", {})) as { result: unknown };
    expect(reply.result).toEqual({ tp: fields.traceparent, ts: "mnote=1" });
    const none = (await cliTransport({ command: process.execPath, args: ["-e", echo], env, traceContext: () => ({}) })(
      "x",
      {},
    )) as { result: unknown };
    expect(none.result).toEqual({ tp: null, ts: "stale=1" });
  });
});

describe("names and configuration", () => {
  it("the GenAI attribute names agree with @opentelemetry/semantic-conventions", () => {
    // the incubating entry point is reachable through package exports only (not this tsconfig's resolution)
    const incubating = jest.requireActual<Record<string, string>>("@opentelemetry/semantic-conventions/incubating");
    expect([
      ATTR.genAiOperationName,
      ATTR.genAiToolName,
      ATTR.genAiToolCallId,
      ATTR.genAiToolType,
      ATTR.genAiToolDescription,
      ATTR.errorType,
    ]).toEqual([
      incubating.ATTR_GEN_AI_OPERATION_NAME,
      incubating.ATTR_GEN_AI_TOOL_NAME,
      incubating.ATTR_GEN_AI_TOOL_CALL_ID,
      incubating.ATTR_GEN_AI_TOOL_TYPE,
      incubating.ATTR_GEN_AI_TOOL_DESCRIPTION,
      incubating.ATTR_ERROR_TYPE,
    ]);
    expect(incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL).toBe("execute_tool");
  });

  it("the SDK starts only when OTEL_* asks for it", () => {
    const on = (env: NodeJS.ProcessEnv) => tracesExportersFromEnv(env).exporters;
    expect(on({})).toEqual([]);
    expect(on({ OTEL_TRACES_EXPORTER: "console" })).toEqual(["console"]);
    expect(on({ OTEL_TRACES_EXPORTER: "otlp, console" })).toEqual(["otlp", "console"]);
    expect(on({ OTEL_TRACES_EXPORTER: "none" })).toEqual([]);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toEqual(["otlp"]);
    expect(on({ OTEL_TRACES_EXPORTER: "otlp", OTEL_SDK_DISABLED: "true" })).toEqual([]);
    expect(tracesExportersFromEnv({ OTEL_TRACES_EXPORTER: "zipkin" })).toEqual({
      exporters: [],
      warnings: [expect.stringContaining('"zipkin" is not supported')],
    });
  });
});
