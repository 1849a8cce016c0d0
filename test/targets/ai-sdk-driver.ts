/**
 * The AI SDK's own loop (generateText with tools, two steps), driven by its test model
 * (MockLanguageModelV3, from ai/test): the model calls a tool, the SDK runs it, and the model's
 * next call reads the result. What the model read is what a test checks.
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { mnoteTools } from "../../generated/ai-sdk";
import type { MakeDriver } from "./scenario";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The tool result the model read on its second call (the SDK's tool message), as JSON. */
function readBack(model: MockLanguageModelV3, toolCallId: string): unknown {
  const prompt = model.doGenerateCalls[1]?.prompt ?? [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolCallId === toolCallId) {
        if (part.output.type === "json") return part.output.value;
        throw new Error(`the model read a ${part.output.type} result: ${JSON.stringify(part.output)}`);
      }
    }
  }
  throw new Error("the model never read the tool's result");
}

export const aiSdkDriver =
  (provider?: "portable" | "openai-strict" | "gemini"): MakeDriver =>
  (options) => {
    const tools = mnoteTools({ ...options, provider });
    return async (toolName, args, toolCallId) => {
      let step = 0;
      const model = new MockLanguageModelV3({
        doGenerate: async () =>
          step++ === 0
            ? {
                content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(args) }],
                finishReason: { unified: "tool-calls", raw: undefined },
                usage,
                warnings: [],
              }
            : {
                content: [{ type: "text", text: "done" }],
                finishReason: { unified: "stop", raw: undefined },
                usage,
                warnings: [],
              },
      });
      await generateText({ model, tools, prompt: "Work on the page.", stopWhen: stepCountIs(3) });
      return readBack(model, toolCallId);
    };
  };
