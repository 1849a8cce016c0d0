/**
 * One trace across processes: the Hermes plugin (python3, as Hermes loads it) sends a traceparent;
 * `serve` continues it in its execute_tool span; the kernel, behind `kernel serve` (HTTP) or
 * `kernel exec` (the CLI adapter), continues the runtime's kernel CLIENT span in its own SERVER
 * span. The child processes export with OTLP/HTTP to a collector this test runs on 127.0.0.1; the
 * README's console-exporter check (`OTEL_TRACES_EXPORTER=console`) is here too.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cliPath, generatedDir, repoRoot, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { tempDir } from "../support/tmp";
import { OTLP_KIND, startCollector, type CollectedSpan, type Collector } from "./collector";
import { traceparent } from "./support";

const run = promisify(execFile);
const pluginDir = join(generatedDir, "hermes-plugin", "mnote");
const harness = join(repoRoot, "test", "hermes", "harness.py");
const TRACE = "5a2b1f0c9d8e7f6a5b4c3d2e1f0a9b8c";
const PARENT = "a1b2c3d4e5f60718";

/** One mnote_page_get through the plugin, as Hermes calls it (async: the collector must keep answering). */
async function pluginGet(env: NodeJS.ProcessEnv): Promise<any> {
  const file = join(tempDir("mnote-otel-"), "steps.json");
  writeFileSync(
    file,
    JSON.stringify([
      {
        name: "get",
        tool: "mnote_page_get",
        args: {},
        session_id: "s_owner",
        task_id: "task_1",
        tool_call_id: "call_traced",
      },
    ]),
  );
  const { stdout } = await run("python3", [harness, pluginDir, file], {
    env: { PATH: process.env.PATH, ...env },
    timeout: 120_000,
  });
  const response = JSON.parse(stdout).results[0].response;
  expect(response).toMatchObject({ ok: true, toolName: "mnote_page_get", toolCallId: "call_traced" });
  return response;
}

const toolSpan = (spans: CollectedSpan[]) => spans.find((s) => s.name === "execute_tool mnote.page.get");
/** The kernel's SERVER spans in one trace (serve's start-up check of the kernel is a trace of its own). */
const kernelServerSpans = (spans: CollectedSpan[], traceId: string) =>
  spans.filter((s) => s.service === "mnote-kernel" && s.kind === OTLP_KIND.server && s.traceId === traceId);
/** The tool call's span has arrived, and the kernel's two spans of its trace. */
const toolTraceArrived = (spans: CollectedSpan[]) => {
  const tool = toolSpan(spans);
  return tool !== undefined && kernelServerSpans(spans, tool.traceId).length === 2;
};

/** The runtime's tool span, its kernel CLIENT spans, and the kernel's SERVER spans: one trace, each the parent of the next. */
function expectOneTrace(spans: CollectedSpan[], transport: "http" | "cli"): CollectedSpan {
  const tool = toolSpan(spans)!;
  expect(tool).toMatchObject({ service: "mnote-tools", kind: OTLP_KIND.internal });
  expect(tool.attributes).toMatchObject({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "mnote.page.get",
    "gen_ai.tool.call.id": "call_traced",
    "mnote.trace_id": "trace_panel_1",
  });
  const clients = spans.filter(
    (s) => s.service === "mnote-tools" && s.kind === OTLP_KIND.client && s.traceId === tool.traceId,
  );
  const servers = kernelServerSpans(spans, tool.traceId);
  expect(clients.map((s) => s.name).sort()).toEqual(["kernel access.check", "kernel page.snapshot.read"]);
  expect(servers.map((s) => s.name).sort()).toEqual(["kernel access.check", "kernel page.snapshot.read"]);
  for (const s of [...clients, ...servers]) expect(s.traceId).toBe(tool.traceId);
  for (const c of clients) expect(c.parentSpanId).toBe(tool.spanId);
  for (const s of servers) {
    expect(s.parentSpanId).toBe(clients.find((c) => c.name === s.name)!.spanId);
    expect(s.attributes).toMatchObject({
      "mnote.kernel.transport": transport,
      "mnote.trace_id": "trace_panel_1",
      "mnote.tool_call.id": "call_traced",
    });
  }
  return tool;
}

describe("one trace: Hermes plugin -> serve -> kernel", () => {
  let collector: Collector;
  const stopping: Running[] = [];
  beforeEach(async () => {
    collector = await startCollector();
  });
  afterEach(async () => {
    await Promise.all(stopping.splice(0).map((p) => p.stop()));
    await collector.close();
  });

  async function serveOverKernelHttp() {
    const p = seededProject([{ session: "s_owner", actor: "user_1", trace: "trace_panel_1" }]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"], {
      env: collector.env,
    });
    const server = await start(
      [
        "serve",
        "--state",
        p.state,
        "--kernel-url",
        kernel.url,
        "--kernel-token",
        "ktok",
        "--port",
        "0",
        "--token",
        "tok",
      ],
      { env: collector.env },
    );
    stopping.push(server, kernel);
    return server;
  }

  it("continues the agent's TRACEPARENT: every span is in its trace, the tool span the child of its span", async () => {
    const server = await serveOverKernelHttp();
    await pluginGet({ MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok", TRACEPARENT: traceparent(TRACE, PARENT) });
    const spans = await collector.waitFor(toolTraceArrived);
    const tool = expectOneTrace(spans, "http");
    expect([tool.traceId, tool.parentSpanId]).toEqual([TRACE, PARENT]);
  });

  it("without one, the plugin starts the trace: serve's span has the plugin's remote parent, the kernel's spans the same trace id", async () => {
    const server = await serveOverKernelHttp();
    await pluginGet({ MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" });
    const spans = await collector.waitFor(toolTraceArrived);
    const tool = expectOneTrace(spans, "http");
    expect(tool.parentSpanId).toMatch(/^[0-9a-f]{16}$/); // the plugin's span id: it sent a traceparent
    expect(spans.some((s) => s.spanId === tool.parentSpanId)).toBe(false); // ...and exports nothing itself
  });

  it("through the kernel's CLI adapter (serve --kernel-cli ... kernel exec): TRACEPARENT carries it", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1", trace: "trace_panel_1" }]);
    const adapter = `${process.execPath} ${cliPath} kernel exec --db ${p.db}`;
    const server = await start(
      ["serve", "--state", p.state, "--kernel-cli", adapter, "--port", "0", "--token", "tok"],
      { env: collector.env },
    );
    stopping.push(server);
    await pluginGet({ MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok", TRACEPARENT: traceparent(TRACE, PARENT) });
    const spans = await collector.waitFor(toolTraceArrived);
    expect(expectOneTrace(spans, "cli").traceId).toBe(TRACE);
  });

  it("through the plugin's CLI transport (MNOTE_TOOLS_CLI: mnote-tools call): TRACEPARENT carries it", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1", trace: "trace_panel_1" }]);
    const env = {
      MNOTE_TOOLS_CLI: `${process.execPath} ${cliPath}`,
      MNOTE_TOOLS_DB: p.db,
      MNOTE_TOOLS_STATE: p.state,
      TRACEPARENT: traceparent(TRACE, PARENT),
    };
    await pluginGet({ ...env, ...collector.env });
    const tool = toolSpan(await collector.waitFor((s) => toolSpan(s) !== undefined))!;
    expect([tool.service, tool.traceId, tool.parentSpanId]).toEqual(["mnote-tools", TRACE, PARENT]);
  });
});

describe("OTEL_TRACES_EXPORTER=console (the README's check by hand)", () => {
  /** Collects a process's stdout from now on. */
  function stdoutOf(p: Running): () => string {
    let text = "";
    p.process.stdout!.on("data", (d: Buffer) => (text += d.toString("utf8")));
    return () => text;
  }

  /** The trace ids printed in the console exporter's blocks for the spans with this name. */
  function traceIdsOf(text: string, name: string): string[] {
    return text
      .split(/\n(?=\{\n)/)
      .filter((b) => b.includes(`name: '${name}'`))
      .map((b) => /traceId: '([0-9a-f]{32})'/.exec(b)?.[1])
      .filter((id): id is string => id !== undefined);
  }
  /** The trace id of the first span with this name (serve's start-up check of the kernel is a trace of its own). */
  const traceIdOf = (text: string, name: string): string | undefined => traceIdsOf(text, name)[0];

  it("serve prints the execute_tool mnote.page.get span; kernel serve prints its spans in the same trace", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const env = { OTEL_TRACES_EXPORTER: "console" };
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"], { env });
    const server = await start(
      [
        "serve",
        "--state",
        p.state,
        "--kernel-url",
        kernel.url,
        "--kernel-token",
        "ktok",
        "--port",
        "0",
        "--token",
        "tok",
      ],
      { env },
    );
    const [serveOut, kernelOut] = [stdoutOf(server), stdoutOf(kernel)];
    const res = await fetch(`${server.url}/v1/tools/call`, {
      method: "POST",
      headers: { authorization: "Bearer tok", "content-type": "application/json" },
      body: JSON.stringify(
        makeRequest("mnote.page.get", {}, {}, { sessionId: "s_owner", capabilityScope: ["page.read"] }),
      ),
    });
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
    const until = Date.now() + 30_000;
    while (
      !(traceIdOf(serveOut(), "execute_tool mnote.page.get") && traceIdOf(kernelOut(), "kernel page.snapshot.read")) &&
      Date.now() < until
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const traceId = traceIdOf(serveOut(), "execute_tool mnote.page.get");
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf(kernelOut(), "kernel page.snapshot.read")).toBe(traceId);
    expect(traceIdsOf(kernelOut(), "kernel access.check")).toContain(traceId);
    await Promise.all([server.stop(), kernel.stop()]);
  });

  it("without OTEL_* nothing is printed and nothing is sent", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"], {
      env: { OTEL_TRACES_EXPORTER: undefined },
    });
    const out = stdoutOf(server);
    await fetch(`${server.url}/v1/tools/call`, {
      method: "POST",
      headers: { authorization: "Bearer tok", "content-type": "application/json" },
      body: JSON.stringify(
        makeRequest("mnote.page.get", {}, {}, { sessionId: "s_owner", capabilityScope: ["page.read"] }),
      ),
    });
    await server.stop();
    expect(out()).not.toContain("execute_tool");
  });
});

describe("one-shot commands keep stdout for their answer", () => {
  const env = { OTEL_TRACES_EXPORTER: "console", TRACEPARENT: traceparent(TRACE, PARENT) };

  it("kernel exec: the reply alone on stdout; its span, continuing TRACEPARENT, on stderr", () => {
    const p = seededProject([]);
    const context = {
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      traceId: "trace_x",
      sessionId: "s",
      runId: "r",
      toolCallId: "c",
    };
    const out = runCli(["kernel", "exec", "--db", p.db], {
      input: JSON.stringify({ command: "access.check", payload: { context } }),
      env,
    });
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, result: { result: { member: true } } });
    expect(out.stderr).toContain("name: 'kernel access.check'");
    expect(out.stderr).toContain(`traceId: '${TRACE}'`);
  });

  it("call: the envelope alone on stdout; the execute_tool span, continuing TRACEPARENT, on stderr", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const request = makeRequest("mnote.page.get", {}, {}, { sessionId: "s_owner", capabilityScope: ["page.read"] });
    const out = runCli(["call", "--db", p.db, "--state", p.state], { input: JSON.stringify(request), env });
    expect(JSON.parse(out.stdout)).toMatchObject({ ok: true, toolName: "mnote.page.get" });
    expect(out.stderr).toContain("name: 'execute_tool mnote.page.get'");
    expect(out.stderr).toContain(`traceId: '${TRACE}'`);
  });
});

describe("mcp over stdio with the console exporter", () => {
  it("keeps stdout for MCP: spans go to stderr, and _meta.traceparent is continued", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, "mcp", "--session", "s_owner", "--db", p.db, "--state", p.state],
      env: { PATH: process.env.PATH ?? "", OTEL_TRACES_EXPORTER: "console" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const client = new Client({ name: "otel-test", version: "0" });
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(transport);
    try {
      const result = await client.callTool({
        name: "mnote_page_get",
        arguments: {},
        _meta: { traceparent: traceparent(TRACE, PARENT) },
      });
      expect(result.isError).toBe(false);
      const until = Date.now() + 30_000;
      while (!stderr.includes("execute_tool mnote.page.get") && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toContain("name: 'execute_tool mnote.page.get'");
      expect(stderr).toContain(`traceId: '${TRACE}'`);
      expect(errors).toEqual([]); // nothing but JSON-RPC reached the client on stdout
    } finally {
      await client.close();
    }
  });
});
