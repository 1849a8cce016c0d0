/**
 * The reference kernel's span per command: `kernel {command}`, kind SERVER, continuing the W3C
 * trace context the runtime sent (the traceparent header over HTTP, the TRACEPARENT environment
 * variable for the CLI adapter), so a tool call and the kernel work it caused are one trace.
 * Identifiers, the command id, the replay flag and the error code only; never page content.
 * `@opentelemetry/api` only: a no-op unless the process started the SDK.
 */
import { SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import type { KernelReply } from "../generated/types";
import { ATTR, TRACER_NAME, tracerVersion } from "../common/telemetry/attributes";
import { continueTrace, type TraceCarrier } from "../common/telemetry/propagation";

/** Runs one kernel command in its span, continued from `carrier`, and records the reply on it. */
export function withCommandSpan(
  command: string,
  payload: unknown,
  carrier: TraceCarrier | undefined,
  transport: "http" | "cli",
  run: () => KernelReply,
): KernelReply {
  return continueTrace(carrier, () =>
    trace
      .getTracer(TRACER_NAME, tracerVersion())
      .startActiveSpan(
        `kernel ${command}`,
        { kind: SpanKind.SERVER, attributes: requestAttributes(command, payload, transport) },
        (span) => {
          try {
            const reply = run();
            span.setAttributes(replyAttributes(reply));
            if (!reply.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: reply.error.code });
            return reply;
          } catch (e) {
            span.setAttribute(ATTR.errorType, e instanceof Error ? e.name : "_OTHER");
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw e;
          } finally {
            span.end();
          }
        },
      ),
  );
}

/** The request's ids (from its KernelContext, when it has one). */
function requestAttributes(command: string, payload: unknown, transport: "http" | "cli"): Attributes {
  const a: Attributes = { [ATTR.mnoteKernelCommand]: command, [ATTR.mnoteKernelTransport]: transport };
  const context = (payload as { context?: Record<string, unknown> } | null)?.context;
  if (context && typeof context === "object") {
    const set = (key: string, v: unknown) => {
      if (typeof v === "string") a[key] = v;
    };
    set(ATTR.mnoteWorkspaceId, context.workspaceId);
    set(ATTR.mnoteDocumentId, context.documentId);
    set(ATTR.mnoteTraceId, context.traceId);
    set(ATTR.mnoteToolCallId, context.toolCallId);
  }
  return a;
}

function replyAttributes(reply: KernelReply): Attributes {
  if (!reply.ok) {
    const a: Attributes = { [ATTR.errorType]: reply.error.code, [ATTR.mnoteErrorCode]: reply.error.code };
    if (reply.error.reason) a[ATTR.mnoteErrorReason] = reply.error.reason;
    return a;
  }
  const a: Attributes = {};
  const { commandId, replayed } = reply.result as { commandId?: unknown; replayed?: unknown };
  if (typeof commandId === "string") a[ATTR.mnoteCommandId] = commandId;
  if (typeof replayed === "boolean") a[ATTR.mnoteReplayed] = replayed;
  return a;
}
