/**
 * One kernel command in, one KernelReply out: what the kernel's HTTP server and its CLI adapter
 * both do. Payloads are checked against the contract before the kernel sees them.
 */
import type { KernelReply } from "../generated/types";
import { KernelRefusal } from "../generated/kernel/transport";
import { ERR, kernelCommandByName } from "../generated/registry";
import type { ReferenceKernel } from "./reference-kernel";

/** The reply to one command: its result, or the kernel's refusal; any other error is thrown (a bug). */
export function executeCommand(kernel: ReferenceKernel, command: string, payload: unknown): KernelReply {
  const descriptor = kernelCommandByName(command);
  if (descriptor && !descriptor.validatePayload(payload)) {
    return { ok: false, error: { code: ERR.invalidInput, reason: "payload" } };
  }
  try {
    return { ok: true, result: kernel.execute(command, payload) as unknown as Record<string, unknown> };
  } catch (e) {
    if (e instanceof KernelRefusal) {
      const error: { code: typeof ERR.invalidInput; reason?: string; field?: string } = {
        code: e.code as typeof ERR.invalidInput,
      };
      if (e.reason !== undefined) error.reason = e.reason;
      if (e.field !== undefined) error.field = e.field;
      return { ok: false, error };
    }
    throw e;
  }
}
