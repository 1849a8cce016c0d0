/**
 * command.status: was a write applied? The runtime asks this when the kernel's answer to a write
 * was lost (a timeout, a reset connection), before it answers the caller.
 *
 * "Applied" is exactly what makes a retry replay: a live idempotency record for the write's scope
 * with the same fingerprint. The committed command must belong to the asking actor, workspace and
 * page; anything else is reported as not applied (it never leaks another caller's result).
 * "Not applied" only means not applied yet: the runtime treats it as "cannot tell".
 */
import type * as T from "../../generated/types";
import type { CommandReply, KernelPort } from "../port";

const NOT_APPLIED: T.CommandStatusResult["result"] = {
  applied: false,
  commandId: null,
  commandName: null,
  toolCallId: null,
  result: null,
};

/** Answers command.status from the idempotency table and the command log. */
export function commandStatus(kernel: KernelPort, payload: T.CommandStatusPayload): CommandReply {
  const now = kernel.now();
  const record = kernel
    .sql("SELECT command_id, fingerprint, expires_at FROM idempotency WHERE scope = ?")
    .get(payload.idempotencyScope) as { command_id: string; fingerprint: string; expires_at: number } | undefined;
  if (!record || record.expires_at <= now || record.fingerprint !== payload.fingerprint)
    return { commandId: null, replayed: false, result: NOT_APPLIED };
  const logged = kernel
    .sql(
      "SELECT command_id, command_name, actor_id, workspace_id, document_id, tool_call_id, result_json FROM command_log WHERE command_id = ?",
    )
    .get(record.command_id) as
    | {
        command_id: string;
        command_name: string;
        actor_id: string;
        workspace_id: string;
        document_id: string;
        tool_call_id: string;
        result_json: string;
      }
    | undefined;
  const c = payload.context;
  if (
    !logged ||
    logged.actor_id !== c.actorId ||
    logged.workspace_id !== c.workspaceId ||
    logged.document_id !== c.documentId
  ) {
    return { commandId: null, replayed: false, result: NOT_APPLIED };
  }
  return {
    commandId: null,
    replayed: false,
    result: {
      applied: true,
      commandId: logged.command_id,
      commandName: logged.command_name,
      toolCallId: logged.tool_call_id,
      result: JSON.parse(logged.result_json) as Record<string, unknown>,
    },
  };
}
