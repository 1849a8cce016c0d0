/**
 * @mnote/runtime/otel: the OpenTelemetry SDK and OTLP exporters, started from the environment. Needs
 * the optional peers @opentelemetry/sdk-trace-node, @opentelemetry/resources and the exporter named
 * by OTEL_EXPORTER_OTLP_PROTOCOL (each loaded when used).
 */
export {
  startTelemetry,
  otlpProtocolFromEnv,
  tracesExportersFromEnv,
  type Telemetry,
  type TelemetryOptions,
} from "./telemetry/sdk";
