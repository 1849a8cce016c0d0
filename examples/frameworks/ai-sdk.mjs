import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { mnoteTools } from "@mnote/contract/ai-sdk";

const tools = mnoteTools({ connection: { url: "http://127.0.0.1:8791", token: "T" }, session: { sessionId: "S" } });
// a scripted stand-in for your model (openai("gpt-4.1"), google("gemini-2.5-pro"), ...): a tool call, then text
const reply = (unified, ...content) => ({
  content,
  finishReason: { unified },
  usage: { inputTokens: {}, outputTokens: {} },
});
const call = { type: "tool-call", toolCallId: "call_1", toolName: "mnote_page_get", input: "{}" };
const model = new MockLanguageModelV3({
  doGenerate: [reply("tool-calls", call), reply("stop", { type: "text", text: "Ok." })],
});
const { steps } = await generateText({ model, tools, prompt: "What is on this page?", stopWhen: stepCountIs(3) });
const read = steps[0].toolResults[0].output; // the envelope the model read (toolName: the name it called)
console.log(read.ok ? `${read.toolName}: ${read.result.title} (revision ${read.result.revision})` : read.error.message);
process.exitCode = read.ok ? 0 : 1;
