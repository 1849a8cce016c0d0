/**
 * generated/openai-agents/index.ts: the tools as OpenAI Agents SDK function tools
 * (`@openai/agents`, an optional peer of the package): `tool({ name, description, parameters,
 * strict, needsApproval, execute })`, one per contract tool under its model-facing name. With
 * strict on (the SDK's default) the parameters are the openai-strict variant (every property
 * required, optional ones nullable); the runtime's raise step turns those nulls back into "absent".
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
    const content = `${banner(model, "ts")}
import { tool, type FunctionTool, type ToolInputParameters } from "@openai/agents";
import {
  approvalDecider,
  frameworkToolDefinitions,
  frameworkToolRunner,
  type MnoteToolResult,
  type MnoteToolsOptions,
} from "../frameworks/connection";

export type { MnoteToolResult, MnoteToolsOptions } from "../frameworks/connection";

/** The tools' model-facing names (each tool's name). */
export type MnoteAgentsToolName =${literalUnion(model.tools.map((t) => t.providerName))};

/** One tool; its name is one of MnoteAgentsToolName. */
export type MnoteAgentsTool = FunctionTool<unknown, ToolInputParameters, MnoteToolResult>;

export interface MnoteAgentsOptions extends MnoteToolsOptions {
  /** OpenAI strict mode (default true, as the SDK's): the openai-strict variant; false: the portable one. */
  strict?: boolean;
}

type StrictOptions = Extract<Parameters<typeof tool>[0], { strict?: true }>;
type NonStrictOptions = Extract<Parameters<typeof tool>[0], { strict: false }>;

/** The mnote tools for an Agent: \`new Agent({ tools: mnoteTools({ connection, session }) })\`. */
export function mnoteTools(options: MnoteAgentsOptions): MnoteAgentsTool[] {
  const strict = options.strict ?? true;
  const run = frameworkToolRunner(options);
  const decide = approvalDecider(options);
  return frameworkToolDefinitions(strict ? "openai-strict" : "portable").map((definition) => {
    const common = {
      name: definition.name,
      description: definition.description,
      // one approval decision for every framework (frameworks/connection.ts): ask -> the run stops
      // with an interruption and runs execute only once state.approve() was given, so execute may
      // send the runtime's approval token back for exactly those calls
      needsApproval: async (_context: unknown, input: unknown) => decide(definition.canonicalName, input) === "ask",
      // the SDK parsed the JSON only; the runtime checks the arguments (invalid_input is a result)
      execute: (input: unknown, _context: unknown, details?: { toolCall?: { callId?: string } }) =>
        run(definition, input, details?.toolCall?.callId, decide(definition.canonicalName, input) === "ask"),
    };
    const made = strict
      ? tool({ ...common, strict: true, parameters: definition.parameters as StrictOptions["parameters"] })
      : tool({ ...common, strict: false, parameters: definition.parameters as NonStrictOptions["parameters"] });
    return made as unknown as MnoteAgentsTool;
  });
}
`;
    return [{ path: "openai-agents/index.ts", content }];
  },
};
