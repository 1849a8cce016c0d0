/**
 * The reference kernel's command handlers, by contract command name. Adding a kernel command to
 * the contract means one new file here and one line in this map; the kernel refuses to start while
 * a contract command has no handler.
 */
import type { CommandHandler } from "../port";
import { accessCheck } from "./access.check";
import { pageSnapshotRead } from "./page.snapshot.read";
import { pageBodySave } from "./page.body.save";
import { pageHeadUpdateTitle } from "./page.head.updateTitle";
import { pageLayoutUpdateOptions } from "./page.layout.updateOptions";
import { artifactSummaryUpsert } from "./artifact.summary.upsert";
import { artifactAiNoteCreate } from "./artifact.aiNote.create";
import { commandStatus } from "./command.status";

export type { CommandHandler, CommandReply } from "../port";

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
