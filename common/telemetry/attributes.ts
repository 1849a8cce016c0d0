/**
 * Span attribute names. The `gen_ai.*` ones are the OpenTelemetry GenAI semantic conventions
 * (open-telemetry/semantic-conventions-genai, status Development; see docs/OBSERVABILITY.md for the
 * text followed); `error.type` is stable semconv. They are spelled here rather than imported from
 * `@opentelemetry/semantic-conventions/incubating` so the runtime depends on `@opentelemetry/api`
 * alone (test/telemetry checks they still agree with that package). The `mnote.*` names are ours.
 *
 * Never page content: only identifiers, names, effects and error codes go on a span.
 */
/** Every span attribute key the runtime and the reference kernel set. */
export const ATTR = {
  genAiOperationName: "gen_ai.operation.name",
  genAiToolName: "gen_ai.tool.name",
  genAiToolCallId: "gen_ai.tool.call.id",
  genAiToolType: "gen_ai.tool.type",
  genAiToolDescription: "gen_ai.tool.description",
  errorType: "error.type",
  /** The envelope's traceId: the contract's correlation id, not the W3C trace id. */
  mnoteTraceId: "mnote.trace_id",
  mnoteProviderName: "mnote.tool.provider_name",
  mnoteWorkspaceId: "mnote.workspace.id",
  mnoteDocumentId: "mnote.document.id",
  mnoteEffect: "mnote.effect",
  mnoteCommandId: "mnote.command.id",
  mnoteReplayed: "mnote.replayed",
  mnoteErrorCode: "mnote.error.code",
  mnoteErrorReason: "mnote.error.reason",
  mnoteToolCallId: "mnote.tool_call.id",
  mnoteKernelCommand: "mnote.kernel.command",
  mnoteKernelTransport: "mnote.kernel.transport",
} as const;

/** The GenAI operation every tool call span carries. */
export const EXECUTE_TOOL = "execute_tool";

/** The instrumentation scope of every span the runtime and the reference kernel start. */
export const TRACER_NAME = "mnote-tools";

/** The scope's version: this package's (common/version.ts). */
export { packageVersion as tracerVersion } from "../version";
