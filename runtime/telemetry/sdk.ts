/**
 * Starting the OpenTelemetry SDK for a server process (`serve`, `mcp`, `kernel serve`, and the
 * one-shot `call` and `kernel exec`), only when the standard environment asks for it. This is the
 * one module that loads SDK packages; it is loaded only by cli/, and loads them only when tracing
 * is on. The runtime itself (dispatcher, transports, kernel) uses `@opentelemetry/api` alone.
 *
 * Read from the environment (the OpenTelemetry SDK configuration names):
 *   OTEL_SDK_DISABLED=true             nothing starts, whatever else is set
 *   OTEL_TRACES_EXPORTER=otlp|console|none (a comma-separated list)
 *       otlp    OTLP over HTTP (@opentelemetry/exporter-trace-otlp-http: JSON bodies), to
 *               OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces
 *               (default http://localhost:4318/v1/traces), with OTEL_EXPORTER_OTLP_HEADERS etc.
 *       console each span printed when it ends (on stderr where stdout is a protocol channel)
 *   unset: tracing is off, unless an OTLP endpoint variable is set (then otlp). This departs from
 *          the SDK default (otlp) on purpose: a plain `serve` must not send anything anywhere.
 *   OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES   the resource (service.name defaults per process)
 *   OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*         read by the SDK itself
 * Propagation is W3C Trace Context (and Baggage), the SDK's default.
 */
import { Console } from "node:console";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-node";

export interface TelemetryOptions {
  /** service.name unless OTEL_SERVICE_NAME says otherwise. */
  serviceName: string;
  serviceVersion?: string;
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
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "").trim();
  if (names.includes("otlp") && protocol && protocol !== "http/json" && protocol !== "http/protobuf") {
    warnings.push(`OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported; traces go as OTLP/HTTP JSON`);
  }
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
  const { resourceFromAttributes, detectResources, envDetector } = await import("@opentelemetry/resources");
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = await import("@opentelemetry/semantic-conventions");
  const processors: SpanProcessor[] = [];
  for (const name of exporters) {
    if (name === "otlp") {
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
      processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
    } else {
      const exporter = new ConsoleSpanExporter();
      const stream = options.consoleStream;
      if (stream && stream !== process.stdout) redirectConsole(exporter, new Console(stream));
      // the console exporter is for watching by hand: print each span as it ends
      processors.push(new SimpleSpanProcessor(exporter));
    }
  }
  const base: Record<string, string> = { [ATTR_SERVICE_NAME]: options.serviceName };
  if (options.serviceVersion) base[ATTR_SERVICE_VERSION] = options.serviceVersion;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the defaults
  const resource = resourceFromAttributes(base).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register();
  return {
    exporters,
    async shutdown() {
      await provider
        .shutdown()
        .catch((e: unknown) => process.stderr.write(`mnote-tools: telemetry: shutdown: ${(e as Error).message}\n`));
    },
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
