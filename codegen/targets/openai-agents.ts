/**
 * generated/openai-agents/index.ts: the tools as OpenAI Agents SDK function tools
 * (`@openai/agents`, an optional peer of the package): `tool({ name, description, parameters,
 * strict, needsApproval, execute })`, one per contract tool under its model-facing name. With
 * strict on (the SDK's default) the parameters are the openai-strict variant (every property
 * required, optional ones nullable); the runtime's raise step turns those nulls back into "absent".
 * needsApproval makes the runtime's preview before the person decides (frameworks/approval-step.ts);
 * the app shows it with mnotePreview(options, interruption); execute sends the preview's token only
 * for a call the run's own approval record says the person approved.
 *
 * The SDK does not validate a JSON-schema tool's input (it only parses the JSON): the runtime
 * validates the model's raw arguments and answers invalid_input as the tool's result.
 * The call id the SDK hands execute (details.toolCall.callId) is the idempotency key's source.
 */
import type { Target } from "./target";
import { banner } from "../support/banner";
import { literalUnion } from "./frameworks";

export const openAiAgentsTarget: Target = {
  name: "openai-agents",
  needs: ["frameworks", "providers", "registry"],
  emit(model) {
    // the file's parts in order, a blank line between them; only the first reads the contract
    const content = [
      banner(model, "ts"),
      agentsImports(model.tools.map((t) => t.providerName)),
      agentsTypes(),
      agentsToolsSection(),
      agentsPreviewSection(),
    ].join("\n");
    return [{ path: "openai-agents/index.ts", content }];
  },
};

/** The imports and re-exports, and the union of the model-facing tool names. */
function agentsImports(toolNames: readonly string[]): string {
  return `import { tool, type FunctionTool, type RunContext, type RunToolApprovalItem, type ToolInputParameters } from "@openai/agents";
import { frameworkToolDefinitions, type MnoteToolResult, type MnoteToolsOptions } from "../frameworks/connection";
import { frameworkCalls, type MnotePreview } from "../frameworks/approval-step";
import type { ProviderToolDefinition } from "../providers";

export type { MnoteToolResult, MnoteToolsOptions } from "../frameworks/connection";
export type { MnotePreview } from "../frameworks/approval-step";

/** The tools' model-facing names (each tool's name). */
export type MnoteAgentsToolName =${literalUnion(toolNames)};
`;
}

/** The tool and options types, and the provider variant the strict option picks. */
function agentsTypes(): string {
  return `/** One tool; its name is one of MnoteAgentsToolName. */
export type MnoteAgentsTool = FunctionTool<unknown, ToolInputParameters, MnoteToolResult>;

export interface MnoteAgentsOptions extends MnoteToolsOptions {
  /** OpenAI strict mode (default true, as the SDK's): the openai-strict variant; false: the portable one. */
  strict?: boolean;
}

type StrictOptions = Extract<Parameters<typeof tool>[0], { strict?: true }>;
type NonStrictOptions = Extract<Parameters<typeof tool>[0], { strict: false }>;

const definitionsOf = (options: MnoteAgentsOptions) =>
  frameworkToolDefinitions((options.strict ?? true) ? "openai-strict" : "portable");
`;
}

/** mnoteTools: one function tool per contract tool, needsApproval making the runtime's preview, execute checking the run's own approval record. */
function agentsToolsSection(): string {
  return `/**
 * The mnote tools for an Agent: \`new Agent({ tools: mnoteTools(options) })\`. A call at ask stops
 * the run with an interruption; needsApproval has made the runtime's preview first (nothing
 * written): show it with mnotePreview(options, interruption), then state.approve or state.reject.
 */
export function mnoteTools(options: MnoteAgentsOptions): MnoteAgentsTool[] {
  const strict = options.strict ?? true;
  const calls = frameworkCalls(options);
  return definitionsOf(options).map((definition) => {
    const common = {
      name: definition.name,
      description: definition.description,
      // the SDK asks this before the person decides: at ask, the runtime's dry run and token
      // (a RunState resumed in another process already holds the yes: the runtime's record of the
      // question asked before, from the shared store; a fresh question nobody saw is never approved)
      needsApproval: async (context: RunContext, input: unknown, callId?: string) => {
        if (callId === undefined) return false;
        const resumed =
          typeof context?.isToolApproved === "function" &&
          context.isToolApproved({ toolName: definition.name, callId }) === true &&
          calls.previewFor(definition, input, callId) === undefined;
        const ask = resumed ? calls.resume : calls.preview;
        return (await ask(definition, input, callId)) !== undefined;
      },
      // the SDK parsed the JSON only; the runtime checks the arguments (invalid_input is a result)
      execute: (input: unknown, context?: RunContext, details?: { toolCall?: { callId?: string } }) => {
        const callId = details?.toolCall?.callId;
        // the proof that the SDK's approval step ran and the person said yes: the run's own record
        // of it for this call id, and exactly one previewed call under that id (a call id the
        // model reused for other arguments is never approved by the id alone)
        if (
          callId !== undefined &&
          typeof context?.isToolApproved === "function" &&
          context.isToolApproved({ toolName: definition.name, callId }) === true &&
          calls.previewsOfCallId(definition, callId) === 1
        )
          calls.answer(definition, input, callId, true);
        return calls.run(definition, input, callId);
      },
    };
    const made = strict
      ? tool({ ...common, strict: true, parameters: definition.parameters as StrictOptions["parameters"] })
      : tool({ ...common, strict: false, parameters: definition.parameters as NonStrictOptions["parameters"] });
    return made as unknown as MnoteAgentsTool;
  });
}
`;
}

/** mnotePreview: the preview to show for one of the run's interruptions. */
function agentsPreviewSection(): string {
  return `function parsedArguments(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * What to show the person for one of the run's interruptions (result.interruptions): the
 * runtime's preview of exactly that call, made by needsApproval before the run stopped; undefined
 * for an interruption that is not an mnote call of these options. Works in any process that
 * shares the runtime's store: a RunState resumed elsewhere gets the preview from the approval
 * record the first process made (askedBefore), never from that process's memory; the token is
 * never in the state the app stores.
 */
export async function mnotePreview(
  options: MnoteAgentsOptions,
  interruption: RunToolApprovalItem,
): Promise<MnotePreview | undefined> {
  const raw = interruption.rawItem as { type?: string; callId?: string };
  if (raw.type !== "function_call" || typeof raw.callId !== "string") return undefined;
  const definition: ProviderToolDefinition | undefined = definitionsOf(options).find((d) => d.name === interruption.name);
  if (!definition) return undefined;
  return frameworkCalls(options).preview(definition, parsedArguments(interruption.arguments), raw.callId);
}
`;
}
