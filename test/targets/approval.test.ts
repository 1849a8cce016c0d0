/**
 * Approval through the framework targets (issues 19 and 20): the contract's approval facts and the
 * host's policy decide, in one function (approvalFor), which calls the framework puts to a person
 * (the AI SDK's and the Agents SDK's needsApproval; LangChain's humanInTheLoopMiddleware through
 * approvalInterruptOn). A call the person approved is sent back to the runtime with the token of
 * its approval_required answer, and is written once; a declined one writes nothing; a call no
 * person saw is answered approval_required, nothing written. Each case checks the kernel.
 */
import { generateText, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Agent, Runner } from "@openai/agents";
import { ScriptedModel } from "./agents-model";
import { approvalFor } from "../../generated/frameworks/connection";
import { mnoteTools as aiSdkTools, mnoteToolApproval } from "../../generated/ai-sdk";
import { mnoteTools as agentsTools } from "../../generated/openai-agents";
import { approvalInterruptOn, mnoteTools as langchainTools, parseToolResult } from "../../generated/langchain";
import { toolByName } from "../../generated/registry";
import { frameworkCaller } from "../../runtime/transports/framework-call";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { testRuntime, type TestRuntime } from "../support/runtime";

const name = (canonical: string) => toolByName(canonical)!.providerName;
const TEXT = "Replaced after a person said yes";

/** A runtime under the contract's own approval facts (no allow-all policy), and a session on doc_1. */
async function setup() {
  const t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
  const as = await t.session({ actorId: "user_1" });
  const revision = () =>
    (t.kernel.db.prepare("SELECT revision FROM pages WHERE id = 'doc_1'").get() as { revision: number }).revision;
  const options = { connection: { dispatcher: frameworkCaller(t.runtime) }, session: { sessionId: as.sessionId } };
  const replace = () => ({ content: [{ type: "paragraph", text: TEXT }], mode: "replace", baseRevision: revision() });
  return { t, options, revision, replace };
}

function expectWrittenOnce(t: TestRuntime, revisionBefore: number, revisionNow: number) {
  expect(t.count("blocks", "page_id = 'doc_1' AND text = ?", TEXT)).toBe(1);
  expect(t.count("blocks", "page_id = 'doc_1'")).toBe(1);
  expect(revisionNow).toBe(revisionBefore + 1);
}

describe("approvalFor: the contract's facts, then the host's policy; deny wins", () => {
  it("answers the contract's level per call", () => {
    expect(approvalFor("mnote.page.get", {})).toBe("allow");
    expect(approvalFor("mnote.page.save", { mode: "replace" })).toBe("ask");
    expect(approvalFor("mnote.page.save", { mode: "append" })).toBe("allow");
    // an absent mode is its schema default (append); a strict model's null is not "replace"
    expect(approvalFor("mnote.page.save", {})).toBe("allow");
    expect(approvalFor("mnote.page.save", { mode: null })).toBe("allow");
    expect(approvalFor("mnote.page.update_title", { title: "x" })).toBe("ask");
    expect(approvalFor("mnote.artifact.create_ai_note", {})).toBe("allow");
  });

  it("reads only the call's own members: an inherited mode is not the call's", () => {
    const inherited = Object.create({ mode: "replace" }) as object;
    expect(approvalFor("mnote.page.save", inherited)).toBe("allow");
    expect(approvalFor("mnote.page.save", JSON.parse('{"__proto__": {"mode": "replace"}}'))).toBe("allow");
    expect(approvalFor("mnote.page.save", "replace")).toBe("allow");
  });

  it("the policy tightens and loosens per workspace and per session; deny from any layer wins", () => {
    const policy = {
      tools: { "mnote.artifact.create_ai_note": "ask" as const, "mnote.page.update_title": "allow" as const },
      sessions: { sess_locked: { tools: { "mnote.page.update_title": "deny" as const } } },
    };
    expect(approvalFor("mnote.artifact.create_ai_note", {}, { policy })).toBe("ask");
    expect(approvalFor("mnote.page.update_title", {}, { policy, sessionId: "sess_other" })).toBe("allow");
    expect(approvalFor("mnote.page.update_title", {}, { policy, sessionId: "sess_locked" })).toBe("deny");
    expect(approvalFor("mnote.page.get", {}, { policy: { tools: { "mnote.page.get": "deny" } } })).toBe("deny");
  });

  it("an approval policy that is not one is refused when the tools are made", () => {
    const fake = { dispatcher: { callModelTool: () => Promise.reject(new Error("not called")) } };
    const bad = { tools: { "mnote.page.save": "sometimes" } } as never;
    expect(() => aiSdkTools({ connection: fake, session: { sessionId: "s" }, approvalPolicy: bad })).toThrow(
      /approvalPolicy is not a valid approval policy/,
    );
    expect(() => agentsTools({ connection: fake, session: { sessionId: "s" }, approvalPolicy: bad })).toThrow(
      TypeError,
    );
  });
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe("Vercel AI SDK: a replace waits for the person's answer", () => {
  async function askedRound(approved: boolean) {
    const { t, options, revision, replace } = await setup();
    const before = revision();
    const stateBefore = t.kernelStateHash();
    const tools = aiSdkTools(options);
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [
                {
                  type: "tool-call",
                  toolCallId: "call_rep_1",
                  toolName: name("mnote.page.save"),
                  input: JSON.stringify(replace()),
                },
              ],
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
    const prompt: ModelMessage[] = [{ role: "user", content: "Rewrite the page." }];
    const toolApproval = mnoteToolApproval(options);
    const first = await generateText({ model, tools, toolApproval, messages: prompt, stopWhen: stepCountIs(3) });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    expect(request).toBeDefined();
    // asked, not run: nothing written while the person decides
    expect(t.kernelStateHash()).toBe(stateBefore);
    const messages: ModelMessage[] = [
      ...prompt,
      ...first.response.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved }] },
    ];
    await generateText({ model, tools, toolApproval, messages, stopWhen: stepCountIs(3) });
    return { t, before, stateBefore, revision };
  }

  it("approved: written once, the audit names the approval", async () => {
    const { t, before, revision } = await askedRound(true);
    expectWrittenOnce(t, before, revision());
    await t.close();
  });

  it("declined: nothing written", async () => {
    const { t, stateBefore } = await askedRound(false);
    expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });
});

describe("OpenAI Agents: a replace is an interruption until the person decides", () => {
  const runner = new Runner({ tracingDisabled: true });

  it.each([true, false])("approved %s: written once when approved, nothing when rejected", async (approved) => {
    const { t, options, revision, replace } = await setup();
    const before = revision();
    const stateBefore = t.kernelStateHash();
    const model = new ScriptedModel({
      name: name("mnote.page.save"),
      arguments: JSON.stringify(replace()),
      callId: "call_rep_2",
    });
    const agent = new Agent({ name: "page assistant", model, tools: agentsTools({ ...options, strict: false }) });
    const first = await runner.run(agent, "Rewrite the page.");
    expect(first.interruptions).toHaveLength(1);
    expect(t.kernelStateHash()).toBe(stateBefore);
    if (approved) first.state.approve(first.interruptions[0]!);
    else first.state.reject(first.interruptions[0]!);
    await runner.run(agent, first.state);
    if (approved) expectWrittenOnce(t, before, revision());
    else expect(t.kernelStateHash()).toBe(stateBefore);
    await t.close();
  });
});

describe("LangChain: no hook of its own, so only a middleware-approved call is sent with the token", () => {
  it("interruptOn asks per call, only when the runtime asks (a replace, not an append), and offers approve/reject only", async () => {
    const { t, options, replace } = await setup();
    const stateBefore = t.kernelStateHash();
    const on = approvalInterruptOn(options);
    let n = 0;
    const asks = (canonical: string, args: Record<string, unknown>) =>
      on[name(canonical)]!.when({ toolCall: { id: `call_when_${++n}`, args } });
    expect(await asks("mnote.page.save", replace())).toBe(true);
    // an append is not asked about (langchain 1.5's per-call when), nor a strict model's null mode
    expect(await asks("mnote.page.get", {})).toBe(false);
    expect(await asks("mnote.page.update_title", { title: "x" })).toBe(true);
    expect(await asks("mnote.page.save", { ...replace(), dryRun: true })).toBe(false);
    expect(t.kernelStateHash()).toBe(stateBefore);
    // the decision alone: no runtime call for what it does not hold at ask
    const none = approvalInterruptOn({
      connection: { dispatcher: { callModelTool: () => Promise.reject(new Error("not called")) } },
      session: { sessionId: "s" },
    });
    expect(
      await none[name("mnote.page.save")]!.when({ toolCall: { id: "c1", args: { mode: "append", content: [] } } }),
    ).toBe(false);
    expect(
      await none[name("mnote.page.save")]!.when({ toolCall: { id: "c2", args: { mode: null, content: [] } } }),
    ).toBe(false);
    expect(await none[name("mnote.artifact.create_ai_note")]!.when({ toolCall: { id: "c3", args: {} } })).toBe(false);
    // an edit would change the arguments after the preview: not offered
    for (const config of Object.values(on)) expect(config.allowedDecisions).toEqual(["approve", "reject"]);
    await t.close();
  });

  it("parseToolResult reads a rejection's text (the person's message) as no result, never a SyntaxError", () => {
    expect(parseToolResult("User rejected the tool call for `mnote_page_save` with id call_1")).toBeUndefined();
    expect(parseToolResult('"just a string"')).toBeUndefined();
    expect(parseToolResult('{"ok": true, "result": {}}')).toMatchObject({ ok: true });
  });

  it("invoked outside the middleware the model reads approval_required and nothing is written, humanInTheLoop or not", async () => {
    const { t, options, revision, replace } = await setup();
    const before = revision();
    const stateBefore = t.kernelStateHash();
    const alone = langchainTools(options).find((x) => x.name === name("mnote.page.save"))!;
    const read = parseToolResult(
      String(
        await alone
          .invoke({ type: "tool_call", name: alone.name, id: "call_rep_3", args: replace() })
          .then((m: { content: unknown }) => m.content),
      ),
    );
    expect(read).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect(t.kernelStateHash()).toBe(stateBefore);
    const behindMiddleware = langchainTools({ ...options, humanInTheLoop: true }).find((x) => x.name === alone.name)!;
    const done = parseToolResult(
      String(
        await behindMiddleware
          .invoke({ type: "tool_call", name: alone.name, id: "call_rep_4", args: replace() })
          .then((m: { content: unknown }) => m.content),
      ),
    );
    // humanInTheLoop is no longer taken on trust (issue 28 item 4): no preview was shown for this
    // call, so no token is sent and nothing is written
    expect(done).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect(t.kernelStateHash()).toBe(stateBefore);
    expect(revision()).toBe(before);
    await t.close();
  });
});
