/**
 * Starting the OpenTelemetry SDK for a server process (`serve`, `mcp`, `kernel serve`, and the
 * one-shot `call` and `kernel exec`), only when the standard environment asks for it. This is the
 * one module that loads SDK packages; it is loaded only by cli/, and loads them only when tracing
 * is on. The runtime itself (dispatcher, transports, kernel) uses `@opentelemetry/api` alone.
 *
 * Read from the environment (the OpenTelemetry SDK configuration names):
 *   OTEL_SDK_DISABLED=true             nothing starts, whatever else is set
 *   OTEL_TRACES_EXPORTER=otlp|console|none (a comma-separated list)
 *       otlp    OTLP over HTTP, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
 *               + /v1/traces (default http://localhost:4318/v1/traces), with
 *               OTEL_EXPORTER_OTLP_HEADERS etc.; OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL picks the body:
 *               http/protobuf (the specification's default) or http/json; grpc is not supported
 *               (a warning says so, and http/protobuf is used)
 *       console each span printed when it ends (on stderr where stdout is a protocol channel)
 *   unset: tracing is off, unless an OTLP endpoint variable is set (then otlp). This departs from
 *          the SDK default (otlp) on purpose: a plain `serve` must not send anything anywhere.
 *   OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES   the resource (service.name defaults per process)
 *   OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*         read by the SDK itself
 *   OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT           how long one export may take (below)
 * Propagation is W3C Trace Context (and Baggage), the SDK's default.
 *
 * Telemetry never delays a call: spans are exported in batches in the background, and shutdown
 * (when the process ends) waits at most the export timeout. A one-shot process (`call`, `kernel
 * exec`: every Hermes CLI-transport tool call is one) uses 500 ms unless the timeout variable says
 * otherwise, so an unreachable collector costs it at most that, not the SDK's 10 s; a server keeps
 * the SDK's default (10 s) for its last batch at SIGTERM.
 *
 * The resource: service.name (and OTEL_SERVICE_NAME), service.version, the process attributes that
 * hold no secret (pid, runtime, executable, the script; not the command line, which holds tokens),
 * and the host and OS detectors' (host.name, host.arch, host.id, os.type, os.version).
 */
import { Console } from "node:console";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-node";

export interface TelemetryOptions {
  /** service.name unless OTEL_SERVICE_NAME says otherwise. */
  serviceName: string;
  /** service.version (default: this package's version). */
  serviceVersion?: string;
  /** A process that ends after one call (`call`, `kernel exec`): its shutdown waits at most 500 ms by default. */
  oneShot?: boolean;
  /** Where the console exporter writes (default stdout; stderr for MCP over stdio). */
  consoleStream?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

export interface Telemetry {
  /** The exporters started, e.g. ["otlp"]. */
  exporters: string[];
  /** Flushes what is buffered and stops; call before the process exits. */
  shutdown(): Promise<void>;
}

const KNOWN = new Set(["otlp", "console", "none"]);

/** The OTLP bodies this package can send; http/protobuf is the specification's default. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** The export timeout of a one-shot process when the environment names none. */
export const ONE_SHOT_EXPORT_TIMEOUT_MS = 500;

/** The OTLP protocol the environment asks for, and a warning when it is one this package cannot speak. */
export function otlpProtocolFromEnv(env: NodeJS.ProcessEnv): { protocol: OtlpProtocol; warning?: string } {
  const raw = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "").trim();
  if (raw === "" || raw === "http/protobuf") return { protocol: "http/protobuf" };
  if (raw === "http/json") return { protocol: "http/json" };
  return {
    protocol: "http/protobuf",
    warning: `OTEL_EXPORTER_OTLP_PROTOCOL: "${raw}" is not supported (http/protobuf or http/json); traces go as OTLP/HTTP protobuf`,
  };
}

/** The export timeout the environment sets (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, then OTEL_EXPORTER_OTLP_TIMEOUT), in ms. */
export function exportTimeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"]) {
    const text = env[name]?.trim();
    if (text && /^\d+$/.test(text) && Number(text) > 0) return Number(text);
  }
  return undefined;
}

/** Which exporters the environment asks for, and what in it was not understood. Pure, for tests. */
export function tracesExportersFromEnv(env: NodeJS.ProcessEnv): { exporters: string[]; warnings: string[] } {
  const warnings: string[] = [];
  if (/^\s*true\s*$/i.test(env.OTEL_SDK_DISABLED ?? "")) return { exporters: [], warnings };
  const raw = env.OTEL_TRACES_EXPORTER?.trim();
  let names: string[];
  if (raw)
    names = raw
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
  else names = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT ? ["otlp"] : [];
  for (const n of names)
    if (!KNOWN.has(n)) warnings.push(`OTEL_TRACES_EXPORTER: "${n}" is not supported (otlp, console, none); ignored`);
  const protocol = otlpProtocolFromEnv(env);
  if (names.includes("otlp") && protocol.warning) warnings.push(protocol.warning);
  if (names.includes("none")) return { exporters: [], warnings };
  return { exporters: [...new Set(names.filter((n) => n === "otlp" || n === "console"))], warnings };
}

/**
 * Starts and registers the SDK (tracer provider, AsyncLocalStorage context, W3C propagator) when
 * the environment asks for it; otherwise returns null and loads nothing. Warnings go to stderr.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry | null> {
  const env = options.env ?? process.env;
  const { exporters, warnings } = tracesExportersFromEnv(env);
  for (const w of warnings) process.stderr.write(`mnote-tools: telemetry: ${w}\n`);
  if (exporters.length === 0) return null;

  const { NodeTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, ConsoleSpanExporter } =
    await import("@opentelemetry/sdk-trace-node");
  const { resourceFromAttributes, detectResources, envDetector, hostDetector, osDetector } =
    await import("@opentelemetry/resources");
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = await import("@opentelemetry/semantic-conventions");
  const { packageVersion } = await import("../../common/version");
  // the SDK reads the timeout variables itself; a one-shot process without them gets a short one
  const envTimeout = exportTimeoutFromEnv(env);
  const timeoutMillis = envTimeout === undefined && options.oneShot ? ONE_SHOT_EXPORT_TIMEOUT_MS : undefined;
  const shutdownBoundMs = (envTimeout ?? timeoutMillis ?? 10_000) + 100;
  const processors: SpanProcessor[] = [];
  for (const name of exporters) {
    if (name === "otlp") {
      // exported in batches in the background: a call never waits for the collector
      const config = timeoutMillis === undefined ? {} : { timeoutMillis };
      const { protocol } = otlpProtocolFromEnv(env);
      const exporter =
        protocol === "http/json"
          ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter(config)
          : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter(config);
      processors.push(
        new BatchSpanProcessor(exporter, timeoutMillis === undefined ? {} : { exportTimeoutMillis: timeoutMillis }),
      );
    } else {
      const exporter = new ConsoleSpanExporter();
      const stream = options.consoleStream;
      if (stream && stream !== process.stdout) redirectConsole(exporter, new Console(stream));
      // the console exporter is for watching by hand: print each span as it ends
      processors.push(new SimpleSpanProcessor(exporter));
    }
  }
  const base = {
    [ATTR_SERVICE_NAME]: options.serviceName,
    [ATTR_SERVICE_VERSION]: options.serviceVersion ?? packageVersion(),
    ...processAttributes(),
  };
  // host and OS (cheap: names, arch, the machine id file); OTEL_SERVICE_NAME and
  // OTEL_RESOURCE_ATTRIBUTES (the env detector, last) win over the defaults
  const resource = resourceFromAttributes(base).merge(
    detectResources({ detectors: [hostDetector, osDetector, envDetector] }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register();
  return {
    exporters,
    async shutdown() {
      // what is still buffered gets at most the export timeout; a collector that never answers
      // must not hold the process (or the caller waiting for it) any longer
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, shutdownBoundMs);
        timer.unref();
      });
      await Promise.race([
        provider
          .shutdown()
          .catch((e: unknown) => process.stderr.write(`mnote-tools: telemetry: shutdown: ${(e as Error).message}\n`)),
        bound,
      ]);
      clearTimeout(timer);
    },
  };
}

/**
 * The process resource attributes that hold no secret (the OpenTelemetry process conventions):
 * not process.command_args or command_line, which would carry --token and --kernel-token.
 */
export function processAttributes(): Record<string, string | number> {
  return {
    "process.pid": process.pid,
    "process.executable.name": process.title,
    "process.executable.path": process.execPath,
    ...(process.argv[1] ? { "process.command": process.argv[1] } : {}),
    "process.runtime.name": "nodejs",
    "process.runtime.version": process.versions.node,
    "process.runtime.description": "Node.js",
  };
}

/**
 * The SDK's console exporter prints with the global console (stdout). Over MCP stdio, stdout is
 * the protocol channel: give it a console on another stream instead.
 */
function redirectConsole(exporter: object, target: Console): void {
  const inner = exporter as {
    _exportInfo?: (span: unknown) => unknown;
    export: (spans: unknown[], done: (r: { code: number }) => void) => void;
  };
  const info = inner._exportInfo?.bind(exporter);
  if (!info) return;
  inner.export = (spans, done) => {
    for (const span of spans) target.dir(info(span), { depth: 3 });
    done({ code: 0 }); // ExportResultCode.SUCCESS
  };
}
