/**
 * Review finding (issue 44: "a replay after the budget is reached still replays; the answer the
 * model lost is never refused"): when the idempotency store holds no record of a committed write
 * (it could not record it: store.complete failed, so the claim was freed and "the kernel's own
 * record answers the retry"), the retry of that write after the budget is used up must replay the
 * kernel's record, not be refused as rate_limited. The kernel's command log is asserted: one write.
 */
import { allowEveryTool, approvalPolicyFrom } from "../../runtime/approval/policy";
import { SqliteBudgetStore } from "../../runtime/state/budget-sqlite";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { testRuntime } from "../support/runtime";

const NOTE = "mnote.artifact.create_ai_note";

/** The embedded store, except that it cannot record an outcome (a disk that refused that one write). */
class CannotRecord extends SqliteIdempotencyStore {
  override complete(): Promise<void> {
    return Promise.reject(new Error("SQLITE_FULL: database or disk is full"));
  }
}

it("a committed write the store could not record replays from the kernel after the budget is used up", async () => {
  const policy = approvalPolicyFrom({ ...allowEveryTool(), budgets: { [NOTE]: { perSession: 1 } } });
  const r = await testRuntime({
    approval: { policy },
    idempotency: new CannotRecord(openDatabase(":memory:")),
    budgets: new SqliteBudgetStore(openDatabase(":memory:")),
  });
  try {
    const me = await r.session({ actorId: "user_1" });
    const args = { content: "the note whose answer was lost" };
    const first = await r.call(NOTE, me, args, { idempotencyKey: "k_lost_answer" });
    expect(first).toMatchObject({ ok: true, audit: { effect: "write" } });
    // the budget is used up: a new write is refused
    expect((await r.call(NOTE, me, { content: "another" })).error?.code).toBe("mnote_tool_rate_limited");
    // the lost answer's retry: the same key and args
    const again = await r.call(NOTE, me, args, { idempotencyKey: "k_lost_answer" });
    expect(again).toMatchObject({ ok: true, audit: { replayed: true, commandId: first.audit.commandId } });
    expect(r.count("artifacts", "type = 'ai_note'")).toBe(1);
    expect(r.count("command_log")).toBe(1);
  } finally {
    await r.close();
  }
});
