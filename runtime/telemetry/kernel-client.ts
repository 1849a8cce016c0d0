/**
 * The runtime's side of a remote kernel command: a CLIENT span `kernel {command}` around each
 * call, active while the transport sends it, so the transport's `traceContext` hook puts this
 * span's W3C context on the request and the kernel's own span becomes its child.
 */
import { activeOtel } from "../../common/telemetry/otel";
import { KernelTransportError, type KernelTransport } from "../../generated/kernel/transport";
import { ATTR, TRACER_NAME, tracerVersion } from "../../common/telemetry/attributes";

/**
 * The same transport, with one CLIENT span per command, named by the command the generated client
 * sends (so no command name is written here). A refusal in the reply is the kernel's answer
 * (error.type = its code); a transport failure is "could not ask" (error.type = kernel_<kind>).
 */
export function tracedTransport(send: KernelTransport, transport: "http" | "cli"): KernelTransport {
  return (command, payload) => {
    // nothing registered with OpenTelemetry: no span could record (otel.ts)
    const otel = activeOtel();
    if (!otel) return send(command, payload);
    const { SpanKind, SpanStatusCode } = otel;
    return otel.trace.getTracer(TRACER_NAME, tracerVersion()).startActiveSpan(
      `kernel ${command}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { [ATTR.mnoteKernelCommand]: command, [ATTR.mnoteKernelTransport]: transport },
      },
      async (span) => {
        const fail = (type: string) => {
          span.setAttribute(ATTR.errorType, type);
          span.setStatus({ code: SpanStatusCode.ERROR, message: type });
        };
        try {
          const reply = await send(command, payload);
          const refused = refusalCode(reply);
          if (refused !== undefined) fail(refused);
          return reply;
        } catch (e) {
          fail(e instanceof KernelTransportError ? `kernel_${e.kind}` : "_OTHER");
          throw e;
        } finally {
          span.end();
        }
      },
    );
  };
}

/** The error code of a KernelReply that refused, if the reply is one. */
function refusalCode(reply: unknown): string | undefined {
  if (typeof reply !== "object" || reply === null || (reply as { ok?: unknown }).ok !== false) return undefined;
  const code = (reply as { error?: { code?: unknown } }).error?.code;
  return typeof code === "string" ? code : "_OTHER";
}
