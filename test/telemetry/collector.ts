/**
 * A tiny OTLP/HTTP trace collector on 127.0.0.1, port 0, for tests whose child processes export
 * with OTEL_TRACES_EXPORTER=otlp. JSON bodies (what `env` asks for) are flattened into one list of
 * spans; protobuf bodies are kept as they came (`protobuf`), for the test of the protocol switch.
 */
import { once } from "node:events";
import { createServer } from "node:http";

export interface CollectedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  /** The resource's attributes (service.*, process.*, host.*, os.*). */
  resource: Record<string, unknown>;
  /** The instrumentation scope. */
  scope: { name: string; version?: string };
}

/** OTLP span kinds (SPAN_KIND_*), as numbers in the JSON encoding. */
export const OTLP_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface Collector {
  /** OTEL_* variables that make a child process export here. */
  env: NodeJS.ProcessEnv;
  spans: CollectedSpan[];
  /** The protobuf request bodies received (application/x-protobuf), undecoded. */
  protobuf: Buffer[];
  /** Resolves once `done(spans)` holds (polled), or rejects after timeoutMs with what arrived. */
  waitFor(done: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

const valueOf = (v: AnyValue): unknown =>
  v.arrayValue
    ? (v.arrayValue.values ?? []).map(valueOf)
    : (v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue));
const attrs = (list: KeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, valueOf(kv.value)]));

/** Starts the collector; `env` points a child process's OTLP exporter at it. */
export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const protobuf: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces" && /json/.test(req.headers["content-type"] ?? "")) {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const rs of body.resourceSpans ?? []) {
          const resource = attrs(rs.resource?.attributes);
          const service = String(resource["service.name"]);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                name: s.name,
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                attributes: attrs(s.attributes),
                resource,
                scope: { name: ss.scope?.name, version: ss.scope?.version },
              });
            }
          }
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else if (
        req.method === "POST" &&
        req.url === "/v1/traces" &&
        /protobuf/.test(req.headers["content-type"] ?? "")
      ) {
        protobuf.push(Buffer.concat(chunks));
        // an empty ExportTraceServiceResponse is zero bytes of protobuf
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      } else {
        res.writeHead(415).end();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  return {
    spans,
    protobuf,
    env: {
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", // decoded here; the default is http/protobuf
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: "50", // export promptly: the test waits for spans, not for a shutdown
    },
    async waitFor(done, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while (!done(spans)) {
        if (Date.now() > until)
          throw new Error(`spans did not arrive; got: ${JSON.stringify(spans.map((s) => `${s.service}: ${s.name}`))}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return spans;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
