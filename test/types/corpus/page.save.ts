import type { PageSaveRequest } from "../../../generated/types";
import { host, write } from "./host";

export const toolName = "mnote.page.save";

const para = { type: "paragraph", text: "hello" } as const;

export const valid: PageSaveRequest[] = [
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [para] } },
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [], mode: "replace", baseRevision: 3 } },
  { ...host, ...write, dryRun: true, toolName: "mnote.page.save", args: { content: [para], mode: "append" } },
  {
    ...host,
    ...write,
    toolName: "mnote.page.save",
    args: {
      content: [
        { type: "heading", text: "Title", level: 2 },
        { type: "to_do", text: "task", checked: true },
      ],
    },
  },
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [{ id: "b_1", type: "code", text: "x = 1", language: "python" }] } },
];

export const invalid: PageSaveRequest[] = [
  // @ts-expect-error a write requires idempotencyKey
  { ...host, dryRun: false, toolName: "mnote.page.save", args: { content: [para] } },
  // @ts-expect-error a write requires dryRun
  { ...host, idempotencyKey: "key-1", toolName: "mnote.page.save", args: { content: [para] } },
  // @ts-expect-error a write requires both
  { ...host, toolName: "mnote.page.save", args: { content: [para] } },
  // @ts-expect-error content is required
  { ...host, ...write, toolName: "mnote.page.save", args: { mode: "append" } },
  // @ts-expect-error no such mode
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [para], mode: "prepend" } },
  // @ts-expect-error no such block type
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [{ type: "table", text: "" }] } },
  // @ts-expect-error a block has no such field
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [{ type: "paragraph", text: "x", color: "red" }] } },
  // @ts-expect-error a block needs its text
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [{ type: "paragraph" }] } },
  // @ts-expect-error baseRevision is a number
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [para], baseRevision: "3" } },
  // @ts-expect-error dryRun is a boolean
  { ...host, ...write, dryRun: "no", toolName: "mnote.page.save", args: { content: [para] } },
  // @ts-expect-error idempotencyKey is a string
  { ...host, ...write, idempotencyKey: 7, toolName: "mnote.page.save", args: { content: [para] } },
  // @ts-expect-error null is not "absent" in the envelope
  { ...host, ...write, toolName: "mnote.page.save", args: { content: [para], baseRevision: null } },
];
