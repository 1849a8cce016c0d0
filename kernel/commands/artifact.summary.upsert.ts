/** artifact.summary.upsert: the page's one summary, created or updated in place, with its reference edge. */
import type * as T from "../../generated/types";
import { randomId } from "../../common/ids";
import { edgeOf, ensureEdge } from "../edges";
import type { CommandReply, KernelPort } from "../port";

export function artifactSummaryUpsert(
  kernel: KernelPort,
  payload: T.ArtifactSummaryUpsertPayload,
  command: string,
): CommandReply {
  return kernel.write(command, payload, (page) => {
    const existing = kernel.sql("SELECT id FROM artifacts WHERE page_id = ? AND type = 'summary'").get(page.id) as
      { id: string } | undefined;
    const edge = existing ? edgeOf(kernel, existing.id, page.id) : undefined;
    const { summary } = payload.args;
    return {
      diff: [
        { op: existing ? "update_summary" : "create_summary", chars: [...summary].length },
        { op: edge ? "confirm_edge" : "create_edge" },
      ],
      apply: (commandId) => {
        const context = payload.context;
        let artifactId: string;
        if (existing) {
          artifactId = existing.id;
          kernel
            .sql("UPDATE artifacts SET content = ?, updated_command_id = ? WHERE id = ?")
            .run(summary, commandId, artifactId);
        } else {
          artifactId = randomId("sum");
          kernel
            .sql(
              "INSERT INTO artifacts (id, workspace_id, page_id, type, title, content, created_by, created_command_id, updated_command_id) VALUES (?, ?, ?, 'summary', NULL, ?, ?, ?, ?)",
            )
            .run(artifactId, context.workspaceId, page.id, summary, context.actorId, commandId, commandId);
        }
        const { edgeId, edgeCreated } = ensureEdge(kernel, artifactId, page.id, commandId);
        return { commandName: command, artifactId, artifactType: "summary", created: !existing, edgeId, edgeCreated };
      },
    };
  });
}
