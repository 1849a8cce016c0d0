/**
 * A preview before every yes (issue 29 item 3, issue 28 item 4), in each framework's own loop on
 * its current major: the AI SDK's generateText with toolApproval and its mock model; the Agents
 * SDK's Runner with a scripted model and a saved-and-resumed RunState; LangChain's createAgent
 * with humanInTheLoopMiddleware and a checkpointer. For each: the person sees the runtime's
 * preview before deciding; approve writes once; reject writes nothing; a colleague's edit between
 * the preview and the yes is a conflict that writes nothing; a replayed approved history does not
 * write twice; a dry run writes nothing; calling the tool outside the approval step writes nothing.
 * Every case asserts the kernel's state.
 */
import { generateText, simulateReadableStream, stepCountIs, streamText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Agent, RunState, Runner, Usage, type Model, type ModelResponse } from "@openai/agents";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { mnoteTools as aiSdkTools, mnoteToolApproval } from "../../generated/ai-sdk";
import { mnotePreview, mnoteTools as agentsTools } from "../../generated/openai-agents";
import { approvalInterruptOn, mnoteTools as langchainTools } from "../../generated/langchain";
import { toolByName } from "../../generated/registry";
import { frameworkCaller } from "../../runtime/transports/framework-call";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { testRuntime, type TestRuntime } from "../support/runtime";

const SAVE = toolByName("mnote.page.save")!.providerName;
const TEXT = "Replaced after a person said yes";
const COLLEAGUE = "A colleague's paragraph";

/** A runtime under the contract's own approval facts (replace asks), a session, and a colleague's (another session). */
async function setup() {
  const t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
  const as = await t.session({ actorId: "user_1" });
  // the demo page's other writer is inactive: the colleague's edit comes from another session on
  // the page (the owner's editor), which is what a concurrent edit looks like to the runtime
  const colleague = await t.session({ actorId: "user_1" });
  const options = { connection: { dispatcher: frameworkCaller(t.runtime) }, session: { sessionId: as.sessionId } };
  const blocks = (text: string) => t.count("blocks", "page_id = 'doc_1' AND text = ?", text);
  const colleagueAppends = async () => {
    const r = await t.call("mnote.page.save", colleague, {
      content: [{ type: "paragraph", text: COLLEAGUE }],
      mode: "append",
    });
    expect(r.ok).toBe(true);
  };
  return { t, options, blocks, colleagueAppends, stateBefore: t.kernelStateHash() };
}

/** The model's replace, with no baseRevision: the preview's token is what binds it to a revision. */
const replace = (extra: Record<string, unknown> = {}) => ({
  content: [{ type: "paragraph", text: TEXT }],
  mode: "replace",
  ...extra,
});

function expectReplacedOnce(t: TestRuntime) {
  expect(t.count("blocks", "page_id = 'doc_1' AND text = ?", TEXT)).toBe(1);
  expect(t.count("blocks", "page_id = 'doc_1'")).toBe(1);
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe("Vercel AI SDK 7: toolApproval's reason is the runtime's preview", () => {
  async function ask(options: Awaited<ReturnType<typeof setup>>["options"], args: Record<string, unknown>) {
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [{ type: "tool-call", toolCallId: "call_ai_1", toolName: SAVE, input: JSON.stringify(args) }],
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
    const settings = {
      model,
      tools: aiSdkTools(options),
      toolApproval: mnoteToolApproval(options),
      stopWhen: stepCountIs(3),
    };
    const prompt: ModelMessage[] = [{ role: "user", content: "Rewrite the page." }];
    const first = await generateText({ ...settings, messages: prompt });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    const answer = (approved: boolean) =>
      generateText({
        ...settings,
        messages: [
          ...prompt,
          ...first.response.messages,
          { role: "tool", content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved }] },
        ],
      });
    /** What the model read for the call after the answer (the tool result's value). */
    const read = () => {
      const prompts = model.doGenerateCalls.map((c) => c.prompt).reverse();
      for (const p of prompts)
        for (const m of p)
          if (m.role === "tool")
            for (const part of m.content)
              if (part.type === "tool-result" && part.output.type === "json")
                return part.output.value as Record<string, any>;
      return undefined;
    };
    return { request, answer, read };
  }

  it("the person sees the preview before deciding; nothing is written while they decide; approve writes once", async () => {
    const { t, options, stateBefore } = await setup();
    const { request, answer, read } = await ask(options, replace());
    expect(request).toBeDefined();
    expect(request!.reason).toMatch(/^替换「项目计划」的全部内容：删除 3 段，写入 1 段。\n删除：“章节一”/);
    expect(t.kernelStateHash()).toBe(stateBefore);
    await answer(true);
    expectReplacedOnce(t);
    expect(read()).toMatchObject({ ok: true, audit: { approval: { decision: "approved" } } });
    await t.close();
  });

  it("reject writes nothing", async () => {
    const { t, options, stateBefore } = await setup();
    const { answer } = await ask(options, replace());
    await answer(false);
    expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });

  it("a colleague's edit between the preview and the yes is a conflict: nothing written, their block kept", async () => {
    const { t, options, blocks, colleagueAppends } = await setup();
    const { answer, read } = await ask(options, replace());
    await colleagueAppends();
    const afterColleague = t.kernelStateHash();
    await answer(true);
    expect(t.kernelStateHash()).toBe(afterColleague);
    expect(blocks(COLLEAGUE)).toBe(1);
    expect(blocks(TEXT)).toBe(0);
    expect(read()).toMatchObject({ ok: false, error: { code: "mnote_tool_conflict" } });
    await t.close();
  });

  it("a replayed approved history does not write twice", async () => {
    const { t, options } = await setup();
    const { answer } = await ask(options, replace());
    await answer(true);
    const afterYes = t.kernelStateHash();
    await answer(true);
    expect(t.kernelStateHash()).toBe(afterYes);
    expectReplacedOnce(t);
    await t.close();
  });

  it("a dry run is not asked about and writes nothing; execute outside the approval step writes nothing", async () => {
    const { t, options, stateBefore } = await setup();
    const { request } = await ask(options, replace({ dryRun: true }));
    expect(request).toBeUndefined();
    expect(t.kernelStateHash()).toBe(stateBefore);
    const direct = await aiSdkTools(options)[SAVE as "mnote_page_save"].execute!(replace(), {
      toolCallId: "call_direct",
      messages: [],
      context: {},
    });
    expect(direct).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });
});

describe("Vercel AI SDK 7: the same through streamText", () => {
  it("the preview is the streamed approval request's reason; nothing written before the yes; the yes writes once", async () => {
    const { t, options, stateBefore } = await setup();
    let step = 0;
    const finish = (unified: "tool-calls" | "stop") => ({
      type: "finish" as const,
      finishReason: { unified, raw: undefined },
      usage,
    });
    const callChunks = [
      { type: "tool-call" as const, toolCallId: "call_st_1", toolName: SAVE, input: JSON.stringify(replace()) },
      finish("tool-calls"),
    ];
    const textChunks = [
      { type: "text-start" as const, id: "t1" },
      { type: "text-delta" as const, id: "t1", delta: "done" },
      { type: "text-end" as const, id: "t1" },
      finish("stop"),
    ];
    type Chunk = (typeof callChunks)[number] | (typeof textChunks)[number];
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream<Chunk>({ chunks: step++ === 0 ? callChunks : textChunks }),
      }),
    });
    const settings = {
      model,
      tools: aiSdkTools(options),
      toolApproval: mnoteToolApproval(options),
      stopWhen: stepCountIs(3),
    };
    const prompt: ModelMessage[] = [{ role: "user", content: "Rewrite the page." }];
    const first = streamText({ ...settings, messages: prompt });
    let reason: string | undefined;
    let approvalId = "";
    for await (const part of first.fullStream)
      if (part.type === "tool-approval-request")
        ({ reason, approvalId } = { reason: part.reason, approvalId: part.approvalId });
    expect(reason).toMatch(/^替换「项目计划」的全部内容：删除 3 段，写入 1 段。\n删除：“章节一”/);
    expect(t.kernelStateHash()).toBe(stateBefore);
    const messages: ModelMessage[] = [
      ...prompt,
      ...(await first.response).messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] },
    ];
    await streamText({ ...settings, messages }).consumeStream();
    expectReplacedOnce(t);
    await t.close();
  });
});

/** A model that makes the given function calls, one list per turn, then says done. */
class CallsModel implements Model {
  private turn = 0;
  constructor(private readonly turns: { name: string; arguments: string; callId: string }[][]) {}
  async getResponse(): Promise<ModelResponse> {
    const calls = this.turns[this.turn++];
    return {
      usage: new Usage(),
      output: calls
        ? calls.map((c) => ({ type: "function_call" as const, status: "completed" as const, ...c }))
        : [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "done" }],
            },
          ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}

describe("OpenAI Agents 0.20: needsApproval previews, mnotePreview shows it, a saved RunState resumes", () => {
  const runner = new Runner({ tracingDisabled: true });

  async function interrupted(
    options: Awaited<ReturnType<typeof setup>>["options"],
    ...turns: Record<string, unknown>[][]
  ) {
    const agentOptions = { ...options, strict: false };
    const model = new CallsModel(
      turns.map((args) => args.map((a) => ({ name: SAVE, arguments: JSON.stringify(a), callId: "call_ag_1" }))),
    );
    const agent = new Agent({ name: "page assistant", model, tools: agentsTools(agentOptions) });
    const first = await runner.run(agent, "Rewrite the page.");
    // the app keeps the state while the person decides, then resumes from it
    const state = await RunState.fromString(agent, first.state.toString());
    return { agent, agentOptions, first, state };
  }

  it.each([true, false])("approved %s: the preview first; written once on yes, nothing on no", async (approved) => {
    const { t, options, stateBefore } = await setup();
    const { agent, agentOptions, first, state } = await interrupted(options, [replace()]);
    expect(first.interruptions).toHaveLength(1);
    // the person's preview the runtime wrote, as MCP shows it, in the session's locale (zh-CN here)
    expect((await mnotePreview(agentOptions, first.interruptions[0]!))?.text).toMatch(
      /^替换「项目计划」的全部内容：删除 \d+ 段，写入 1 段。/,
    );
    expect(t.kernelStateHash()).toBe(stateBefore);
    const [item] = state.getInterruptions();
    if (approved) state.approve(item!);
    else state.reject(item!);
    await runner.run(agent, state);
    if (approved) expectReplacedOnce(t);
    else expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });

  it("a colleague's edit between the preview and the yes is a conflict; a replayed resume writes nothing more", async () => {
    const { t, options, blocks, colleagueAppends } = await setup();
    const { agent, state } = await interrupted(options, [replace()]);
    await colleagueAppends();
    const afterColleague = t.kernelStateHash();
    const saved = state.toString();
    state.approve(state.getInterruptions()[0]!);
    await runner.run(agent, state);
    expect(t.kernelStateHash()).toBe(afterColleague);
    expect(blocks(COLLEAGUE)).toBe(1);
    // the same saved state approved and resumed again: still nothing written
    const again = await RunState.fromString(agent, saved);
    again.approve(again.getInterruptions()[0]!);
    await runner.run(agent, again);
    expect(t.kernelStateHash()).toBe(afterColleague);
    await t.close();
  });

  it("a replayed approved resume does not write twice", async () => {
    const { t, options } = await setup();
    const { agent, state } = await interrupted(options, [replace()]);
    const saved = state.toString();
    state.approve(state.getInterruptions()[0]!);
    await runner.run(agent, state);
    const afterYes = t.kernelStateHash();
    const again = await RunState.fromString(agent, saved);
    again.approve(again.getInterruptions()[0]!);
    await runner.run(agent, again);
    expect(t.kernelStateHash()).toBe(afterYes);
    expectReplacedOnce(t);
    await t.close();
  });

  it("two calls sharing one call id in one turn, one approved and one rejected: the rejected one is never written", async () => {
    const { t, options, blocks, stateBefore } = await setup();
    const other = { content: [{ type: "paragraph", text: "B, rejected" }], mode: "replace" };
    // @openai/agents 0.20 refuses a call id reused within a turn (ModelBehaviorError) before any
    // tool runs; an SDK that let both through would meet the target's own rule (never approved by
    // the id alone) in the next case
    await expect(interrupted(options, [replace(), other])).rejects.toThrow(/reused/);
    expect(blocks("B, rejected")).toBe(0);
    expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });

  it("a call id reused in a later turn for other arguments is not approved by the id: only the approved call is written", async () => {
    const { t, options, blocks } = await setup();
    const other = { content: [{ type: "paragraph", text: "B, never approved" }], mode: "replace" };
    const { agent, state } = await interrupted(options, [replace()], [other]);
    state.approve(state.getInterruptions()[0]!);
    const resumed = await runner.run(agent, state).catch((e: unknown) => e);
    // A written once; B, under the approved call's id, is never written (the SDK refuses it, or
    // the target sends it without a token and the runtime holds it at ask)
    expect(blocks(TEXT)).toBe(1);
    expect(blocks("B, never approved")).toBe(0);
    if (!(resumed instanceof Error)) {
      for (const item of (resumed as { interruptions?: { arguments?: string }[] }).interruptions ?? [])
        expect(item.arguments).toBe(JSON.stringify(other));
    }
    await t.close();
  });

  it("a dry run writes nothing; the tool invoked outside the run's approval step writes nothing", async () => {
    const { t, options, stateBefore } = await setup();
    const { first } = await interrupted(options, [replace({ dryRun: true })]);
    expect(first.interruptions).toHaveLength(0);
    expect(t.kernelStateHash()).toBe(stateBefore);
    const save = agentsTools({ ...options, strict: false }).find((x) => x.name === SAVE)!;
    const direct = await save.invoke(undefined as never, JSON.stringify(replace()), {
      toolCall: { type: "function_call", name: SAVE, callId: "call_direct", arguments: JSON.stringify(replace()) },
    } as never);
    expect(JSON.stringify(direct)).toMatch(/mnote_tool_approval_required/);
    expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });
});

describe("LangChain 1.5: humanInTheLoopMiddleware's description is the runtime's preview", () => {
  async function interrupted(options: Awaited<ReturnType<typeof setup>>["options"], args: Record<string, unknown>) {
    const model = fakeModel()
      .respondWithTools([{ name: SAVE, args, id: "call_lc_1" }])
      .respond(new AIMessage("done"));
    const agent = createAgent({
      model,
      tools: langchainTools({ ...options, humanInTheLoop: true }),
      middleware: [humanInTheLoopMiddleware({ interruptOn: approvalInterruptOn(options) })],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: `thread_${Math.random()}` } };
    const first = await agent.invoke({ messages: [new HumanMessage("Rewrite the page.")] }, config);
    const shown = (first.__interrupt__?.[0]?.value as { actionRequests?: { description?: string }[] } | undefined)
      ?.actionRequests?.[0]?.description;
    const decide = (type: "approve" | "reject") =>
      agent.invoke(new Command({ resume: { decisions: [{ type }] } }), config);
    return { shown, decide };
  }

  it.each(["approve", "reject"] as const)(
    "%s: the preview first; written once on approve, nothing on reject",
    async (decision) => {
      const { t, options, stateBefore } = await setup();
      const { shown, decide } = await interrupted(options, replace());
      expect(shown).toMatch(/^替换「项目计划」的全部内容：删除 3 段，写入 1 段。\n删除：“章节一”/);
      expect(t.kernelStateHash()).toBe(stateBefore);
      await decide(decision);
      if (decision === "approve") expectReplacedOnce(t);
      else expect(t.kernelStateHash()).toBe(stateBefore);
      await t.close();
    },
  );

  it("a colleague's edit between the preview and the yes is a conflict: nothing written, their block kept", async () => {
    const { t, options, blocks, colleagueAppends } = await setup();
    const { decide } = await interrupted(options, replace());
    await colleagueAppends();
    const afterColleague = t.kernelStateHash();
    await decide("approve");
    expect(t.kernelStateHash()).toBe(afterColleague);
    expect(blocks(COLLEAGUE)).toBe(1);
    await t.close();
  });

  it("the approved call replayed (the same tool call again) does not write twice", async () => {
    const { t, options } = await setup();
    const { decide } = await interrupted(options, replace());
    await decide("approve");
    const afterYes = t.kernelStateHash();
    const save = langchainTools({ ...options, humanInTheLoop: true }).find((x) => x.name === SAVE)!;
    await save.invoke({ type: "tool_call", name: SAVE, id: "call_lc_1", args: replace() });
    expect(t.kernelStateHash()).toBe(afterYes);
    expectReplacedOnce(t);
    await t.close();
  });

  it("an append is not asked about; a dry run writes nothing; invoke with no preview writes nothing", async () => {
    const { t, options, stateBefore } = await setup();
    const { shown } = await interrupted(options, replace({ dryRun: true }));
    expect(shown).toBeUndefined();
    expect(t.kernelStateHash()).toBe(stateBefore);
    const save = langchainTools({ ...options, humanInTheLoop: true }).find((x) => x.name === SAVE)!;
    const direct = await save.invoke({ type: "tool_call", name: SAVE, id: "call_direct", args: replace() });
    expect(String((direct as { content: unknown }).content)).toMatch(/mnote_tool_approval_required/);
    expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });
});
