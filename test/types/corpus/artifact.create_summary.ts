import type { ArtifactCreateSummaryRequest } from "../../../generated/types";
import { host, write } from "./host";

export const toolName = "mnote.artifact.create_summary";

export const valid: ArtifactCreateSummaryRequest[] = [
  { ...host, ...write, toolName: "mnote.artifact.create_summary", args: { summary: "A short summary." } },
  { ...host, ...write, dryRun: true, toolName: "mnote.artifact.create_summary", args: { summary: "摘要", baseRevision: 4 } },
];

export const invalid: ArtifactCreateSummaryRequest[] = [
  // @ts-expect-error a write requires dryRun
  { ...host, idempotencyKey: "key-1", toolName: "mnote.artifact.create_summary", args: { summary: "s" } },
  // @ts-expect-error a write requires idempotencyKey
  { ...host, dryRun: false, toolName: "mnote.artifact.create_summary", args: { summary: "s" } },
  // @ts-expect-error the summary is required
  { ...host, ...write, toolName: "mnote.artifact.create_summary", args: {} },
  // @ts-expect-error the summary is a string
  { ...host, ...write, toolName: "mnote.artifact.create_summary", args: { summary: null } },
  // @ts-expect-error the summary tool is not the note tool
  { ...host, ...write, toolName: "mnote.artifact.create_ai_note", args: { summary: "s" } },
];
