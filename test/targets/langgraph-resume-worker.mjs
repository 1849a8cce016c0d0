/**
 * Process B of the LangGraph resume-anywhere tests (test/targets/resume-anywhere-langgraph.test.ts):
 * its own OS process, its own copy of the generated LangChain target (the package's ESM build),
 * nothing of process A's memory. It opens the threads process A left at their interrupt from the
 * shared checkpointer (a SqliteSaver over one file) and resumes each with the person's decision,
 * against the same runtime's store over HTTP. One JSON job a line on stdin, one JSON answer a line
 * on stdout (so the test asserts the kernel's state between jobs); it ends when stdin ends.
 */
import { createInterface } from "node:readline";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import * as langchain from "../../generated/esm/langchain.mjs";

/** A tool message's text: the mnote result (JSON) or the middleware's own text (a rejection). */
function parsed(content) {
  try {
    return JSON.parse(String(content));
  } catch {
    return { text: String(content) };
  }
}

/** One resume: the interrupt read back from the checkpointer, the decision, what the model then read. */
async function resume(job, checkpointer) {
  const options = { connection: job.connection, session: job.session };
  const agent = createAgent({
    // the resumed graph runs the tool, then asks the model once more: its answer ends the run
    model: fakeModel().respond(new AIMessage("done")),
    tools: langchain.mnoteTools({ ...options, humanInTheLoop: true }),
    middleware: [humanInTheLoopMiddleware({ interruptOn: langchain.approvalInterruptOn(options) })],
    checkpointer,
  });
  // a checkpoint id: the thread as it stood then (a worker that read it before another resumed it)
  const at = job.checkpointId !== undefined ? { checkpoint_id: job.checkpointId } : {};
  const config = { configurable: { thread_id: job.threadId, ...at } };
  // what the person's screen shows from the saved thread: the interrupt's action request
  const saved = await agent.graph.getState(config);
  const request = saved.tasks.flatMap((t) => t.interrupts ?? [])[0]?.value?.actionRequests?.[0];
  const result = await agent.invoke(new Command({ resume: { decisions: [{ type: job.decision }] } }), config);
  const message = result.messages.find((m) => m.type === "tool" && m.tool_call_id === job.toolCallId);
  return {
    pending: request ? { name: request.name, description: request.description } : null,
    read: message ? parsed(message.content) : null,
    interruptedAgain: (result.__interrupt__?.length ?? 0) > 0,
  };
}

const checkpointers = new Map();
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const job = JSON.parse(line);
  if (!checkpointers.has(job.checkpointer))
    checkpointers.set(job.checkpointer, SqliteSaver.fromConnString(job.checkpointer));
  let out;
  try {
    out = await resume(job, checkpointers.get(job.checkpointer));
  } catch (error) {
    out = { error: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
for (const saver of checkpointers.values()) saver.db.close();
