/**
 * The start-up check of `serve` and `mcp`: one cheap question to the kernel before serving, so a
 * kernel that cannot be used as configured (a refused token, a CLI adapter that cannot start) stops
 * the server with a clear line instead of failing every call later.
 *
 * The question is `access.check` for a context no kernel knows (ids beginning "mnote_tools_startup"):
 * every kernel has that command, it reads nothing of substance and writes nothing (the reference
 * kernel answers "not authenticated"). Any answer, including a refusal, shows that the kernel takes
 * the runtime's token and that its adapter runs.
 */
import type * as T from "../generated/types";
import { KernelMisconfigured, KernelRefusal, KernelTransportError } from "../generated/kernel/transport";
import type { KernelPort } from "./dispatch/dispatcher";

/** The context of the start-up question: valid ids that name nobody. */
export const STARTUP_CONTEXT: T.KernelContext = {
  workspaceId: "mnote_tools_startup",
  documentId: "mnote_tools_startup",
  actorId: "mnote_tools_startup",
  traceId: "mnote_tools_startup",
  sessionId: "mnote_tools_startup",
  runId: "mnote_tools_startup",
  toolCallId: "mnote_tools_startup",
};

export type KernelCheck =
  | { ok: true }
  /** The kernel refuses the token or its adapter cannot start: serving would fail every call. */
  | { ok: false; misconfigured: true; message: string }
  /** Down, slow, or answering something else: calls answer kernel_unavailable until it is back. */
  | { ok: false; misconfigured: false; message: string };

/** Asks the kernel once, waiting at most timeoutMs. Never throws. */
export async function checkKernel(kernel: Pick<KernelPort, "accessCheck">, timeoutMs: number): Promise<KernelCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new KernelTransportError("timeout", `no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([kernel.accessCheck({ context: STARTUP_CONTEXT }), timeout]);
    return { ok: true };
  } catch (e) {
    if (e instanceof KernelRefusal) return { ok: true }; // it answered: token and adapter work
    if (e instanceof KernelMisconfigured) return { ok: false, misconfigured: true, message: e.message };
    return { ok: false, misconfigured: false, message: (e as Error)?.message ?? String(e) };
  } finally {
    clearTimeout(timer);
  }
}
