/**
 * The reference kernel's command handlers, by contract command name. Adding a kernel command to
 * the contract means one new file here and one line in this map; the kernel refuses to start while
 * a contract command has no handler.
 */
import type { ReferenceKernel } from "../reference-kernel";
import { accessCheck } from "./access.check";
import { pageSnapshotRead } from "./page.snapshot.read";
import { pageBodySave } from "./page.body.save";
import { pageHeadUpdateTitle } from "./page.head.updateTitle";
import { pageLayoutUpdateOptions } from "./page.layout.updateOptions";
import { artifactSummaryUpsert } from "./artifact.summary.upsert";
import { artifactAiNoteCreate } from "./artifact.aiNote.create";
import { commandStatus } from "./command.status";

/** What every command answers: the KernelReply result of the generated client. */
export interface CommandReply {
  commandId: string | null;
  replayed: boolean;
  result: unknown;
}

/**
 * One command: the kernel, the payload (already checked against the contract by whoever sent it),
 * and the command's name as the contract spells it.
 */
export type CommandHandler = (kernel: ReferenceKernel, payload: never, command: string) => CommandReply;

export const commandHandlers: Readonly<Record<string, CommandHandler>> = {
  "access.check": accessCheck,
  "page.snapshot.read": pageSnapshotRead,
  "page.body.save": pageBodySave,
  "page.head.updateTitle": pageHeadUpdateTitle,
  "page.layout.updateOptions": pageLayoutUpdateOptions,
  "artifact.summary.upsert": artifactSummaryUpsert,
  "artifact.aiNote.create": artifactAiNoteCreate,
  "command.status": commandStatus,
};
