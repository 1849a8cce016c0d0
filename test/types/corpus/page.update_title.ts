import type { PageUpdateTitleRequest } from "../../../generated/types";
import { host, write } from "./host";

export const toolName = "mnote.page.update_title";

export const valid: PageUpdateTitleRequest[] = [
  { ...host, ...write, toolName: "mnote.page.update_title", args: { title: "New title" } },
  { ...host, ...write, dryRun: true, toolName: "mnote.page.update_title", args: { title: "新标题", baseRevision: 0 } },
];

export const invalid: PageUpdateTitleRequest[] = [
  // @ts-expect-error a write requires idempotencyKey
  { ...host, dryRun: false, toolName: "mnote.page.update_title", args: { title: "t" } },
  // @ts-expect-error a write requires dryRun
  { ...host, idempotencyKey: "key-1", toolName: "mnote.page.update_title", args: { title: "t" } },
  // @ts-expect-error the title is required
  { ...host, ...write, toolName: "mnote.page.update_title", args: {} },
  // @ts-expect-error the title is a string
  { ...host, ...write, toolName: "mnote.page.update_title", args: { title: 5 } },
  // @ts-expect-error no such argument
  { ...host, ...write, toolName: "mnote.page.update_title", args: { title: "t", subtitle: "s" } },
];
