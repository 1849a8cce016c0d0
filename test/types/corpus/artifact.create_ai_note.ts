import type { ArtifactCreateAiNoteRequest } from "../../../generated/types";
import { host, write } from "./host";

export const toolName = "mnote.artifact.create_ai_note";

export const valid: ArtifactCreateAiNoteRequest[] = [
  { ...host, ...write, toolName: "mnote.artifact.create_ai_note", args: { content: "A note." } },
  { ...host, ...write, dryRun: true, toolName: "mnote.artifact.create_ai_note", args: { content: "笔记", title: "标题", baseRevision: 1 } },
];

export const invalid: ArtifactCreateAiNoteRequest[] = [
  // @ts-expect-error a write requires idempotencyKey
  { ...host, dryRun: false, toolName: "mnote.artifact.create_ai_note", args: { content: "n" } },
  // @ts-expect-error a write requires dryRun
  { ...host, idempotencyKey: "key-1", toolName: "mnote.artifact.create_ai_note", args: { content: "n" } },
  // @ts-expect-error the content is a string
  { ...host, ...write, toolName: "mnote.artifact.create_ai_note", args: { content: 1 } },
  // @ts-expect-error the title is a string when given
  { ...host, ...write, toolName: "mnote.artifact.create_ai_note", args: { content: "n", title: null } },
  // @ts-expect-error the content is required
  { ...host, ...write, toolName: "mnote.artifact.create_ai_note", args: { title: "t" } },
];
