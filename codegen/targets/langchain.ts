/**
 * generated/langchain/index.ts: the tools as LangChain JS tools (`@langchain/core` 1, an optional
 * peer of the package), one `tool(...)` (a DynamicStructuredTool) per contract tool under its
 * model-facing name, for createAgent, a ToolNode or bindTools.
 *
 * Input is checked by our generated validator, in the runtime, before anything acts on it, and a
 * refusal is the contract's invalid_input envelope as the tool's result (not a
 * ToolInputParsingException the agent turns into prose). So the schema is handed to LangChain as a
 * Standard JSON Schema: LangChain shows the model the JSON Schema it carries (toJsonSchema reads
 * ~standard.jsonSchema), and its own JSON Schema check finds no keyword of its to apply and lets the
 * arguments through to the tool, which sends them, unchanged, to the runtime's validator.
 * The ToolCall's id LangChain hands the tool (config.toolCall.id) is the idempotency key's source.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";
import { literalUnion } from "./frameworks";

export const langchainTarget: Target = {
  name: "langchain",
  needs: ["frameworks", "providers", "registry"],
  emit(model) {
    const content = `${banner(model, "ts")}
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import { DEFAULT_PROVIDER, type ProviderName, type ProviderToolDefinition } from "../providers";
import { toolByName, type ApprovalFact } from "../registry";
import type { ApprovalRule } from "../types";
import {
  frameworkToolDefinitions,
  frameworkToolRunner,
  approvalDecider,
  checkedApprovalPolicy,
  type MnoteToolResult,
  type MnoteToolsOptions,
} from "../frameworks/connection";

export type { MnoteToolResult, MnoteToolsOptions } from "../frameworks/connection";
export { approvalFor } from "../frameworks/connection";

/** The tools' model-facing names (each tool's name). */
export type MnoteLangChainToolName =${literalUnion(model.tools.map((t) => t.providerName))};

export interface MnoteLangChainOptions extends MnoteToolsOptions {
  /** The schema variant the model is shown (default portable; openai-strict for OpenAI's strict mode, gemini for Google). */
  provider?: ProviderName;
  /**
   * The agent puts these tools behind LangChain's humanInTheLoopMiddleware, with \`interruptOn:
   * approvalInterruptOn(options)\`: a call the middleware let through was approved by a person, so
   * an approval_required answer is sent back with its token. Without it (default) that answer goes
   * to the model as it is and nothing is written: a LangChain tool has no approval hook of its own.
   */
  humanInTheLoop?: boolean;
}

/** Whether a rule can give ask for some args. */
function mayAsk(rule: ApprovalRule | ApprovalFact | undefined): boolean {
  if (rule === undefined) return false;
  if (typeof rule === "string") return rule === "ask";
  return rule.default === "ask" || (rule.when ?? []).some((c) => c.approval === "ask");
}

/**
 * The interruptOn of humanInTheLoopMiddleware for these tools (LangChain decides per tool, not per
 * call): every tool that the contract or the options' approval policy may hold at ask for some
 * args, by its model-facing name. It may ask about more than the runtime would (page.save appends
 * when only a replace asks), never less.
 */
export function approvalInterruptOn(options: MnoteLangChainOptions): Record<string, boolean> {
  const policy = checkedApprovalPolicy(options.approvalPolicy);
  const sessions = policy?.sessions;
  const session =
    sessions && Object.prototype.hasOwnProperty.call(sessions, options.session.sessionId)
      ? sessions[options.session.sessionId]
      : undefined;
  const out: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  for (const definition of frameworkToolDefinitions(options.provider ?? DEFAULT_PROVIDER)) {
    const name = definition.canonicalName;
    const rules = [toolByName(name)?.approval, policy?.tools?.[name], session?.tools[name]];
    out[definition.name] = rules.some(mayAsk);
  }
  return out;
}

type ToolFields = Parameters<typeof tool>[1];

/**
 * The tool's schema as a Standard JSON Schema (https://standardschema.dev): the JSON Schema for the
 * model, and a validate step that passes the value on as it is, because the check that counts is
 * the runtime's (the generated validator), whose refusal the model reads as invalid_input.
 */
function standardJsonSchema(definition: ProviderToolDefinition): ToolFields["schema"] {
  const schema = definition.parameters;
  return {
    "~standard": {
      version: 1,
      vendor: "mnote",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  } as unknown as ToolFields["schema"];
}

/** The mnote tools for createAgent / ToolNode / bindTools: \`tools: mnoteTools({ connection, session })\`. */
export function mnoteTools(options: MnoteLangChainOptions): DynamicStructuredTool[] {
  const run = frameworkToolRunner(options);
  const decide = approvalDecider(options);
  const approvedByMiddleware = options.humanInTheLoop === true;
  return frameworkToolDefinitions(options.provider ?? DEFAULT_PROVIDER).map(
    (definition) =>
      tool(
        async (input: unknown, config: { toolCall?: { id?: string } }): Promise<string> =>
          // LangChain's ToolMessage carries text: the model view as JSON, failures included
          JSON.stringify(
            await run(
              definition,
              input,
              config?.toolCall?.id,
              approvedByMiddleware && decide(definition.canonicalName, input) === "ask",
            ),
          ),
        { name: definition.name, description: definition.description, schema: standardJsonSchema(definition) },
      ) as unknown as DynamicStructuredTool,
  );
}

/** The model view a tool's result text holds (for programs that read results). */
export function parseToolResult(text: string): MnoteToolResult {
  return JSON.parse(text) as MnoteToolResult;
}
`;
    return [{ path: "langchain/index.ts", content }];
  },
};
