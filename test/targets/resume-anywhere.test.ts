/**
 * Issue 41, resume anywhere: an approval asked in one OS process (this test's, process A) and
 * resumed in another (test/support/resume-worker.mjs, process B: its own copy of the generated
 * target, nothing of A's memory), both calling one `serve` runtime over HTTP whose store keeps the
 * approval record. The token is never in what A saves: B gets the question from the record (the
 * same call id and arguments name it), with the preview and revision the person was shown.
 * Agents SDK: a RunState saved in A, resumed in B. AI SDK 7: a history continued by another
 * request in B. Approve -> one write; reject -> none; resumed twice -> one write. The kernel's
 * state is asserted after each.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { generateText, stepCountIs, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Agent, Runner, Usage, type Model, type ModelResponse } from "@openai/agents";
import { mnoteTools as aiSdkTools, mnoteToolApproval } from "../../generated/ai-sdk";
import { mnoteTools as agentsTools } from "../../generated/openai-agents";
import { toolByName } from "../../generated/registry";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { repoRoot } from "../support/paths";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { serveRuntime } from "./tool-server";

const SAVE = toolByName("mnote.page.save")!.providerName;
const TEXT = "Replaced after a person said yes elsewhere";
const TOKEN = "tool-token-for-resume-tests";
const AGENT = "page assistant";
const WORKER = join(repoRoot, "test", "support", "resume-worker.mjs");
const REPLACE = { content: [{ type: "paragraph", text: TEXT }], mode: "replace" };

jest.setTimeout(120_000);

/** Process B: one job on stdin, one JSON answer on stdout. */
async function processB(job: Record<string, unknown>): Promise<any> {
  const child = spawn(process.execPath, [WORKER], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  child.stdin.end(JSON.stringify(job));
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`process B exited with ${code}: ${err}`);
  expect(child.pid).not.toBe(process.pid);
  return JSON.parse(out.trim().split("\n").pop()!);
}

async function setup() {
  const t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
  const as = await t.session({ actorId: "user_1" });
  const server = await serveRuntime(t, TOKEN);
  const connection = { url: server.url, token: TOKEN };
  const session = { sessionId: as.sessionId };
  const written = () => t.count("blocks", "page_id = 'doc_1' AND text = ?", TEXT);
  const close = async () => {
    await server.close();
    await t.close();
  };
  return { t, connection, session, written, close, stateBefore: t.kernelStateHash() };
}

/** Asserts the page holds the approved body once (the replace wrote one block, once). */
function expectReplacedOnce(t: TestRuntime) {
  expect(t.count("blocks", "page_id = 'doc_1' AND text = ?", TEXT)).toBe(1);
  expect(t.count("blocks", "page_id = 'doc_1'")).toBe(1);
}

class CallOnceModel implements Model {
  private turn = 0;
  async getResponse(): Promise<ModelResponse> {
    const call = { name: SAVE, arguments: JSON.stringify(REPLACE), callId: "call_resume_1" };
    return {
      usage: new Usage(),
      output:
        this.turn++ === 0
          ? [{ type: "function_call", status: "completed", ...call }]
          : [
              {
                type: "message",
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: "x" }],
              },
            ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}

describe("OpenAI Agents SDK: a RunState saved in process A, resumed in process B", () => {
  /** Process A: the run stops at the interruption; the app saves the state (no token in it). */
  async function askInA(s: Awaited<ReturnType<typeof setup>>) {
    const options = { connection: s.connection, session: s.session, strict: false };
    const agent = new Agent({ name: AGENT, model: new CallOnceModel(), tools: agentsTools(options) });
    const first = await new Runner({ tracingDisabled: true }).run(agent, "Rewrite the page.");
    expect(first.interruptions).toHaveLength(1);
    const saved = first.state.toString();
    expect(saved).not.toMatch(/"token"/);
    return saved;
  }

  it("B shows the preview from the record, and the yes in B writes once; a second resume writes nothing more", async () => {
    const s = await setup();
    const saved = await askInA(s);
    expect(s.t.kernelStateHash()).toBe(s.stateBefore);
    const job = { framework: "openai-agents", connection: s.connection, session: s.session, agentName: AGENT };
    const b = await processB({ ...job, state: saved, approve: true, showPreview: true });
    // the person's preview, in the session's locale, from the record A's question made
    expect(b.preview.text).toMatch(/^替换「项目计划」的全部内容：删除 \d+ 段，写入 1 段。/);
    expect(b.preview.askedBefore).toBe(true);
    expect(b.read).toMatchObject({ ok: true, audit: { approval: { decision: "approved" } } });
    expectReplacedOnce(s.t);
    const afterYes = s.t.kernelStateHash();
    // the same saved state resumed again (a retried worker): no second write
    const again = await processB({ ...job, state: saved, approve: true, showPreview: false });
    expect(again.read).not.toBeNull();
    expect(s.t.kernelStateHash()).toBe(afterYes);
    expectReplacedOnce(s.t);
    await s.close();
  });

  it("reject in B writes nothing", async () => {
    const s = await setup();
    const saved = await askInA(s);
    const job = { framework: "openai-agents", connection: s.connection, session: s.session, agentName: AGENT };
    const b = await processB({ ...job, state: saved, approve: false, showPreview: true });
    expect(b.preview.askedBefore).toBe(true);
    expect(b.read).toEqual({ text: expect.stringMatching(/not approved/) });
    expect(s.t.kernelStateHash()).toBe(s.stateBefore);
    expect(s.written()).toBe(0);
    await s.close();
  });

  it("a yes in B to a question the runtime never asked (a state naming another call id) writes nothing", async () => {
    const s = await setup();
    const saved = await askInA(s);
    // the runtime has no record of this call: B's resumed yes, with no preview shown in B, is not
    // a yes to the fresh question B's resume makes (askedBefore false): nothing written
    const job = { framework: "openai-agents", connection: s.connection, session: s.session, agentName: AGENT };
    const b = await processB({
      ...job,
      state: saved.replace(/call_resume_1/g, "call_resume_2"),
      approve: true,
      showPreview: false,
    });
    expect(b.read).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect(s.t.kernelStateHash()).toBe(s.stateBefore);
    await s.close();
  });
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe("Vercel AI SDK 7: a history continued by another request, in process B", () => {
  /** Process A: the approval request; the app keeps the history and later adds the person's answer. */
  async function askInA(s: Awaited<ReturnType<typeof setup>>) {
    const options = { connection: s.connection, session: s.session };
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content:
          step++ === 0
            ? [{ type: "tool-call", toolCallId: "call_ai_resume", toolName: SAVE, input: JSON.stringify(REPLACE) }]
            : [{ type: "text", text: "x" }],
        finishReason: { unified: step === 1 ? "tool-calls" : "stop", raw: undefined },
        usage,
        warnings: [],
      }),
    });
    const prompt: ModelMessage[] = [{ role: "user", content: "Rewrite the page." }];
    const first = await generateText({
      model,
      tools: aiSdkTools(options),
      toolApproval: mnoteToolApproval(options),
      stopWhen: stepCountIs(3),
      messages: prompt,
    });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    expect(request).toBeDefined();
    const history = (approved: boolean): ModelMessage[] => [
      ...prompt,
      ...first.response.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved }] },
    ];
    expect(JSON.stringify(history(true))).not.toMatch(/"token"/);
    return history;
  }

  it("the yes continued in B writes once; the same history continued twice writes once", async () => {
    const s = await setup();
    const history = await askInA(s);
    expect(s.t.kernelStateHash()).toBe(s.stateBefore);
    const job = { framework: "ai-sdk", connection: s.connection, session: s.session, messages: history(true) };
    const b = await processB(job);
    expect(b.read).toMatchObject({ ok: true, audit: { approval: { decision: "approved" } } });
    expectReplacedOnce(s.t);
    const afterYes = s.t.kernelStateHash();
    const again = await processB(job);
    expect(again.read).toMatchObject({ ok: true });
    expect(s.t.kernelStateHash()).toBe(afterYes);
    await s.close();
  });

  it("the no continued in B writes nothing", async () => {
    const s = await setup();
    const history = await askInA(s);
    const b = await processB({
      framework: "ai-sdk",
      connection: s.connection,
      session: s.session,
      messages: history(false),
    });
    expect(b.output).toBe("execution-denied");
    expect(s.t.kernelStateHash()).toBe(s.stateBefore);
    expect(s.written()).toBe(0);
    await s.close();
  });
});
