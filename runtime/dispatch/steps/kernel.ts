/**
 * The kernel step: every kernel call under the dispatcher's timeout, and a write's command with
 * the idempotency facts the kernel guards on. When a write's answer is lost (the transport broke,
 * or a misconfigured kernel may have run it), the kernel is asked whether it was applied
 * (reconcile) before anything is answered.
 */
import type * as T from "../../../generated/types";
import type { KernelCommandMap } from "../../../generated/kernel/client";
import { KernelMisconfigured, KernelTransportError } from "../../../generated/kernel/transport";
import { ERR, type KernelCommandName } from "../../../generated/registry";
import { commandIdFor } from "../keys";
import { refuse } from "../tool-failure";
import type { DispatchDeps, Keyed, Outcome, ToolCall } from "./context";

export function withTimeout<R>(
  deps: DispatchDeps,
  promise: Promise<R>,
  ms: number | null = deps.kernelTimeoutMs,
): Promise<R> {
  if (ms === null) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new KernelTransportError("timeout", `no answer from the kernel within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A kernel command under the timeout (the kernel's own promise, not one more around it). */
export function kernelCall(
  deps: DispatchDeps,
  command: KernelCommandName,
  payload: unknown,
): Promise<{ commandId: string | null; replayed: boolean; result: unknown }> {
  return withTimeout(deps, deps.kernel.call(command, payload as KernelCommandMap[typeof command]["payload"]));
}

/** The kernel command of a write, carrying the idempotency facts the kernel guards on. */
export async function applyWrite(deps: DispatchDeps, call: ToolCall, keyed: Keyed): Promise<Outcome> {
  const { context, command } = call;
  const commandId = commandIdFor(command, keyed.scope);
  let reply;
  try {
    reply = await kernelCall(deps, command, {
      context,
      args: call.request.args,
      dryRun: false,
      write: {
        commandId,
        idempotencyKey: keyed.key,
        idempotencyScope: keyed.scope,
        fingerprint: keyed.fingerprint,
        ttlMs: deps.idempotencyTtlMs,
      },
    });
  } catch (e) {
    const lost = e instanceof KernelTransportError || (e instanceof KernelMisconfigured && e.mayHaveRun);
    if (!lost) throw e;
    // The command may have been applied and only its answer lost: ask before answering.
    return reconcile(deps, context, { commandId, scope: keyed.scope, fingerprint: keyed.fingerprint });
  }
  return {
    result: reply.result as Record<string, unknown>,
    effect: "write",
    commandId: reply.commandId as string,
    replayed: reply.replayed,
  };
}

/**
 * After a write's answer was lost: asks the kernel (its status command) whether the write is applied,
 * for at most reconcileMs. Applied: the committed result (replayed when another tool call had
 * committed it). Otherwise outcome_unknown, retryable: a retry with the same key either replays
 * the write or applies it once, so the caller is told exactly that. "Not applied (yet)" is asked
 * again until the time is up, since a write still on its way may commit meanwhile.
 */
async function reconcile(
  deps: DispatchDeps,
  context: T.KernelContext,
  lost: { commandId: string; scope: string; fingerprint: string },
): Promise<Outcome> {
  // real time, not deps.now: a test's frozen clock must not make this loop forever
  const clock = Date.now;
  const deadline = clock() + deps.reconcileMs;
  let pause = 100;
  let misconfigured: KernelMisconfigured | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    const left = deadline - clock();
    if (left <= 0) break;
    try {
      const status = await withTimeout(
        deps,
        deps.kernel.commandStatus({
          context,
          commandId: lost.commandId,
          idempotencyScope: lost.scope,
          fingerprint: lost.fingerprint,
        }),
        deps.kernelTimeoutMs === null ? left : Math.min(left, deps.kernelTimeoutMs),
      );
      const s = status.result;
      if (s.applied && s.commandId !== null && s.result !== null) {
        return {
          result: s.result,
          effect: "write",
          commandId: s.commandId,
          replayed: s.toolCallId !== context.toolCallId,
        };
      }
    } catch (e) {
      // a kernel that cannot be used as configured will not tell later either: say so, not "unknown"
      if (e instanceof KernelMisconfigured) {
        misconfigured = e;
        break;
      }
      // the kernel cannot answer this either (or does not know the status command): cannot tell yet
    }
    const wait = Math.min(pause, deadline - clock());
    if (wait <= 0) break;
    await new Promise((r) => setTimeout(r, wait));
    pause *= 2;
  }
  if (misconfigured) throw misconfigured;
  refuse(ERR.outcomeUnknown);
}
