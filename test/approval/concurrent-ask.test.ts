/**
 * Two first asks of one call at the same moment (no token yet, as two processes resuming it send):
 * both are approval_required naming the one record of the call's first generation; the second's
 * create conflict is read back and answered as askedBefore, never store_unavailable. Nothing is
 * written, and the store reported no failure.
 */
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { approvalIdOf } from "../../runtime/approval/token";
import { ERR } from "../../generated/registry";
import { failed, testRuntime } from "../support/runtime";

const REPLACE = { content: [{ type: "paragraph", text: "Asked at once." }], mode: "replace" };

test("two first asks of the same call at once: both approval_required, one pending record, nothing written", async () => {
  const errors: unknown[] = [];
  const t = await testRuntime({
    approval: { policy: EMPTY_POLICY },
    onStoreError: (e: unknown) => errors.push(e),
  } as never);
  try {
    const as = await t.session({ actorId: "user_1" });
    const send = () => t.call("mnote.page.save", as, REPLACE, { toolCallId: "call_same", idempotencyKey: "key_same" });
    const answers = (await Promise.all([send(), send()])).map((r) => failed(r).error);
    expect(answers.map((e) => e.code)).toEqual([ERR.approvalRequired, ERR.approvalRequired]);
    const approvals = answers.map((e) => (e as { approval?: { token: string; askedBefore?: boolean } }).approval!);
    const ids = approvals.map((a) => approvalIdOf(a.token));
    expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(ids[1]).toBe(ids[0]);
    expect(approvals.filter((a) => a.askedBefore === true)).toHaveLength(1);
    expect((await t.runtime.approvalRecords.get(ids[0]!))?.status).toBe("pending");
    expect(t.count("command_log")).toBe(0);
    expect(errors).toEqual([]);
  } finally {
    await t.close();
  }
});
