/** An in-process OpenTelemetry SDK for a test file: every finished span lands in an InMemorySpanExporter. */
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-node";

export interface InMemoryTracing {
  exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  byName(name: string): ReadableSpan[];
}

/** Registers the SDK globally (context manager, W3C propagator) for this test file; resets between tests. */
export function inMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  beforeEach(() => exporter.reset());
  afterAll(() => provider.shutdown());
  const spans = () => exporter.getFinishedSpans();
  return { exporter, spans, byName: (name) => spans().filter((s) => s.name === name) };
}

/** A W3C traceparent with the given ids, sampled. */
export const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
