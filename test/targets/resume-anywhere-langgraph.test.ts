/**
 * Issue 41, resume anywhere, LangGraph: a checkpoint resumed by another worker. Process A (this
 * test's process) runs LangChain's `createAgent` with `humanInTheLoopMiddleware({ interruptOn:
 * approvalInterruptOn(options) })`, the mnote tools with `humanInTheLoop: true`, LangChain's fake
 * model and a shared checkpointer (`SqliteSaver` over one file, @langchain/langgraph-checkpoint-sqlite);
 * each thread stops at its interrupt with the runtime's preview as the action request's description,
 * and A closes its checkpointer. Process B (test/targets/langgraph-resume-worker.mjs, its own OS
 * process, nothing of A's memory) opens the threads from that file and resumes them with
 * `Command({ resume })`, calling the same `serve` runtime over HTTP, whose store keeps the approval
 * records. One runtime, store and kernel for the whole file, two B processes: approve writes once;
 * reject nothing; a thread the runtime never asked about nothing; the thread resumed in another
 * session of the same person, or by another person, nothing; the approved checkpoint resumed again
 * by a second B (a retried worker) no second write. The kernel's state (the page's blocks and
 * revision, a hash of every table) is asserted after each.
 *
 * The cases run in order, on one page: the ones that must write nothing come before the one yes, so
 * a refusal is never the page's changed revision (each asserts approval_required, not conflict).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { approvalInterruptOn, mnoteTools } from "../../generated/langchain";
import { toolByName } from "../../generated/registry";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { repoRoot } from "../support/paths";
import { demoSeed, testRuntime, type TestRuntime } from "../support/runtime";
import { tempDir } from "../support/tmp";
import { serveRuntime } from "./tool-server";

const SAVE = toolByName("mnote.page.save")!.providerName;
const TEXT = "Replaced after a person said yes in another worker";
const TOKEN = "tool-token-for-langgraph-resume-tests";
const WORKER = join(repoRoot, "test", "targets", "langgraph-resume-worker.mjs");
const REPLACE = { content: [{ type: "paragraph", text: TEXT }], mode: "replace" };
/** The runtime's preview of the replace, in the session's locale (the demo page has 3 blocks). */
const PREVIEW = /^替换「项目计划」的全部内容：删除 3 段，写入 1 段。/;

jest.setTimeout(120_000);

/** The threads process A leaves at their interrupt: one per case, each its own tool call id. */
const THREADS = {
  reject: "call_lg_reject",
  otherSession: "call_lg_other_session",
  otherPerson: "call_lg_other_person",
  approve: "call_lg_approve",
  // a checkpoint the runtime never asked about: the middleware configured without approvalInterruptOn
  neverAsked: "call_lg_never_asked",
} as const;
type Thread = keyof typeof THREADS;

/** Process B: a long-lived worker, one JSON job a line in, one JSON answer a line out. */
function processB() {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [WORKER], { cwd: repoRoot });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const lines: Interface = createInterface({ input: child.stdout });
  const answers = lines[Symbol.asyncIterator]();
  return {
    pid: child.pid,
    async run(job: Record<string, unknown>): Promise<any> {
      child.stdin.write(JSON.stringify(job) + "\n");
      const next = await answers.next();
      if (next.done) throw new Error(`process B ended: ${err}`);
      const out = JSON.parse(next.value);
      if (out.error) throw new Error(`process B failed: ${out.error}`);
      return out;
    },
    async end() {
      child.stdin.end();
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(0);
    },
  };
}

let t: TestRuntime;
let server: Awaited<ReturnType<typeof serveRuntime>>;
let checkpointFile: string;
const sessions: Record<"a" | "otherSession" | "otherPerson", { sessionId: string }> = Object.create(null);
/** What process A showed the person for each thread: the interrupt's action request description. */
const shown: Partial<Record<Thread, string>> = {};
/** The checkpoint each thread stopped at in A (the interrupt), by thread. */
const stoppedAt: Partial<Record<Thread, string>> = {};
let b: ReturnType<typeof processB>;

const revision = () =>
  (t.kernel.db.prepare("SELECT revision FROM pages WHERE id = 'doc_1'").get() as { revision: number }).revision;
const written = () => t.count("blocks", "page_id = 'doc_1' AND text = ?", TEXT);

/** Process A: the agent runs to the interrupt of one thread and saves it in the shared checkpointer. */
async function askInA(checkpointer: SqliteSaver, thread: Thread): Promise<void> {
  const options = { connection: { url: server.url, token: TOKEN }, session: sessions.a };
  const interruptOn =
    thread === "neverAsked" ? { [SAVE]: { allowedDecisions: ["approve", "reject"] } } : approvalInterruptOn(options);
  const agent = createAgent({
    model: fakeModel()
      .respondWithTools([{ name: SAVE, args: REPLACE, id: THREADS[thread] }])
      .respond(new AIMessage("done")),
    tools: mnoteTools({ ...options, humanInTheLoop: true }),
    middleware: [humanInTheLoopMiddleware({ interruptOn: interruptOn as never })],
    checkpointer,
  });
  const config = { configurable: { thread_id: thread } };
  const first = await agent.invoke({ messages: [new HumanMessage("Rewrite the page.")] }, config);
  stoppedAt[thread] = (await agent.graph.getState(config)).config.configurable?.checkpoint_id as string;
  const request = (first.__interrupt__?.[0]?.value as { actionRequests?: { description?: string }[] } | undefined)
    ?.actionRequests?.[0];
  expect(request).toBeDefined();
  shown[thread] = request!.description;
}

/** The job for process B: resume a thread of the shared checkpointer with a decision, in a session. */
const job = (thread: Thread, decision: "approve" | "reject", session = sessions.a, checkpointId?: string) => ({
  connection: { url: server.url, token: TOKEN },
  session,
  checkpointer: checkpointFile,
  threadId: thread,
  toolCallId: THREADS[thread],
  decision,
  ...(checkpointId !== undefined ? { checkpointId } : {}),
});

beforeAll(async () => {
  // Bo (user_2) may write doc_1 here, so another person's resume is refused for the approval, not
  // for a missing right (the case asserts approval_required)
  const seed = demoSeed();
  const page = seed.pages.find((p: { id: string }) => p.id === "doc_1");
  page.grants.find((g: { userId: string }) => g.userId === "user_2").capabilities = ["page.read", "page.write"];
  t = await testRuntime({ approval: { policy: EMPTY_POLICY } }, seed);
  sessions.a = { sessionId: (await t.session({ actorId: "user_1" })).sessionId };
  sessions.otherSession = { sessionId: (await t.session({ actorId: "user_1" })).sessionId };
  sessions.otherPerson = { sessionId: (await t.session({ actorId: "user_2" })).sessionId };
  server = await serveRuntime(t, TOKEN);
  checkpointFile = join(tempDir("mnote-langgraph-"), "checkpoints.sqlite");
  const checkpointer = SqliteSaver.fromConnString(checkpointFile);
  const before = t.kernelStateHash();
  for (const thread of Object.keys(THREADS) as Thread[]) await askInA(checkpointer, thread);
  // process A is done: its checkpointer closed, nothing of it reaches B but the file and the store
  checkpointer.db.close();
  expect(t.kernelStateHash()).toBe(before);
  b = processB();
});

afterAll(async () => {
  await b?.end();
  await server?.close();
  await t?.close();
});

describe("LangGraph: a checkpoint saved by process A (SqliteSaver), resumed by process B", () => {
  it("A stopped at each interrupt with the runtime's preview as the description, writing nothing", () => {
    for (const thread of ["reject", "otherSession", "otherPerson", "approve"] as const)
      expect(shown[thread]).toMatch(PREVIEW);
    // the thread the runtime never asked about: the middleware's own text, no preview of the runtime's
    expect(shown.neverAsked).not.toMatch(PREVIEW);
    expect(written()).toBe(0);
    expect(b.pid).not.toBe(process.pid);
  });

  it("reject in B: the tool never runs, nothing written", async () => {
    const [hash, rev] = [t.kernelStateHash(), revision()];
    const out = await b.run(job("reject", "reject"));
    // B read the question from the shared checkpointer: the preview A showed the person
    expect(out.pending).toEqual({ name: SAVE, description: shown.reject });
    expect(out.read).toEqual({ text: expect.stringMatching(/rejected/) });
    expect([t.kernelStateHash(), revision()]).toEqual([hash, rev]);
  });

  it("a yes in B to a thread whose question the runtime never asked writes nothing", async () => {
    const hash = t.kernelStateHash();
    const out = await b.run(job("neverAsked", "approve"));
    expect(out.pending.description).toBe(shown.neverAsked);
    expect(out.read).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect(t.kernelStateHash()).toBe(hash);
    expect(written()).toBe(0);
  });

  it.each([
    ["another session of the same person", "otherSession"],
    ["another person (who may write the page)", "otherPerson"],
  ] as const)("A's question resumed with a yes in %s writes nothing", async (_, who) => {
    const hash = t.kernelStateHash();
    // the record is bound to A's principal and session: B's session gets a fresh question nobody saw
    const out = await b.run(job(who, "approve", sessions[who]));
    expect(out.pending.description).toMatch(PREVIEW);
    expect(out.read).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect(t.kernelStateHash()).toBe(hash);
    expect(written()).toBe(0);
  });

  it("approve in B writes once; the same checkpoint resumed again by another process writes nothing more", async () => {
    const rev = revision();
    const out = await b.run(job("approve", "approve"));
    expect(out.pending.description).toBe(shown.approve);
    expect(out.read).toMatchObject({ ok: true, audit: { approval: { decision: "approved" } } });
    expect(out.interruptedAgain).toBe(false);
    expect(written()).toBe(1);
    expect(t.count("blocks", "page_id = 'doc_1'")).toBe(1);
    expect(revision()).toBe(rev + 1);
    const afterYes = t.kernelStateHash();
    // a retried worker: a second process B resumes the same thread from the checkpointer again
    const retried = processB();
    try {
      const again = await retried.run(job("approve", "approve", sessions.a, stoppedAt.approve));
      // it read the interrupted checkpoint, not B's finished thread: the runtime was asked again and
      // answered from the call's idempotency record (replayed), writing nothing
      expect(again.pending.description).toBe(shown.approve);
      expect(again.read).toMatchObject({ ok: true, audit: { replayed: true } });
    } finally {
      await retried.end();
    }
    expect(t.kernelStateHash()).toBe(afterYes);
    expect(revision()).toBe(rev + 1);
  });
});
