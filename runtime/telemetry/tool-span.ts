/**
 * One span per tool call, per the GenAI semantic conventions' "Execute tool span": named
 * `execute_tool {gen_ai.tool.name}`, kind INTERNAL, `gen_ai.operation.name` = "execute_tool" from
 * the start (the conventions ask for it at creation, for samplers), `error.type` and status ERROR
 * when the call fails. The mnote attributes say where it acted and what it did; never what the
 * page says (no arguments, no results: the conventions' opt-in `gen_ai.tool.call.arguments` and
 * `gen_ai.tool.call.result` are deliberately not recorded).
 */
import type { Attributes, Span } from "@opentelemetry/api";
import { activeOtel } from "../../common/telemetry/otel";
import type { ToolResponse } from "../../generated/types";
import type { ToolDescriptor } from "../../generated/registry";
import { ATTR, EXECUTE_TOOL, TRACER_NAME, tracerVersion } from "../../common/telemetry/attributes";

/** What the dispatcher tells the span while the call runs. */
export interface ToolSpan {
  /** The tool is known (the request named a tool of the contract): name the span after it. */
  identify(tool: Pick<ToolDescriptor, "name" | "providerName" | "description">): void;
}

/**
 * Runs one tool call inside its span (active, so kernel calls become its children) and records
 * the response envelope's outcome on it. The dispatcher never throws; if `run` does anyway, the
 * span records it and the error goes on.
 */
export async function withToolSpan(run: (span: ToolSpan) => Promise<ToolResponse>): Promise<ToolResponse> {
  // nothing registered with OpenTelemetry: the span could not record, so there is none (otel.ts)
  const otel = activeOtel();
  if (!otel) return run(NOT_RECORDING);
  const { SpanKind, SpanStatusCode } = otel;
  const tracer = otel.trace.getTracer(TRACER_NAME, tracerVersion());
  return tracer.startActiveSpan(
    EXECUTE_TOOL,
    { kind: SpanKind.INTERNAL, attributes: { [ATTR.genAiOperationName]: EXECUTE_TOOL } },
    async (span) => {
      // with no SDK registered (or a sampler that drops the span) nothing is recorded: the
      // attributes are not built at all (the dispatch profile showed them on every call)
      const recording = span.isRecording();
      try {
        const response = await run(recording ? { identify: (tool) => identify(span, tool) } : NOT_RECORDING);
        if (recording) {
          span.setAttributes(outcomeAttributes(response));
          if (!response.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: response.error.code });
        }
        return response;
      } catch (e) {
        span.setAttribute(ATTR.errorType, e instanceof Error ? e.name : "_OTHER");
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}

/** The handle of a span that records nothing. */
const NOT_RECORDING: ToolSpan = { identify: () => undefined };

function identify(span: Span, tool: Pick<ToolDescriptor, "name" | "providerName" | "description">): void {
  span.updateName(`${EXECUTE_TOOL} ${tool.name}`);
  span.setAttributes({
    [ATTR.genAiToolName]: tool.name,
    // the conventions' "extension": executed on the agent's side, calling an external API (mnote)
    [ATTR.genAiToolType]: "extension",
    [ATTR.genAiToolDescription]: tool.description,
    [ATTR.mnoteProviderName]: tool.providerName,
  });
}

/**
 * The span attributes of a response envelope: correlation ids, where it acted, the effect, the
 * command id and replay flag, and on failure the error code (as `error.type` too: the catalog's
 * codes are the low-cardinality error classes the conventions ask for). Pure, for tests.
 */
export function outcomeAttributes(response: ToolResponse): Attributes {
  const a: Attributes = {};
  const set = (key: string, value: string | boolean | null | undefined) => {
    if (value !== null && value !== undefined) a[key] = value;
  };
  set(ATTR.genAiToolName, response.toolName);
  set(ATTR.genAiToolCallId, response.toolCallId);
  set(ATTR.mnoteTraceId, response.traceId);
  set(ATTR.mnoteWorkspaceId, response.audit.workspaceId);
  set(ATTR.mnoteDocumentId, response.audit.documentId);
  set(ATTR.mnoteEffect, response.audit.effect);
  set(ATTR.mnoteCommandId, response.audit.commandId);
  set(ATTR.mnoteReplayed, response.audit.replayed ?? false);
  if (!response.ok) {
    set(ATTR.errorType, response.error.code);
    set(ATTR.mnoteErrorCode, response.error.code);
    set(ATTR.mnoteErrorReason, response.error.reason);
  }
  return a;
}
