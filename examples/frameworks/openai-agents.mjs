import { Agent, Runner, Usage } from "@openai/agents";
import { mnoteTools } from "@mnote/contract/openai-agents";

const session = { sessionId: "S" };
const tools = mnoteTools({ connection: { url: "http://127.0.0.1:8793", token: "T" }, session, strict: true });
// a scripted stand-in for your model (the SDK's default OpenAI model needs OPENAI_API_KEY): a function call, then text
const call = { type: "function_call", callId: "call_1", name: "mnote_page_get", arguments: "{}", status: "completed" };
const text = {
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "Ok." }],
};
const replies = [[call], [text]];
const model = {
  getResponse: async () => ({ usage: new Usage(), output: replies.shift() }),
  getStreamedResponse: () => [],
};
const result = await new Runner({ tracingDisabled: true }).run(
  new Agent({ name: "page", model, tools }),
  "What is here?",
);
const read = result.newItems.find((item) => item.type === "tool_call_output_item").output; // the envelope the model read
console.log(read.ok ? `${read.toolName}: ${read.result.title} (revision ${read.result.revision})` : read.error.message);
process.exitCode = read.ok ? 0 : 1;
