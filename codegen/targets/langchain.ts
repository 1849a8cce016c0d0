/**
 * generated/langchain/index.ts: the tools as LangChain JS tools (`@langchain/core` 1.4, an optional
 * peer of the package), one `tool(...)` (a DynamicStructuredTool) per contract tool under its
 * model-facing name, for createAgent, a ToolNode or bindTools; and approvalInterruptOn, the
 * humanInTheLoopMiddleware (langchain 1.5) config: a per-call `when` and a `description` that is the
 * runtime's preview, made before the person decides, approve/reject only.
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
    // the file's parts in order, a blank line between them; only the first reads the contract
    const content = [
      banner(model, "ts"),
      langchainImports(model.tools.map((t) => t.providerName)),
      langchainOptions(),
      interruptOnSection(),
      langchainToolsSection(),
      parseResultSection(),
    ].join("\n");
    return [{ path: "langchain/index.ts", content }];
  },
};

/** The imports and re-exports, and the union of the model-facing tool names. */
function langchainImports(toolNames: readonly string[]): string {
  return `import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { DEFAULT_PROVIDER, type ProviderName, type ProviderToolDefinition } from "../providers";
import {
  frameworkToolDefinitions,
  approvalDecider,
  type MnoteToolResult,
  type MnoteToolsOptions,
} from "../frameworks/connection";
import { frameworkCalls } from "../frameworks/approval-step";

export type { MnoteToolResult, MnoteToolsOptions } from "../frameworks/connection";
export type { MnotePreview } from "../frameworks/approval-step";
export { approvalFor } from "../frameworks/connection";

/** The tools' model-facing names (each tool's name). */
export type MnoteLangChainToolName =${literalUnion(toolNames)};
`;
}

/** The options of mnoteTools, and the shape of humanInTheLoopMiddleware's per-tool config. */
function langchainOptions(): string {
  return `export interface MnoteLangChainOptions extends MnoteToolsOptions {
  /** The schema variant the model is shown (default portable; openai-strict for OpenAI's strict mode, gemini for Google). */
  provider?: ProviderName;
  /**
   * The agent puts these tools behind LangChain's humanInTheLoopMiddleware, with \`interruptOn:
   * approvalInterruptOn(options)\`: a call that reaches the tool after the middleware showed the
   * person its preview (its description) was approved there, so it is sent with that preview's
   * token. A call no preview was made for is sent without one, and at ask the runtime writes
   * nothing. Without it (default) no call is sent with a token: a LangChain tool has no approval
   * hook of its own.
   */
  humanInTheLoop?: boolean;
}

/** What humanInTheLoopMiddleware's interruptOn takes for one tool (langchain 1.5's InterruptOnConfig, the parts set here). */
export interface MnoteInterruptOnConfig {
  /** Approve or reject only: an edit would change the arguments after the person saw the preview. */
  allowedDecisions: ("approve" | "reject")[];
  /**
   * Per call: interrupt only when the runtime asks (the one approval decision says ask, and the
   * runtime answered approval_required with a preview); an append or a dry run is not asked about.
   */
  when: (request: { toolCall: { id?: string; args: Record<string, unknown> } }) => Promise<boolean>;
  /** What the person reads: the runtime's preview of exactly this call, made before they decide. */
  description: (toolCall: { id?: string; args: Record<string, unknown> }) => Promise<string>;
}
`;
}

/** approvalInterruptOn: the middleware's config, asking the one approval decision per call, with the runtime's preview as the description. */
function interruptOnSection(): string {
  return `/**
 * Whether the graph is resuming with a person's answer (Command({ resume })): LangGraph keeps the
 * answers in the run's scratchpad, which interrupt() reads; the middleware's when/description run
 * again before it returns the answer. A worker that resumes another's checkpoint has not asked.
 */
function resuming(): boolean {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    | { configurable?: { __pregel_scratchpad?: { resume?: unknown[]; nullResume?: unknown } } }
    | undefined;
  const pad = config?.configurable?.__pregel_scratchpad;
  return pad !== undefined && ((pad.resume?.length ?? 0) > 0 || pad.nullResume !== undefined);
}

/**
 * The interruptOn of humanInTheLoopMiddleware for these tools: every tool, by its model-facing
 * name, with a \`when\` predicate that asks the one approval decision (approvalFor, the runtime's
 * own) about each call, so a page.save that appends is not asked about while a replace is.
 */
export function approvalInterruptOn(options: MnoteLangChainOptions): Record<string, MnoteInterruptOnConfig> {
  const decide = approvalDecider(options);
  const calls = frameworkCalls(options);
  const out: Record<string, MnoteInterruptOnConfig> = Object.create(null) as Record<string, MnoteInterruptOnConfig>;
  for (const definition of frameworkToolDefinitions(options.provider ?? DEFAULT_PROVIDER)) {
    out[definition.name] = {
      allowedDecisions: ["approve", "reject"],
      // a graph resumed by another worker (a checkpoint with the person's answer): the runtime's
      // record of the question asked there, approved only if the runtime had asked it before
      when: async ({ toolCall }) =>
        decide(definition.canonicalName, toolCall.args) === "ask" &&
        toolCall.id !== undefined &&
        (await (resuming() && !calls.previewFor(definition, toolCall.args, toolCall.id) ? calls.resume : calls.preview)(
          definition,
          toolCall.args,
          toolCall.id,
        )) !== undefined,
      // the middleware asks again when the graph resumes: the first preview is given again, so
      // the yes stays bound to the revision the person saw
      description: async (toolCall) => {
        const preview = toolCall.id ? await calls.preview(definition, toolCall.args, toolCall.id) : undefined;
        return preview?.text ?? \`\${definition.name}: no preview (the runtime did not ask); approve sends nothing new\`;
      },
    };
  }
  return out;
}
`;
}

/** mnoteTools: one LangChain tool per contract tool, its schema a Standard JSON Schema that leaves the check to the runtime. */
function langchainToolsSection(): string {
  return `type ToolFields = Parameters<typeof tool>[1];

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
  const calls = frameworkCalls(options);
  const approvedByMiddleware = options.humanInTheLoop === true;
  return frameworkToolDefinitions(options.provider ?? DEFAULT_PROVIDER).map(
    (definition) =>
      tool(
        async (input: unknown, config: { toolCall?: { id?: string } }): Promise<string> => {
          const id = config?.toolCall?.id;
          // behind the middleware, a call reaches the tool only when the person approved the
          // preview its description showed (a rejection never runs the tool)
          if (approvedByMiddleware && id !== undefined) calls.answer(definition, input, id, true);
          // LangChain's ToolMessage carries text: the model view as JSON, failures included
          return JSON.stringify(await calls.run(definition, input, id));
        },
        { name: definition.name, description: definition.description, schema: standardJsonSchema(definition) },
      ) as unknown as DynamicStructuredTool,
  );
}
`;
}

/** parseToolResult: the model view a tool's result text holds, for programs that read results. */
function parseResultSection(): string {
  return `/**
 * The model view a tool's result text holds (for programs that read results), or undefined for a
 * text that is no result: the person's message when they rejected the call in the middleware.
 */
export function parseToolResult(text: string): MnoteToolResult | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const isResult = value !== null && typeof value === "object" && typeof (value as { ok?: unknown }).ok === "boolean";
  return isResult ? (value as MnoteToolResult) : undefined;
}
`;
}
