/**
 * page.body.save: append blocks, or replace the body. A save that leaves the body as it is (an
 * empty append, a replace with the same blocks) commits without bumping the revision. A save
 * that would take the page past the contract's pageBlocks limit is refused, dry run included.
 */
import type * as T from "../../generated/types";
import { KernelRefusal } from "../../generated/kernel/transport";
import { ERR } from "../../generated/registry";
import { blockRow, INSERT_BLOCK_SQL, leavesBodyAsIs, planBody } from "../blocks";
import { excerpts } from "../excerpts";
import type { CommandReply, KernelPort } from "../port";

export function pageBodySave(kernel: KernelPort, payload: T.PageBodySavePayload, command: string): CommandReply {
  return kernel.write(command, payload, (page) => {
    const current = kernel.blocksOf(page.id);
    const { content } = payload.args;
    const mode = payload.args.mode ?? "append";
    if (leavesBodyAsIs(current, content, mode)) {
      return { diff: [], apply: () => ({ commandName: command, revision: page.revision }) };
    }
    const next = planBody(current, content, mode);
    if (next.length > kernel.facts.pageBlocks) throw new KernelRefusal(ERR.payloadTooLarge, "page_blocks");
    const diff: T.DiffOp[] =
      mode === "replace"
        ? [
            {
              op: "replace",
              blocks: content.length,
              removedBlocks: current.length,
              excerpts: excerpts(content),
              removedExcerpts: excerpts(current),
            },
          ]
        : [{ op: "append", blocks: content.length, excerpts: excerpts(content) }];
    return {
      diff,
      apply: () => {
        kernel.sql("DELETE FROM blocks WHERE page_id = ?").run(page.id);
        const insert = kernel.sql(INSERT_BLOCK_SQL);
        next.forEach((b, i) => insert.run(...blockRow(page.id, i, b)));
        return { commandName: command, revision: kernel.bumpRevision(page) };
      },
    };
  });
}
