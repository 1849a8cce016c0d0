/**
 * generated/ai-sdk/index.ts: the tools as Vercel AI SDK tools (`ai` 6, an optional peer of the
 * package): `tool({ description, inputSchema: jsonSchema(<variant>), needsApproval, execute })`,
 * one per contract tool under its model-facing name, the schema variant chosen by provider.
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
    const content = `${banner(model, "ts")}
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import { DEFAULT_PROVIDER, type ProviderName } from "../providers";
import {
  approvalDecider,
  frameworkToolDefinitions,
  frameworkToolRunner,
  type MnoteToolResult,
  type MnoteToolsOptions,
} from "../frameworks/connection";

export type { MnoteToolResult, MnoteToolsOptions } from "../frameworks/connection";

/** The tools' model-facing names: the keys of what mnoteTools returns. */
export type MnoteAiSdkToolName =${literalUnion(model.tools.map((t) => t.providerName))};

/** One tool: the model's arguments in (checked by the runtime), the model's view of the envelope out. */
export type MnoteAiSdkTool = Tool<Record<string, unknown>, MnoteToolResult, Record<string, unknown>>;

export interface MnoteAiSdkOptions extends MnoteToolsOptions {
  /** The schema variant the model is shown (default portable; openai-strict for OpenAI's strict mode, gemini for Google). */
  provider?: ProviderName;
}

/**
 * The mnote tools for generateText / streamText / an Agent: \`tools: mnoteTools({ connection, session })\`.
 * A failure (invalid input, a conflict, an expired session) is the tool's result, for the model to read.
 */
export function mnoteTools(options: MnoteAiSdkOptions): Record<MnoteAiSdkToolName, MnoteAiSdkTool> {
  const run = frameworkToolRunner(options);
  const decide = approvalDecider(options);
  const provider = options.provider ?? DEFAULT_PROVIDER;
  const strict = provider === "openai-strict";
  const entries = frameworkToolDefinitions(provider).map((definition) => {
    const aiTool: MnoteAiSdkTool = tool<Record<string, unknown>, MnoteToolResult, Record<string, unknown>>({
      description: definition.description,
      // the openai-strict variant's schemas are strict-shaped: tell the provider to hold the model to them
      ...(strict ? { strict: true } : {}),
      inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters as JSONSchema7),
      // one approval decision for every framework (frameworks/connection.ts): ask -> the SDK stops
      // with a tool-approval-request and runs execute only once the person approved it, so
      // execute may send the runtime's approval token back for exactly those calls
      needsApproval: (input: Record<string, unknown>) => decide(definition.canonicalName, input) === "ask",
      execute: (input: Record<string, unknown>, { toolCallId }: { toolCallId: string }) =>
        run(definition, input, toolCallId, decide(definition.canonicalName, input) === "ask"),
    });
    return [definition.name, aiTool] as const;
  });
  return Object.fromEntries(entries) as Record<MnoteAiSdkToolName, MnoteAiSdkTool>;
}
`;
    return [{ path: "ai-sdk/index.ts", content }];
  },
};
