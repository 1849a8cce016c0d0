/**
 * The host-filled envelope fields every corpus request shares. Each corpus file lists, for one
 * tool, requests that must type-check (`valid`) and requests that must not (`invalid`, each one
 * line under a `// @ts-expect-error` saying why). test/types/corpus.test.ts type-checks these files
 * with tsc and runs every value through the tool's generated validator: the two must agree.
 */
import type { ToolRequest } from "../../../generated/types";

export const host: Pick<ToolRequest, "workspaceId" | "documentId" | "actorId" | "sessionId" | "runId" | "toolCallId" | "traceId" | "capabilityScope"> = {
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  sessionId: "sess_1",
  runId: "run_1",
  toolCallId: "call_1",
  traceId: "trace_1",
  capabilityScope: ["page.read", "page.write", "artifact.write"],
};

/** What a write must carry besides the host fields: the idempotency key and dryRun. */
export const write = { idempotencyKey: "key-1", dryRun: false } as const;
