/**
 * The runtime skips the OpenTelemetry API while nothing is registered with it (runtime/telemetry/
 * otel.ts): pinned here against the installed API, whose global registry symbol is what the gate
 * reads, and checked from the outside (a call loads no OpenTelemetry module; with a provider
 * registered by the host, the runtime's spans reach it).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/paths";

function run(script: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["-e", script], { cwd: repoRoot, encoding: "utf8", timeout: 60_000 });
}

const dist = (p: string) => JSON.stringify(join(repoRoot, "dist", p));

describe("the OpenTelemetry gate", () => {
  it("the installed API registers under the symbol the gate reads, and the gate then hands the API out", () => {
    const r = run(`
      const { activeOtel } = require(${dist("common/telemetry/otel.js")});
      const before = activeOtel() === undefined;
      const api = require("@opentelemetry/api");
      const unregistered = activeOtel() === undefined; // loading the API registers nothing
      api.propagation.setGlobalPropagator({ inject() {}, extract: (c) => c, fields: () => [] });
      const manifest = require.resolve("@opentelemetry/api").replace(/build[\\/]src[\\/]index\.js$/, "package.json");
      const major = JSON.parse(require("fs").readFileSync(manifest, "utf8")).version.split(".")[0];
      const symbol = Symbol.for("opentelemetry.js.api." + major);
      console.log(JSON.stringify({ before, unregistered, pinned: symbol in globalThis, after: activeOtel() === api }));
    `);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ before: true, unregistered: true, pinned: true, after: true });
  });

  it("a dispatch with nothing registered loads no OpenTelemetry module; with a host's provider its span is recorded", () => {
    const script = (register: boolean) => `
      const Module = require("module");
      const load = Module._load;
      const otel = new Set();
      Module._load = function (request) { if (request.includes("opentelemetry")) otel.add(request); return load.apply(this, arguments); };
      const ended = [];
      if (${register}) {
        const api = require("@opentelemetry/api");
        const { BasicTracerProvider } = require("@opentelemetry/sdk-trace-base");
        const provider = new BasicTracerProvider({ spanProcessors: [{ onStart() {}, onEnd: (s) => ended.push(s.name), forceFlush: async () => {}, shutdown: async () => {} }] });
        api.trace.setGlobalTracerProvider(provider);
      }
      const { createRuntime } = require(${dist("runtime/runtime.js")});
      const runtime = createRuntime({ kernel: { kind: "embedded", path: ":memory:" }, statePath: ":memory:" });
      runtime.dispatcher.dispatch("{}").then(async (r) => {
        await runtime.close();
        console.log(JSON.stringify({ code: r.error.code, otel: otel.size, spans: ended }));
      });
    `;
    const off = run(script(false));
    expect(off.stderr).toBe("");
    expect(JSON.parse(off.stdout)).toEqual({ code: "mnote_tool_invalid_input", otel: 0, spans: [] });
    const on = run(script(true));
    expect(on.stderr).toBe("");
    expect(JSON.parse(on.stdout)).toMatchObject({ code: "mnote_tool_invalid_input", spans: ["execute_tool"] });
  });
});
