/**
 * W3C trace context in and out, through `@opentelemetry/api` only: the global propagator (W3C
 * Trace Context once the SDK is started; a no-op otherwise, so all of this costs nothing when
 * tracing is off: with nothing registered the API is not even loaded, see otel.ts).
 *
 * Carriers: HTTP headers (`traceparent`, `tracestate`), the MCP request's `_meta` (same keys), and
 * for a process started per command, the environment (`TRACEPARENT`, `TRACESTATE`, as the
 * OpenTelemetry specification's "Environment Variables as Context Propagation Carriers" names them).
 */
import { activeOtel } from "./otel";

/** Header-like carrier: lower-case keys, as Node gives HTTP headers. */
export type TraceCarrier = Record<string, string | string[] | undefined>;

/** The W3C fields to send on with an outgoing call. */
export interface TraceFields {
  traceparent?: string;
  tracestate?: string;
}

/** Runs `run` in the context the carrier continues (the active one when it carries no valid traceparent). */
export function continueTrace<R>(carrier: TraceCarrier | undefined, run: () => R): R {
  const otel = carrier && activeOtel();
  if (!otel) return run();
  return otel.context.with(otel.propagation.extract(otel.context.active(), carrier), run);
}

/** The active span's context as W3C fields, for the next hop (empty when tracing is off). */
export function currentTraceFields(): TraceFields {
  const carrier: Record<string, string> = {};
  const otel = activeOtel();
  if (!otel) return {};
  otel.propagation.inject(otel.context.active(), carrier);
  const fields: TraceFields = {};
  if (carrier.traceparent) fields.traceparent = carrier.traceparent;
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  return fields;
}

/** The environment carrier (TRACEPARENT, TRACESTATE) read as a header-like one. */
export function traceCarrierFromEnv(env: NodeJS.ProcessEnv = process.env): TraceCarrier {
  return { traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE };
}

/** The `traceparent`/`tracestate` strings of an MCP request's `_meta`, if any. */
export function traceCarrierFromMeta(meta: unknown): TraceCarrier | undefined {
  if (meta === null || typeof meta !== "object") return undefined;
  const m = meta as Record<string, unknown>;
  const pick = (v: unknown) => (typeof v === "string" ? v : undefined);
  return { traceparent: pick(m.traceparent), tracestate: pick(m.tracestate) };
}
