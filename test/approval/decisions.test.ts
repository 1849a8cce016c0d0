/**
 * Issue 28 item 6: every decision reaches the runtime. A host whose person did not say yes sends
 * the same call with {token, answer} (declined, timed_out, no_one_to_ask): the runtime checks the
 * token, answers approval_denied with that reason, logs the decision with tool, session and reason,
 * and uses the token up (a later yes with it is refused); nothing is written.
 */
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import type { CallRecord } from "../../runtime/dispatch/dispatcher";
import { approvalIdOf } from "../../runtime/approval/token";
import { failed, testRuntime } from "../support/runtime";

const REPLACE = { content: [{ type: "paragraph", text: "Nobody said yes." }], mode: "replace" };

it.each(["declined", "timed_out", "no_one_to_ask"] as const)(
  "answer %s: approval_denied with that reason, in the log, the token used up, nothing written",
  async (answer) => {
    const log: CallRecord[] = [];
    const t = await testRuntime({ approval: { policy: EMPTY_POLICY }, onCall: (r) => log.push(r) });
    try {
      const as = await t.session({ actorId: "user_1" });
      const before = t.kernelStateHash();
      const { token } = failed(await t.call("mnote.page.save", as, REPLACE)).error.approval!;
      const r = failed(await t.call("mnote.page.save", as, REPLACE, { approval: { token, answer } }));
      expect([r.error.code, r.error.reason, r.audit.approval]).toEqual([
        "mnote_tool_approval_denied",
        answer,
        { decision: "denied", level: "ask" },
      ]);
      expect(log[1]).toMatchObject({
        toolName: "mnote.page.save",
        sessionId: as.sessionId,
        approval: { decision: "denied" },
        reason: answer,
      });
      // a no is final: the same token cannot approve afterwards; its approval record says why
      const later = failed(await t.call("mnote.page.save", as, REPLACE, { approval: { token } }));
      expect([later.error.code, later.error.reason]).toEqual(["mnote_tool_approval_denied", answer]);
      const record = await t.runtime.approvalRecords.get(approvalIdOf(token)!);
      expect([record?.status, record?.reason]).toEqual([answer === "declined" ? "declined" : "cancelled", answer]);
      expect(t.kernelStateHash()).toBe(before);
      // a forged or foreign token is not a decision anyone can record
      const forged = failed(
        await t.call("mnote.page.save", as, REPLACE, { approval: { token: token.slice(0, -2) + "AA", answer } }),
      );
      expect([forged.error.code, forged.error.reason]).toEqual(["mnote_tool_approval_invalid", "altered"]);
    } finally {
      await t.close();
    }
  },
);
