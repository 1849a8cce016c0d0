/**
 * How the processes export, as an operator sees it: OTEL_EXPORTER_OTLP_PROTOCOL is honoured
 * (http/protobuf, the default, and http/json; anything else is said on stderr), the resource and
 * the scope say which service, version, process and host sent a span, log lines name the active
 * span, and telemetry never delays a call: a one-shot `call` whose collector never answers, or is
 * not there at all, answers about as fast as one without telemetry (issue 18, item 11).
 */
import { spawn } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { otlpProtocolFromEnv } from "../../runtime/telemetry/sdk";
import { cliPath, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { startCollector, type Collector } from "./collector";

const owner = { sessionId: "s_owner", actorId: "user_1", capabilityScope: ["page.read"] };
const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

/** One `call` of page.get; resolves with the envelope, stderr and how long the process took. */
function call(
  p: { db: string; state: string },
  env: NodeJS.ProcessEnv,
): Promise<{ response: any; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [cliPath, "call", "--db", p.db, "--state", p.state], {
    cwd: repoRoot,
    env: { ...withoutOtel(), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  child.stdin.end(JSON.stringify(makeRequest("mnote.page.get", {}, {}, owner)));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`call exited with ${code}: ${stderr}`));
      resolve({ response: JSON.parse(stdout), stderr, ms: Date.now() - started });
    });
  });
}

function withoutOtel(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
}

describe("the OTLP protocol", () => {
  it("http/protobuf is the default and honoured when asked; http/json when asked; anything else is said", () => {
    expect(otlpProtocolFromEnv({})).toEqual({ protocol: "http/protobuf" });
    expect(otlpProtocolFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" })).toEqual({
      protocol: "http/protobuf",
    });
    expect(otlpProtocolFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual({ protocol: "http/json" });
    expect(
      otlpProtocolFromEnv({
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      }),
    ).toEqual({ protocol: "http/protobuf" });
    expect(otlpProtocolFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toEqual({
      protocol: "http/protobuf",
      warning: expect.stringContaining('"grpc" is not supported'),
    });
  });

  describe("through a real export", () => {
    let collector: Collector;
    let p: ReturnType<typeof seededProject>;
    beforeAll(async () => {
      p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    });
    beforeEach(async () => {
      collector = await startCollector();
    });
    afterEach(() => collector.close());

    it("OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf sends protobuf bodies, not JSON", async () => {
      const { response } = await call(p, { ...collector.env, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" });
      expect(response.ok).toBe(true);
      const deadline = Date.now() + 30_000;
      while (collector.protobuf.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(collector.spans).toEqual([]);
      const body = Buffer.concat(collector.protobuf).toString("latin1");
      expect(body).toContain("execute_tool mnote.page.get");
      expect(body).toContain("mnote-tools");
    });

    it("an unsupported protocol is said on stderr, and traces still go (as protobuf)", async () => {
      const { response, stderr } = await call(p, { ...collector.env, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
      expect(response.ok).toBe(true);
      expect(stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported');
      const deadline = Date.now() + 30_000;
      while (collector.protobuf.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(collector.protobuf.length).toBeGreaterThan(0);
    });

    it("the resource names service, version, process and host (never the command line); the scope has a version", async () => {
      await call(p, collector.env);
      const [span] = await collector.waitFor((s) => s.some((x) => x.name === "execute_tool mnote.page.get"));
      expect(span!.resource).toMatchObject({
        "service.name": "mnote-tools",
        "service.version": version,
        "process.pid": expect.any(Number),
        "process.runtime.name": "nodejs",
        "process.runtime.version": process.versions.node,
        "host.name": expect.any(String),
        "host.arch": expect.any(String),
        "os.type": expect.any(String),
      });
      expect(Object.keys(span!.resource).filter((k) => /command_args|command_line/.test(k))).toEqual([]);
      expect(span!.scope).toEqual({ name: "mnote-tools", version });
    });

    it("serve's log lines written inside a call carry its trace_id and span_id; none without tracing", async () => {
      const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"], {
        env: collector.env,
      });
      const plain = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"], {
        env: { OTEL_TRACES_EXPORTER: "none" },
      });
      try {
        for (const s of [server, plain])
          expect(
            (await postJson(`${s.url}/v1/tools/call`, makeRequest("mnote.page.get", {}, {}, owner), "tok")).body.ok,
          ).toBe(true);
        const spans = await collector.waitFor((s) => s.some((x) => x.name === "execute_tool mnote.page.get"));
        const tool = spans.find((x) => x.name === "execute_tool mnote.page.get")!;
        const logged = (lines: string[]) =>
          lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
        const line = logged(server.stderr).find((l) => l.event === "tool_call");
        expect(line).toMatchObject({ trace_id: tool.traceId, span_id: tool.spanId });
        const untraced = logged(plain.stderr).find((l) => l.event === "tool_call");
        expect(untraced).toBeDefined();
        expect(untraced!.trace_id).toBeUndefined();
      } finally {
        await Promise.all([server.stop(), plain.stop()]);
      }
    });
  });
});

describe("telemetry never delays a call", () => {
  let blackHole: Server;
  const held: Socket[] = [];
  let blackHolePort: number;
  let closedPort: number;
  let p: ReturnType<typeof seededProject>;

  beforeAll(async () => {
    p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    // accepts every connection and never answers a byte
    blackHole = createServer((socket) => held.push(socket));
    await new Promise<void>((r) => blackHole.listen(0, "127.0.0.1", r));
    blackHolePort = (blackHole.address() as { port: number }).port;
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => blackHole.close(() => r()));
  });

  const otlpTo = (port: number) => ({
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  });

  // The SDK's default export timeout is 10 s, and an unreachable collector used to add about 8 s to
  // every call. The margin against a call without telemetry is wide (a loaded CI machine), and still
  // far below that.
  const MARGIN_MS = 3_000;

  it("a collector that accepts and never answers, and one that is not there: each call answers without waiting for it", async () => {
    const baseline = await call(p, {});
    expect(baseline.response.ok).toBe(true);
    for (const port of [blackHolePort, closedPort]) {
      const traced = await call(p, otlpTo(port));
      expect(traced.response.ok).toBe(true);
      expect([port, traced.ms - baseline.ms < MARGIN_MS]).toEqual([port, true]);
    }
  });

  it("the export timeout variable still rules where it is set (a longer wait is the operator's choice)", async () => {
    const bounded = await call(p, { ...otlpTo(blackHolePort), OTEL_EXPORTER_OTLP_TIMEOUT: "200" });
    expect(bounded.response.ok).toBe(true);
    const baseline = await call(p, {});
    expect(bounded.ms - baseline.ms < MARGIN_MS).toBe(true);
  });
});
