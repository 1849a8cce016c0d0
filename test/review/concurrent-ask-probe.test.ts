import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { ERR } from "../../generated/registry";
import { failed, testRuntime } from "../support/runtime";

const REPLACE = { content: [{ type: "paragraph", text: "Asked at once." }], mode: "replace" };

// probe: two retries of one call at once (no token yet, as two processes resuming it would send):
// both should read approval_required naming one record, not one of them a store_unavailable
test("two first asks of the same call at once: both approval_required, one record", async () => {
  const errors: unknown[] = [];
  const t = await testRuntime({
    approval: { policy: EMPTY_POLICY },
    onStoreError: (e: unknown) => errors.push(e),
  } as never);
  try {
    const as = await t.session({ actorId: "user_1" });
    const send = () => t.call("mnote.page.save", as, REPLACE, { toolCallId: "call_same", idempotencyKey: "key_same" });
    const [a, b] = await Promise.all([send(), send()]);
    const codes = [failed(a).error.code, failed(b).error.code];
    console.log("codes:", codes, "store errors:", errors.map(String));
    expect(codes).toEqual([ERR.approvalRequired, ERR.approvalRequired]);
  } finally {
    await t.close();
  }
});
