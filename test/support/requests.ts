/** Valid requests for the six tools, as test material. */
export const sampleArgs: Record<string, Record<string, unknown>> = {
  "mnote.page.get": { includeBody: true, includeOptions: true, includeBlocks: true },
  "mnote.page.save": {
    content: [
      { type: "heading", text: "Plan", level: 2 },
      { type: "paragraph", text: "First step." },
    ],
    mode: "append",
    baseRevision: 0,
  },
  "mnote.page.update_title": { title: "Project plan", baseRevision: 0 },
  "mnote.page.update_options": { options: { smallText: true }, baseRevision: 0 },
  "mnote.artifact.create_summary": { summary: "A plan in two steps.", baseRevision: 0 },
  "mnote.artifact.create_ai_note": { content: "Step two depends on step one.", title: "Dependencies" },
};

export interface RequestIds {
  workspaceId?: string;
  documentId?: string;
  actorId?: string;
  sessionId?: string;
  capabilityScope?: string[];
}

let counter = 0;

/** A full request envelope; write tools get an idempotency key and dryRun false unless told otherwise. */
export function makeRequest(
  toolName: string,
  args: Record<string, unknown> = sampleArgs[toolName]!,
  overrides: Record<string, unknown> = {},
  ids: RequestIds = {},
): Record<string, unknown> {
  counter++;
  const isWrite = toolName !== "mnote.page.get";
  return {
    toolName,
    workspaceId: ids.workspaceId ?? "ws_1",
    documentId: ids.documentId ?? "doc_1",
    actorId: ids.actorId ?? "user_1",
    sessionId: ids.sessionId ?? "sess_1",
    runId: "run_1",
    toolCallId: `call_${counter}`,
    traceId: "trace_1",
    capabilityScope: ids.capabilityScope ?? ["page.read", "page.write", "artifact.write"],
    ...(isWrite ? { idempotencyKey: `key_${counter}_${Math.random().toString(36).slice(2)}`, dryRun: false } : {}),
    args,
    ...overrides,
  };
}
