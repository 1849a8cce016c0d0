/**
 * Process B of the resume-anywhere tests (test/targets/resume-anywhere.test.ts): its own OS
 * process, its own copy of a generated framework target (the package's ESM build), nothing of
 * process A's memory. It reads one JSON job on stdin, resumes what process A saved (an Agents SDK
 * RunState, an AI SDK 7 history) against the same runtime's store over HTTP, and prints one JSON
 * line: what it could show the person, and what the model read for the call.
 */
import { Agent, RunState, Runner, Usage } from "@openai/agents";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import * as agents from "../../generated/esm/openai-agents.mjs";
import * as aiSdk from "../../generated/esm/ai-sdk.mjs";

/** A model whose only answer is a final message: the resumed run ends after the tool's result. */
class DoneModel {
  async getResponse() {
    const content = [{ type: "output_text", text: "done" }];
    return { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error("the worker's model does not stream");
  }
}

/** A tool output: the mnote result (JSON) or the SDK's own text (a rejection). */
function parsed(output) {
  if (typeof output !== "string") return output;
  try {
    return JSON.parse(output);
  } catch {
    return { text: output };
  }
}

/** Agents SDK: RunState.fromString, the preview from the store, approve or reject, run. */
async function resumeAgents(job) {
  const options = { connection: job.connection, session: job.session, strict: false };
  const agent = new Agent({ name: job.agentName, model: new DoneModel(), tools: agents.mnoteTools(options) });
  const state = await RunState.fromString(agent, job.state);
  const [item] = state.getInterruptions();
  const preview = job.showPreview ? await agents.mnotePreview(options, item) : undefined;
  if (job.approve) state.approve(item);
  else state.reject(item);
  const result = await new Runner({ tracingDisabled: true }).run(agent, state);
  const outputs = result.newItems.filter((i) => i.type === "tool_call_output_item").map((i) => i.output);
  return {
    preview: preview ?? null,
    read: outputs.length ? parsed(outputs[0]) : null,
  };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** AI SDK 7: the history with the person's answer, continued by this request. */
async function resumeAiSdk(job) {
  const options = { connection: job.connection, session: job.session };
  const model = new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: "text", text: "done" }],
      finishReason: { unified: "stop", raw: undefined },
      usage,
      warnings: [],
    }),
  });
  const result = await generateText({
    model,
    tools: aiSdk.mnoteTools(options),
    toolApproval: aiSdk.mnoteToolApproval(options),
    stopWhen: stepCountIs(3),
    messages: job.messages,
  });
  void result;
  // what the model read for the call: the tool result in the prompt of its next step
  for (const call of model.doGenerateCalls)
    for (const message of call.prompt)
      if (message.role === "tool")
        for (const part of message.content)
          if (part.type === "tool-result")
            return { read: part.output.type === "json" ? part.output.value : null, output: part.output.type };
  return { read: null, output: null };
}

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const job = JSON.parse(input);
const out = job.framework === "openai-agents" ? await resumeAgents(job) : await resumeAiSdk(job);
process.stdout.write(JSON.stringify(out) + "\n");
