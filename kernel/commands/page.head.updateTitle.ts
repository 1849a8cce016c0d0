/** page.head.updateTitle: rename the page; the same title again changes nothing and keeps the revision. */
import type * as T from "../../generated/types";
import type { CommandReply, KernelPort } from "../port";

export function pageHeadUpdateTitle(
  kernel: KernelPort,
  payload: T.PageHeadUpdateTitlePayload,
  command: string,
): CommandReply {
  return kernel.write(command, payload, (page) => {
    const { title } = payload.args;
    if (title === page.title) return { diff: [], apply: () => ({ commandName: command, revision: page.revision }) };
    return {
      diff: [{ op: "set_title", value: title, previous: page.title }],
      apply: () => {
        kernel.sql("UPDATE pages SET title = ? WHERE id = ?").run(title, page.id);
        return { commandName: command, revision: kernel.bumpRevision(page) };
      },
    };
  });
}
