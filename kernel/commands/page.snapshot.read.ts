/** page.snapshot.read: the page as the actor may see it, with what args ask to include. */
import type * as T from "../../generated/types";
import { bodySummary } from "../blocks";
import type { CommandReply, KernelPort } from "../port";

export function pageSnapshotRead(
  kernel: KernelPort,
  payload: T.PageSnapshotReadPayload,
  command: string,
): CommandReply {
  const page = kernel.requireAccess(payload.context, command);
  const args = payload.args;
  const blocks = kernel.blocksOf(page.id);
  const result: T.PageGetResult = {
    documentId: page.id,
    workspaceId: page.workspace_id,
    title: page.title,
    revision: page.revision,
  };
  if (args.includeBody !== false) result.bodySummary = bodySummary(blocks, kernel.facts.bodySummary);
  if (args.includeOptions !== false) result.pageOptions = kernel.optionsOf(page);
  if (args.includeBlocks !== false) result.blocks = blocks;
  return { commandId: null, replayed: false, result };
}
