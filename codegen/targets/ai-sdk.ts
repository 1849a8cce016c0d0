/**
 * generated/ai-sdk/index.ts: the tools as Vercel AI SDK tools (`ai` 7, an optional peer of the
 * package): `tool({ description, strict, inputSchema: jsonSchema(<variant>), execute })`, one per
 * contract tool under its model-facing name, the schema variant chosen by provider (strict: true
 * for openai-strict); and mnoteToolApproval, the app-level toolApproval whose reason is the
 * runtime's preview, made before the person decides (frameworks/approval-step.ts).
 *
 * The SDK's jsonSchema is given no validate function on purpose: the runtime validates the
 * model's raw arguments itself (whatever the provider's conversion dropped, e.g. limits in the
 * Google conversion) and answers invalid_input as a result the model reads, not an exception.
 * execute's toolCallId is the idempotency key's source (hashed exactly by the runtime).
 */
import type { Target } from "./target";
import { banner } from "../support/banner";
import { literalUnion } from "./frameworks";

export const aiSdkTarget: Target = {
  name: "ai-sdk",
  needs: ["frameworks", "providers", "registry"],
  emit(model) {
    // the file's parts in order, a blank line between them; only the first reads the contract
    const content = [
      banner(model, "ts"),
      aiSdkImports(model.tools.map((t) => t.providerName)),
      aiSdkTypes(),
      aiSdkToolsSection(),
      aiSdkApprovalSection(),
    ].join("\n");
    return [{ path: "ai-sdk/index.ts", content }];
  },
};

/** The imports and re-exports, and the union of the model-facing tool names. */
function aiSdkImports(toolNames: readonly string[]): string {
  return `import {
  jsonSchema,
  tool,
  type JSONSchema7,
  type ModelMessage,
  type SingleToolApprovalFunction,
  type Tool,
  type ToolApprovalStatus,
} from "ai";
import { DEFAULT_PROVIDER, type ProviderName, type ProviderToolDefinition } from "../providers";
import { frameworkToolDefinitions, type MnoteToolResult, type MnoteToolsOptions } from "../frameworks/connection";
import { frameworkCalls, type FrameworkCalls } from "../frameworks/approval-step";

export type { MnoteToolResult, MnoteToolsOptions } from "../frameworks/connection";
export type { MnotePreview } from "../frameworks/approval-step";

/** The tools' model-facing names: the keys of what mnoteTools returns. */
export type MnoteAiSdkToolName =${literalUnion(toolNames)};
`;
}

/** The types of one tool, of one tool's approval function, and of the options. */
function aiSdkTypes(): string {
  return `/** One tool: the model's arguments in (checked by the runtime), the model's view of the envelope out. */
export type MnoteAiSdkTool = Tool<Record<string, unknown>, MnoteToolResult, Record<string, unknown>>;

/** The approval function of one tool, as generateText / streamText's toolApproval takes it. */
export type MnoteAiSdkApproval = SingleToolApprovalFunction<Record<string, unknown>, Record<string, unknown>, unknown>;

export interface MnoteAiSdkOptions extends MnoteToolsOptions {
  /** The schema variant the model is shown (default portable; openai-strict for OpenAI's strict mode, gemini for Google). */
  provider?: ProviderName;
}
`;
}

/** mnoteTools: one AI SDK tool per contract tool, its schema handed over with no validate function (the runtime checks). */
function aiSdkToolsSection(): string {
  return `/**
 * The mnote tools for generateText / streamText / an Agent: \`tools: mnoteTools(options)\`, with
 * \`toolApproval: mnoteToolApproval(options)\` beside them. A failure (invalid input, a conflict, an
 * expired session) is the tool's result, for the model to read. A call at ask that did not pass
 * the approval step with a person's yes is answered approval_required, nothing written.
 */
export function mnoteTools(options: MnoteAiSdkOptions): Record<MnoteAiSdkToolName, MnoteAiSdkTool> {
  const calls = frameworkCalls(options);
  const provider = options.provider ?? DEFAULT_PROVIDER;
  const strict = provider === "openai-strict";
  const entries = frameworkToolDefinitions(provider).map((definition) => {
    const aiTool: MnoteAiSdkTool = tool<Record<string, unknown>, MnoteToolResult, Record<string, unknown>>({
      description: definition.description,
      // the openai-strict variant's schemas are strict-shaped: tell the provider to hold the model to them
      ...(strict ? { strict: true } : {}),
      inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters as JSONSchema7),
      execute: (input: Record<string, unknown>, { toolCallId }: { toolCallId: string }) =>
        calls.run(definition, input, toolCallId),
    });
    return [definition.name, aiTool] as const;
  });
  return Object.fromEntries(entries) as Record<MnoteAiSdkToolName, MnoteAiSdkTool>;
}
`;
}

/** mnoteToolApproval: the person's answer read from the resumed messages, and the runtime's preview as the approval's reason. */
function aiSdkApprovalSection(): string {
  return `/**
 * The person's answer to a call's approval request, from the messages the SDK resumes with: the
 * tool-approval-response whose request names this call id (the last one counts).
 */
function personsAnswer(messages: readonly ModelMessage[], toolCallId: string): boolean | undefined {
  const requests = new Set<string>();
  let answer: boolean | undefined;
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) requests.add(part.approvalId);
      if (part.type === "tool-approval-response" && requests.has(part.approvalId)) answer = part.approved === true;
    }
  }
  return answer;
}

function approvalOf(calls: FrameworkCalls, definition: ProviderToolDefinition): MnoteAiSdkApproval {
  return async (input, { toolCallId, messages }): Promise<ToolApprovalStatus> => {
    const answer = personsAnswer(messages, toolCallId);
    if (answer !== undefined) {
      // the SDK resumes with the person's answer: a yes marks the very call they were shown. A
      // history continued by another request or process: the runtime's record of the question
      // asked there (the shared store), approved only if the runtime had asked it before
      if (!calls.previewFor(definition, input, toolCallId)) await calls.resume(definition, input, toolCallId);
      calls.answer(definition, input, toolCallId, answer);
      const shown = calls.previewFor(definition, input, toolCallId);
      if (shown) return { type: "user-approval", reason: shown.text };
    }
    // before the person decides: the runtime's preview (a dry run, nothing written), as the reason
    const preview = await calls.preview(definition, input, toolCallId);
    return preview ? { type: "user-approval", reason: preview.text } : "not-applicable";
  };
}

/**
 * The toolApproval of generateText / streamText / ToolLoopAgent for these tools (spread it with
 * your own tools' entries): a call at ask gets the runtime's preview as the approval request's
 * \`reason\`, made before the person decides; the person's yes then sends the call with that
 * preview's token, so the write is the change they saw (a page changed since is a conflict).
 */
export function mnoteToolApproval(options: MnoteAiSdkOptions): Record<MnoteAiSdkToolName, MnoteAiSdkApproval> {
  const calls = frameworkCalls(options);
  const entries = frameworkToolDefinitions(options.provider ?? DEFAULT_PROVIDER).map(
    (definition) => [definition.name, approvalOf(calls, definition)] as const,
  );
  return Object.fromEntries(entries) as Record<MnoteAiSdkToolName, MnoteAiSdkApproval>;
}
`;
}
