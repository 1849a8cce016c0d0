import type { PageGetRequest } from "../../../generated/types";
import { host } from "./host";

export const toolName = "mnote.page.get";

export const valid: PageGetRequest[] = [
  { ...host, toolName: "mnote.page.get", args: {} },
  { ...host, toolName: "mnote.page.get", args: { includeBody: false, includeOptions: true, includeBlocks: false } },
  { ...host, toolName: "mnote.page.get", args: {}, locale: "en" },
  { ...host, toolName: "mnote.page.get", args: {}, idempotencyKey: "k", dryRun: false },
];

export const invalid: PageGetRequest[] = [
  // @ts-expect-error includeBody is a boolean
  { ...host, toolName: "mnote.page.get", args: { includeBody: "yes" } },
  // @ts-expect-error no such argument
  { ...host, toolName: "mnote.page.get", args: { includeComments: true } },
  // @ts-expect-error another tool's name
  { ...host, toolName: "mnote.page.save", args: {} },
  // @ts-expect-error args are required
  { ...host, toolName: "mnote.page.get" },
  // @ts-expect-error no such locale
  { ...host, toolName: "mnote.page.get", args: {}, locale: "fr" },
  // @ts-expect-error no such capability
  { ...host, toolName: "mnote.page.get", args: {}, capabilityScope: ["page.admin"] },
  // @ts-expect-error no such envelope field
  { ...host, toolName: "mnote.page.get", args: {}, userId: "u" },
  // @ts-expect-error the session is required
  { ...host, toolName: "mnote.page.get", args: {}, sessionId: undefined },
];
