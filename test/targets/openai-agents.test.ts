/**
 * The openai-agents target through the Agents SDK's own loop (run() of an Agent), driven by a
 * scripted model implementing the SDK's Model interface: first a function call, then, having read
 * the call's result, a final message. What the model read is what the test checks.
 *
 * With strict on (the default) a model fills every optional field with null, as OpenAI's strict
 * mode makes it: the driver sends the arguments that way, and the raise step turns the nulls back.
 */
import { approvalFor } from "../../generated/frameworks/connection";
import { Agent, Runner } from "@openai/agents";
import { ScriptedModel } from "./agents-model";
import { mnoteTools } from "../../generated/openai-agents";
import { providerTools } from "../../generated/providers";
import { toolByProviderName } from "../../generated/registry";
import { fillNulls } from "../support/model-calls";
import { frameworkScenario, type MakeDriver } from "./scenario";

/** The function call result the model read in its second request, parsed. */
function readBack(model: ScriptedModel, callId: string): unknown {
  const input = model.requests[1]?.input;
  if (!Array.isArray(input)) throw new Error("the model was never sent the tool's result");
  for (const item of input) {
    if (item.type === "function_call_result" && item.callId === callId) {
      const output = item.output as string | { type?: string; text?: string };
      const text = typeof output === "string" ? output : output.type === "text" ? output.text : undefined;
      if (text === undefined) throw new Error(`the model read a non-text result: ${JSON.stringify(output)}`);
      return JSON.parse(text);
    }
  }
  throw new Error("the model was never sent the tool's result");
}

const runner = new Runner({ tracingDisabled: true });

const agentsDriver =
  (strict?: boolean): MakeDriver =>
  (options) => {
    const tools = mnoteTools({ ...options, strict });
    return async (toolName, args, callId) => {
      const schema = toolByProviderName(toolName)!.parameters;
      // strict mode: every optional field present as null (given members kept, unknown ones too)
      const sent = strict === false ? args : { ...(fillNulls(schema as never, args) as object), ...(args as object) };
      const model = new ScriptedModel({ name: toolName, arguments: JSON.stringify(sent), callId });
      const agent = new Agent({ name: "page assistant", instructions: "Work on the page.", model, tools });
      await runner.run(agent, "Work on the page.");
      return readBack(model, callId);
    };
  };

frameworkScenario("OpenAI Agents (strict)", agentsDriver());
frameworkScenario("OpenAI Agents (strict: false)", agentsDriver(false));

describe("OpenAI Agents: what the model is shown", () => {
  const fake = { dispatcher: { callModelTool: () => Promise.reject(new Error("not called")) } };
  it.each([
    [true, "openai-strict"],
    [false, "portable"],
  ] as const)("strict %s: every tool under its model-facing name with the %s schema", async (strict, variant) => {
    const tools = mnoteTools({ connection: fake, session: { sessionId: "sess_x" }, strict });
    expect(tools.map((t) => t.name).sort()).toEqual(providerTools[variant].map((d) => d.name).sort());
    for (const definition of providerTools[variant]) {
      const made = tools.find((t) => t.name === definition.name)!;
      expect(made).toMatchObject({ type: "function", description: definition.description, strict });
      expect(made.parameters).toEqual(definition.parameters);
      // the one approval decision: a tool it does not hold at ask is not asked about, and the
      // runtime is not called (test/targets/preview-before-yes.test.ts runs the ask path)
      if (approvalFor(definition.canonicalName, {}) !== "ask")
        expect(await made.needsApproval({} as never, {}, "call_1")).toBe(false);
    }
  });
});
