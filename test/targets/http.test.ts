/**
 * The framework targets over `serve`'s HTTP (the `{ url, token }` connection, POST
 * /v1/tools/model-call): the AI SDK's loop against a tool server on 127.0.0.1, the scenario
 * included; the trace context passed on; refusals as envelopes the model reads; and an answer
 * lost on the way sent again with the same tool call id, so the same key: one write.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { trace } from "@opentelemetry/api";
import { createToolServer } from "../../runtime/transports/tool-server";
import { createLogger } from "../../common/http/logger";
import { mnoteTools } from "../../generated/ai-sdk";
import { MODEL_CALL_PATH } from "../../generated/frameworks/connection";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { inMemoryTracing, traceparent } from "../telemetry/support";
import { aiSdkDriver } from "./ai-sdk-driver";
import { frameworkScenario, type Connect } from "./scenario";

const tracing = inMemoryTracing();
const quietLog = createLogger({ service: "test", level: "silent" });
const TOKEN = "tool-token-for-tests";

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

async function serve(t: TestRuntime): Promise<{ url: string; close(): Promise<void> }> {
  const server = createToolServer({ runtime: t.runtime, token: TOKEN, maxBytes: 1 << 20, log: quietLog });
  const url = await listen(server);
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

const overHttp: Connect = async (t) => {
  const server = await serve(t);
  return { connection: { url: server.url, token: TOKEN }, close: server.close };
};

frameworkScenario("Vercel AI SDK over serve's HTTP", aiSdkDriver(), overHttp);

describe("the framework route of serve", () => {
  it("passes the trace context on: the tool call's span continues the caller's (given, and the active span's)", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const server = await serve(t);
    const TRACE = "0af7651916cd43dd8448eb211c80319c";
    const PARENT = "b7ad6b7169203331";
    const given = mnoteTools({
      connection: { url: server.url, token: TOKEN },
      session: { sessionId: as.sessionId },
      traceContext: () => ({ traceparent: traceparent(TRACE, PARENT) }),
    });
    await given.mnote_page_get.execute!({}, { toolCallId: "call_traced_1", messages: [], context: {} });
    const [span] = tracing.byName("execute_tool mnote.page.get");
    expect(span!.spanContext().traceId).toBe(TRACE);
    expect(span!.parentSpanContext?.spanId).toBe(PARENT);

    tracing.exporter.reset();
    const active = mnoteTools({ connection: { url: server.url, token: TOKEN }, session: { sessionId: as.sessionId } });
    const step = await trace.getTracer("test").startActiveSpan("agent step", async (span) => {
      await active.mnote_page_get.execute!({}, { toolCallId: "call_traced_2", messages: [], context: {} });
      span.end();
      return span;
    });
    const [tool] = tracing.byName("execute_tool mnote.page.get");
    expect(tool!.spanContext().traceId).toBe(step.spanContext().traceId);
    expect(tool!.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    await server.close();
    await t.close();
  });

  it("refusals are envelopes the model reads: a wrong token, an unknown session; nothing is written", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const server = await serve(t);
    const before = t.kernelStateHash();
    const note = { content: "never written", title: null };
    const wrongToken = mnoteTools({
      connection: { url: server.url, token: "wrong" },
      session: { sessionId: as.sessionId },
    });
    expect(
      await wrongToken.mnote_artifact_create_ai_note.execute!(note, {
        toolCallId: "call_a",
        messages: [],
        context: {},
      }),
    ).toMatchObject({ ok: false, error: { code: "mnote_tool_not_authenticated" } });
    const noSession = mnoteTools({
      connection: { url: server.url, token: TOKEN },
      session: { sessionId: "sess_nobody" },
    });
    expect(
      await noSession.mnote_artifact_create_ai_note.execute!(note, { toolCallId: "call_b", messages: [], context: {} }),
    ).toMatchObject({
      ok: false,
      toolName: "mnote_artifact_create_ai_note",
      error: { code: "mnote_tool_not_authenticated" },
    });
    expect(t.kernelStateHash()).toBe(before);
    await server.close();
    await t.close();
  });

  it("a malformed call is invalid_input naming the member; a body that is not JSON, or too deep, is refused before parsing", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const server = await serve(t);
    const before = t.kernelStateHash();
    const post = async (body: string) => {
      const res = await fetch(server.url + MODEL_CALL_PATH, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const good = {
      sessionId: as.sessionId,
      toolName: "mnote_artifact_create_ai_note",
      toolCallId: "c1",
      arguments: { content: "x" },
    };
    for (const [broken, pointer] of [
      [{ ...good, toolCallId: "" }, "/toolCallId"],
      [{ ...good, toolCallId: 7 }, "/toolCallId"],
      [{ ...good, sessionId: "not an id!" }, "/sessionId"],
      [{ ...good, toolName: ["x"] }, "/toolName"],
      [{ ...good, runId: "bad run" }, "/runId"],
      [[good], ""],
    ] as const) {
      expect(await post(JSON.stringify(broken))).toEqual({
        status: 200,
        body: expect.objectContaining({
          ok: false,
          error: expect.objectContaining({ code: "mnote_tool_invalid_input", pointer }),
        }),
      });
    }
    expect(await post(JSON.stringify({ ...good, toolName: "mnote_page_delete" }))).toMatchObject({
      body: { ok: false, error: { code: "mnote_tool_unknown_tool", pointer: "/toolName" } },
    });
    expect(await post("{not json")).toMatchObject({
      status: 200,
      body: { ok: false, error: { code: "mnote_tool_invalid_input" } },
    });
    expect(await post("[".repeat(200) + "]".repeat(200))).toMatchObject({
      status: 200,
      body: { ok: false, error: { code: "mnote_tool_payload_too_large" } },
    });
    // a __proto__ member of the arguments stays a member (JSON.parse) and is refused by the raise step
    expect(
      await post(
        `{"sessionId":"${as.sessionId}","toolName":"mnote_page_save","toolCallId":"c2","arguments":{"__proto__":{"dryRun":true},"content":[],"mode":"replace"}}`,
      ),
    ).toMatchObject({ body: { ok: false, error: { code: "mnote_tool_invalid_input", pointer: "/args/__proto__" } } });
    expect(t.kernelStateHash()).toBe(before);
    await server.close();
    await t.close();
  });

  it("an answer lost on the way is sent again with the same tool call id: the write replays, once in the kernel", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const server = await serve(t);
    // a proxy that forwards every request and loses the first answer (the write happened)
    let forwarded = 0;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        void fetch(server.url + req.url, {
          method: req.method,
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        }).then(async (upstream) => {
          const text = await upstream.text();
          if (++forwarded === 1) return res.socket?.destroy();
          res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
        });
      });
    });
    const proxyUrl = await listen(proxy);
    const tools = mnoteTools({ connection: { url: proxyUrl, token: TOKEN }, session: { sessionId: as.sessionId } });
    const answer = await tools.mnote_artifact_create_ai_note.execute!(
      { content: "Lost once", title: null },
      { toolCallId: "call_lost_1", messages: [], context: {} },
    );
    expect(forwarded).toBe(2);
    expect(answer).toMatchObject({ ok: true, audit: { replayed: true } });
    expect(t.count("artifacts", "type = 'ai_note' AND content = 'Lost once'")).toBe(1);
    proxy.closeAllConnections();
    proxy.close();
    await server.close();
    await t.close();
  });
});
