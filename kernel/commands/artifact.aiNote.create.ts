/** artifact.aiNote.create: a new, separate AI note on every call, with its reference edge. */
import type * as T from "../../generated/types";
import { randomId } from "../../common/ids";
import { ensureEdge } from "../edges";
import type { CommandReply, KernelPort } from "../port";

export function artifactAiNoteCreate(
  kernel: KernelPort,
  payload: T.ArtifactAiNoteCreatePayload,
  command: string,
): CommandReply {
  return kernel.write(command, payload, (page) => ({
    diff: [{ op: "create_ai_note", chars: [...payload.args.content].length }, { op: "create_edge" }],
    apply: (commandId) => {
      const artifactId = randomId("note");
      kernel
        .sql(
          "INSERT INTO artifacts (id, workspace_id, page_id, type, title, content, created_by, created_command_id, updated_command_id) VALUES (?, ?, ?, 'ai_note', ?, ?, ?, ?, ?)",
        )
        .run(
          artifactId,
          payload.context.workspaceId,
          page.id,
          payload.args.title ?? null,
          payload.args.content,
          payload.context.actorId,
          commandId,
          commandId,
        );
      const { edgeId, edgeCreated } = ensureEdge(kernel, artifactId, page.id, commandId);
      return { commandName: command, artifactId, artifactType: "ai_note", created: true, edgeId, edgeCreated };
    },
  }));
}
