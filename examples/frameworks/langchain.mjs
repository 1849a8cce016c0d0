import { createAgent } from "langchain";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { mnoteTools, parseToolResult } from "@mnote/contract/langchain";

const tools = mnoteTools({ connection: { url: "http://127.0.0.1:8792", token: "T" }, session: { sessionId: "S" } });
// a scripted stand-in for your chat model (new ChatOpenAI(...), ...): a tool call, then text
const model = fakeModel()
  .respondWithTools([{ name: "mnote_page_get", args: {}, id: "call_1" }])
  .respond(new AIMessage("Ok."));
const { messages } = await createAgent({ model, tools }).invoke({
  messages: [{ role: "user", content: "What is here?" }],
});
const read = parseToolResult(messages.find((m) => ToolMessage.isInstance(m)).content); // the envelope the model read
console.log(read.ok ? `${read.toolName}: ${read.result.title} (revision ${read.result.revision})` : read.error.message);
process.exitCode = read.ok ? 0 : 1;
