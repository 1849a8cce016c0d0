/**
 * The runtime's side of a remote kernel command: a CLIENT span `kernel {command}` around each
 * call, active while the transport sends it, so the transport's `traceContext` hook puts this
 * span's W3C context on the request and the kernel's own span becomes its child.
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { KernelRefusal, KernelTransportError } from "../../generated/kernel/transport";
import type { KernelPort } from "../dispatch/dispatcher";
import { ATTR, TRACER_NAME } from "./attributes";

/** The same kernel port, with one CLIENT span per command. */
export function tracedKernel(port: KernelPort, transport: "http" | "cli"): KernelPort {
  const tracer = trace.getTracer(TRACER_NAME);
  const traced = <R>(command: string, send: () => Promise<R>): Promise<R> =>
    tracer.startActiveSpan(
      `kernel ${command}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { [ATTR.mnoteKernelCommand]: command, [ATTR.mnoteKernelTransport]: transport },
      },
      async (span) => {
        try {
          return await send();
        } catch (e) {
          // a refusal is the kernel's answer; a transport failure is "could not ask"
          const type =
            e instanceof KernelRefusal ? e.code : e instanceof KernelTransportError ? `kernel_${e.kind}` : "_OTHER";
          span.setAttribute(ATTR.errorType, type);
          span.setStatus({ code: SpanStatusCode.ERROR, message: type });
          throw e;
        } finally {
          span.end();
        }
      },
    );
  return {
    accessCheck: (payload) => traced("access.check", () => port.accessCheck(payload)),
    call: (command: string, payload: unknown) => traced(command, () => port.call(command as never, payload as never)),
  };
}
