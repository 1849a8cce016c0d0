import type { PageUpdateOptionsRequest } from "../../../generated/types";
import { host, write } from "./host";

export const toolName = "mnote.page.update_options";

export const valid: PageUpdateOptionsRequest[] = [
  { ...host, ...write, toolName: "mnote.page.update_options", args: { options: { wideLayout: true } } },
  { ...host, ...write, toolName: "mnote.page.update_options", args: { options: { smallText: false, showToc: true }, baseRevision: 2 } },
  { ...host, ...write, dryRun: true, toolName: "mnote.page.update_options", args: { options: { wideLayout: true, smallText: true, showToc: false, protectEditing: false } } },
];

export const invalid: PageUpdateOptionsRequest[] = [
  // @ts-expect-error at least one option (minProperties 1)
  { ...host, ...write, toolName: "mnote.page.update_options", args: { options: {} } },
  // @ts-expect-error no such option
  { ...host, ...write, toolName: "mnote.page.update_options", args: { options: { darkMode: true } } },
  // @ts-expect-error an option is a boolean
  { ...host, ...write, toolName: "mnote.page.update_options", args: { options: { wideLayout: "yes" } } },
  // @ts-expect-error options are required
  { ...host, ...write, toolName: "mnote.page.update_options", args: {} },
  // @ts-expect-error a write requires idempotencyKey
  { ...host, dryRun: true, toolName: "mnote.page.update_options", args: { options: { wideLayout: true } } },
  // @ts-expect-error a write requires dryRun
  { ...host, idempotencyKey: "key-1", toolName: "mnote.page.update_options", args: { options: { wideLayout: true } } },
];
