/**
 * Budgets (issue 44, docs/RELIABILITY.md "Budgets") through the dispatcher, on the embedded store
 * (SQLite) with a controlled clock: a looping model writes at most its budget, the kernel's notes
 * say so; a replay of a write already made is never refused; a dry run never counts; reads have
 * their own budget; a window's end frees the budget; the host's policy lowers a budget and is
 * refused when it tries to raise one.
 */
import { ERR, toolByName } from "../../generated/registry";
import { allowEveryTool, approvalPolicyFrom, ApprovalPolicyError } from "../../runtime/approval/policy";
import { SqliteBudgetStore } from "../../runtime/state/budget-sqlite";
import { openDatabase } from "../../common/sqlite";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { makeRequest } from "../support/requests";

const NOTE = "mnote.artifact.create_ai_note";
const budget = toolByName(NOTE)!.budget!;

function controlledClock(start = Date.parse("2026-01-01T00:00:00Z")) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** The embedded store on the runtime's clock (test/support/runtime.ts counts none unless given one). */
const counters = (now: () => number) => new SqliteBudgetStore(openDatabase(":memory:"), now);

const notes = (r: TestRuntime) => r.count("artifacts", "type = 'ai_note'");
const noteArgs = (i: number) => ({ content: `loop note ${i}`, title: `Note ${i}` });

describe("budgets through the dispatcher", () => {
  let r: TestRuntime;
  const clock = controlledClock();
  beforeEach(async () => {
    r = await testRuntime({ now: clock.now, budgets: counters(clock.now) });
  });
  afterEach(() => r.close());

  it("a looping model's notes stop at the session's budget; the kernel holds exactly that many", async () => {
    const me = await r.session({ actorId: "user_1" });
    const answers = [];
    for (let i = 0; i < budget.perSession + 20; i++) answers.push(await r.call(NOTE, me, noteArgs(i)));
    expect(answers.filter((a) => a.ok)).toHaveLength(budget.perSession);
    const refused = answers.slice(budget.perSession);
    for (const a of refused) {
      expect(a).toMatchObject({
        ok: false,
        error: { code: "mnote_tool_rate_limited", retryable: true, reason: "session" },
      });
      expect(a.audit.effect).toBe("none");
      const seconds = (a.error as { retryAfterSeconds: number }).retryAfterSeconds;
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(budget.windowSeconds);
      // the catalog's message, with the wait filled in (zh-CN, the default locale)
      expect(a.error!.message).toContain(`${seconds} 秒`);
    }
    expect(notes(r)).toBe(budget.perSession);
  });

  it("a replay of a write already made is answered after the budget is used up, and writes nothing", async () => {
    const me = await r.session({ actorId: "user_1" });
    const first = await r.call(NOTE, me, noteArgs(0), { idempotencyKey: "k_first" });
    expect(first.ok).toBe(true);
    for (let i = 1; i < budget.perSession + 5; i++) await r.call(NOTE, me, noteArgs(i));
    expect(notes(r)).toBe(budget.perSession);
    const again = await r.call(NOTE, me, noteArgs(0), { idempotencyKey: "k_first" });
    expect(again).toMatchObject({ ok: true, audit: { replayed: true, commandId: first.audit.commandId } });
    expect(notes(r)).toBe(budget.perSession);
    // a new write is still refused
    const next = await r.call(NOTE, me, noteArgs(99));
    expect(next.error?.code).toBe("mnote_tool_rate_limited");
  });

  it("dry runs do not count, and the window's end frees the budget", async () => {
    const me = await r.session({ actorId: "user_1" });
    for (let i = 0; i < budget.perSession * 2; i++) {
      const plan = await r.call(NOTE, me, noteArgs(i), { dryRun: true });
      expect(plan).toMatchObject({ ok: true, audit: { effect: "dry_run" } });
    }
    for (let i = 0; i < budget.perSession; i++) expect((await r.call(NOTE, me, noteArgs(i))).ok).toBe(true);
    const over = await r.call(NOTE, me, noteArgs(1000));
    expect(over.error?.code).toBe("mnote_tool_rate_limited");
    clock.advance(budget.windowSeconds * 1000);
    expect((await r.call(NOTE, me, noteArgs(1001))).ok).toBe(true);
    expect(notes(r)).toBe(budget.perSession + 1);
  });

  it("reads have their own budget: a session whose writes are used up still reads, up to the read budget", async () => {
    const me = await r.session({ actorId: "user_1" });
    for (let i = 0; i < budget.perSession + 1; i++) await r.call(NOTE, me, noteArgs(i));
    const read = toolByName("mnote.page.get")!.budget!;
    expect(read.perSession).toBeGreaterThan(budget.perSession);
    let ok = 0;
    let last;
    for (let i = 0; i < read.perSession + 1; i++) {
      last = await r.call("mnote.page.get", me, { includeBody: false });
      if (last.ok) ok++;
    }
    expect(ok).toBe(read.perSession);
    expect(last).toMatchObject({ ok: false, error: { code: "mnote_tool_rate_limited", reason: "session" } });
  });
});

describe("budgets lowered by the host's policy", () => {
  const clock = controlledClock();
  const lowered = (budgets: Record<string, unknown>) => approvalPolicyFrom({ ...allowEveryTool(), budgets });

  it("a lower per-session count holds; a person's other session shares the per-principal count", async () => {
    const policy = lowered({ [NOTE]: { perSession: 3, perActor: 5 } });
    const r = await testRuntime({ now: clock.now, approval: { policy }, budgets: counters(clock.now) });
    try {
      const a = await r.session({ actorId: "user_1" });
      const b = await r.session({ actorId: "user_1" });
      const inA = [];
      for (let i = 0; i < 4; i++) inA.push(await r.call(NOTE, a, noteArgs(i)));
      expect(inA.map((x) => x.ok)).toEqual([true, true, true, false]);
      expect(inA[3]!.error?.reason).toBe("session");
      const inB = [];
      for (let i = 0; i < 3; i++) inB.push(await r.call(NOTE, b, noteArgs(10 + i)));
      expect(inB.map((x) => x.ok)).toEqual([true, true, false]);
      expect(inB[2]!.error?.reason).toBe("actor");
      expect(notes(r)).toBe(5);
      // another tool's budget is its own
      expect((await r.call("mnote.artifact.create_summary", b, { summary: "S.", baseRevision: 0 })).ok).toBe(true);
    } finally {
      await r.close();
    }
  });

  it("refuses a policy that raises a ceiling, names a tool without a budget or an unknown tool", () => {
    expect(() => lowered({ [NOTE]: { perSession: budget.perSession + 1 } })).toThrow(ApprovalPolicyError);
    expect(() => lowered({ [NOTE]: { perSession: budget.perSession + 1 } })).toThrow(
      `at /budgets/${NOTE}/perSession: ${budget.perSession + 1} raises the contract's ceiling of ${budget.perSession}`,
    );
    expect(() => lowered({ "mnote.page.nope": { perSession: 1 } })).toThrow("the contract has no tool mnote.page.nope");
    // the schema: counts are positive integers, at least one of them, nothing else
    expect(() => lowered({ [NOTE]: {} })).toThrow(ApprovalPolicyError);
    expect(() => lowered({ [NOTE]: { perSession: 0 } })).toThrow(ApprovalPolicyError);
    expect(() => lowered({ [NOTE]: { windowSeconds: 1 } })).toThrow(ApprovalPolicyError);
    expect(() => lowered({ [NOTE]: { perSession: "3" } })).toThrow(ApprovalPolicyError);
  });
});

describe("an approved write counts once", () => {
  const clock = controlledClock();
  const TITLE = "mnote.page.update_title";

  it("previews never count; each approved write counts once; its replay is answered after the budget is used up", async () => {
    // the contract's level for update_title is ask; the budget lowered to 2 per session
    const policy = approvalPolicyFrom({ budgets: { [TITLE]: { perSession: 2 } } });
    const r = await testRuntime({ now: clock.now, approval: { policy }, budgets: counters(clock.now) });
    try {
      const me = await r.session({ actorId: "user_1" });
      const approvedWrite = async (title: string, revision: number) => {
        const args = { title, baseRevision: revision };
        // several previews of the same call: dry runs, not counted
        for (let i = 0; i < 3; i++)
          expect((await r.call(TITLE, me, args)).error?.code).toBe("mnote_tool_approval_required");
        const preview = await r.call(TITLE, me, args);
        const request = makeRequest(TITLE, args, { approval: { token: preview.error!.approval!.token } }, me);
        return { request, answer: await r.runtime.dispatcher.dispatch(request) };
      };
      const first = await approvedWrite("First title", 0);
      expect(first.answer).toMatchObject({ ok: true, audit: { effect: "write", approval: { decision: "approved" } } });
      const second = await approvedWrite("Second title", 1);
      expect(second.answer.ok).toBe(true);
      const third = await approvedWrite("Third title", 2);
      expect(third.answer).toMatchObject({ ok: false, error: { code: "mnote_tool_rate_limited", reason: "session" } });
      expect(r.count("command_log")).toBe(2);
      // the first approved write, sent again (its answer lost): replayed, not refused
      const again = await r.runtime.dispatcher.dispatch(first.request);
      expect(again).toMatchObject({ ok: true, audit: { replayed: true, commandId: first.answer.audit.commandId } });
      expect(r.count("command_log")).toBe(2);
    } finally {
      await r.close();
    }
  });
});

describe("a budget store that cannot be used", () => {
  it("is reported, and the calls are judged by the process's own counters: the budget still holds", async () => {
    const reported: string[] = [];
    const r = await testRuntime({
      budgets: { take: () => Promise.reject(new Error("connection refused")) },
      onStoreError: (e) => reported.push((e as Error).message),
    });
    try {
      const me = await r.session({ actorId: "user_1" });
      const answers = [];
      for (let i = 0; i < budget.perSession + 3; i++) answers.push(await r.call(NOTE, me, noteArgs(i)));
      expect(answers.filter((a) => a.ok)).toHaveLength(budget.perSession);
      for (const a of answers.slice(budget.perSession))
        expect(a.error).toMatchObject({ code: ERR.rateLimited, reason: "session" });
      expect(notes(r)).toBe(budget.perSession);
      expect(new Set(reported)).toEqual(
        new Set([
          "the budget counters cannot be used (connection refused): the call is judged by this process's own counters",
        ]),
      );
      expect(reported).toHaveLength(budget.perSession + 3);
    } finally {
      await r.close();
    }
  });
});
