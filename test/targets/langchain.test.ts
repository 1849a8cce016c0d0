/**
 * The langchain target through LangChain's own agent loop (createAgent: the model node, then the
 * ToolNode, then the model again), driven by LangChain's fake chat model (fakeModel from
 * @langchain/core/testing): it asks for one tool call, then, having read the ToolMessage, answers.
 * What the model read is what the test checks.
 *
 * LangChain checks a plain JSON Schema input itself (@cfworker/json-schema) and answers a refusal
 * with its own prose; the target's input goes to our validator instead, whose refusal is the
 * contract's invalid_input envelope (checked by the scenario's invalid-argument case).
 */
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { mnoteTools, parseToolResult } from "../../generated/langchain";
import { providerTools } from "../../generated/providers";
import { frameworkScenario, type MakeDriver } from "./scenario";

const langchainDriver: MakeDriver = (options) => {
  const tools = mnoteTools(options);
  return async (toolName, args, id) => {
    const model = fakeModel()
      .respondWithTools([{ name: toolName, args: args as Record<string, unknown>, id }])
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools });
    await agent.invoke({ messages: [new HumanMessage("Work on the page.")] });
    const read = model.calls[1]?.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === id);
    if (!read) throw new Error("the model never read the tool's result");
    return parseToolResult(String(read.content));
  };
};

frameworkScenario("LangChain", langchainDriver);

describe("LangChain: what the model is shown", () => {
  const fake = { dispatcher: { callModelTool: () => Promise.reject(new Error("not called")) } };
  it.each(["portable", "openai-strict", "gemini"] as const)(
    "the %s variant: every tool under its model-facing name, the variant's schema as the tool's parameters",
    (provider) => {
      const tools = mnoteTools({ connection: fake, session: { sessionId: "sess_x" }, provider });
      expect(tools.map((t) => t.name).sort()).toEqual(providerTools[provider].map((d) => d.name).sort());
      for (const definition of providerTools[provider]) {
        const made = tools.find((t) => t.name === definition.name)!;
        const shown = convertToOpenAITool(made);
        expect(shown.function).toMatchObject({ name: definition.name, description: definition.description });
        expect(shown.function.parameters).toEqual(definition.parameters);
      }
    },
  );
});
