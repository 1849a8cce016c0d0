/** The Agents SDK's Model interface, implemented by a script: one function call, then a final message. */
import { Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";

/** A model that calls one tool, then answers; it keeps every request it was sent. */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly call: { name: string; arguments: string; callId: string }) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output: ModelResponse["output"] =
      this.requests.length === 1
        ? [{ type: "function_call", status: "completed", ...this.call }]
        : [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "done" }],
            },
          ];
    return { usage: new Usage(), output };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}
