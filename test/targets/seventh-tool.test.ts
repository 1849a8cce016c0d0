/**
 * The seventh-tool contract (test/fixtures/seventh-tool) through the three framework targets, with
 * no hand edit: generate from it (the CLI, as a subprocess), load each target's generated
 * mnoteTools, and find the new tool there under its model-facing name with its description, whose
 * call reaches the connection with the framework's tool call id as it is.
 */
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, runCli } from "../support/paths";
import { contractWithSeventhTool } from "../support/fixtures";

describe("a seventh tool in the framework targets", () => {
  const contract = contractWithSeventhTool();
  const project = join(contract, "..");
  const out = join(project, "generated");
  const generated = runCli(["generate", "--contract", contract, "--out", out, "--quiet"], { cwd: project });
  // the project resolves the frameworks as one that installed them would (the repository's node_modules)
  if (!existsSync(join(project, "node_modules")))
    symlinkSync(join(repoRoot, "node_modules"), join(project, "node_modules"), "dir");
  const load = (target: string) => require(join(out, target, "index.ts"));
  const providers = require(join(out, "providers.ts"));
  const definition = providers.providerTools.portable.find((d: any) => d.name === "mnote_page_get_outline");

  /** A connection that records each call and answers a fixed failure (what it answers does not matter here). */
  function recording() {
    const calls: any[] = [];
    const answer = { ok: false, toolName: "mnote.page.get_outline", error: { code: "mnote_tool_internal" } };
    return { calls, connection: { dispatcher: { callModelTool: async (call: any) => (calls.push(call), answer) } } };
  }

  it("generates", () => {
    expect(generated.stderr).toBe("");
    expect(generated.status).toBe(0);
    expect(definition).toBeDefined();
  });

  it("the AI SDK target has it, and its call carries the tool call id", async () => {
    const { calls, connection } = recording();
    const tools = load("ai-sdk").mnoteTools({ connection, session: { sessionId: "s7" } });
    const outline = tools.mnote_page_get_outline;
    expect(outline.description).toBe(definition.description);
    await outline.execute({ maxLevel: 2 }, { toolCallId: "call 7/x", messages: [] });
    expect(calls).toEqual([
      { sessionId: "s7", toolName: "mnote_page_get_outline", toolCallId: "call 7/x", arguments: { maxLevel: 2 } },
    ]);
  });

  it("the OpenAI Agents target has it (strict: the openai-strict variant)", async () => {
    const { calls, connection } = recording();
    const tools = load("openai-agents").mnoteTools({ connection, session: { sessionId: "s7" } });
    const outline = tools.find((t: any) => t.name === "mnote_page_get_outline");
    const strict = providers.providerTools["openai-strict"].find((d: any) => d.name === "mnote_page_get_outline");
    expect(outline.parameters).toEqual(strict.parameters);
    await outline.invoke({}, '{"maxLevel": null}', { toolCall: { callId: "call_7" } });
    expect(calls).toMatchObject([
      { toolName: "mnote_page_get_outline", toolCallId: "call_7", arguments: { maxLevel: null } },
    ]);
  });

  it("the LangChain target has it", async () => {
    const { calls, connection } = recording();
    const tools = load("langchain").mnoteTools({ connection, session: { sessionId: "s7" } });
    const outline = tools.find((t: any) => t.name === "mnote_page_get_outline");
    expect(outline.description).toBe(definition.description);
    await outline.invoke({ name: "mnote_page_get_outline", args: { maxLevel: 1 }, id: "call_lc_7", type: "tool_call" });
    expect(calls).toMatchObject([
      { toolName: "mnote_page_get_outline", toolCallId: "call_lc_7", arguments: { maxLevel: 1 } },
    ]);
  });
});
