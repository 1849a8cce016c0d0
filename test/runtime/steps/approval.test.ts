/**
 * The approval step alone (runtime/dispatch/steps/approval.ts): deny refuses, ask without a token
 * previews (a dry run, no write) and answers approval_required with a token; the token writes once,
 * with the previewed revision; a second use, a "no", an altered token are refused without a write;
 * a dry run that changes nothing asks nobody; an expired token of a write that committed replays it.
 */
import type * as T from "../../../generated/types";
import { ERR } from "../../../generated/registry";
import { approvalLevel, askedWrite } from "../../../runtime/dispatch/steps/approval";
import { DEFAULT_APPROVAL_TTL_MS } from "../../../runtime/dispatch/api";
import { REPLACE, saveCall, stepDeps, thrown } from "./fixture";

/** The token approval_required carried, for the same call made again. */
async function tokenFor(t: ReturnType<typeof stepDeps>, args = REPLACE): Promise<string> {
  const e = (await thrown(() => askedWrite(t.deps, saveCall(args)))) as {
    code: string;
    detail: { approval: T.ApprovalChallenge };
  };
  expect(e.code).toBe(ERR.approvalRequired);
  return e.detail.approval.token;
}

describe("approval step", () => {
  it("the level: a host policy of deny refuses the call (reason policy), ask passes on", () => {
    const deny = stepDeps({
      approval: { policy: { tools: new Map([["mnote.page.save", "deny"]]), sessions: new Map() } },
    });
    const ask = stepDeps();
    try {
      const e = (() => {
        try {
          approvalLevel(deny.deps, saveCall());
        } catch (e) {
          return e as { code: string; detail: { reason: string } };
        }
      })();
      expect([e?.code, e?.detail.reason]).toEqual([ERR.approvalDenied, "policy"]);
      expect(approvalLevel(ask.deps, saveCall())).toBe("ask");
    } finally {
      deny.close();
      ask.close();
    }
  });

  it("no token: a dry run becomes the preview, approval_required, and nothing is written", async () => {
    const t = stepDeps();
    try {
      const e = (await thrown(() => askedWrite(t.deps, saveCall()))) as {
        code: string;
        detail: { approval: T.ApprovalChallenge; decision: T.ApprovalAudit };
      };
      expect(e.code).toBe(ERR.approvalRequired);
      expect(e.detail.approval.preview).toMatchObject({ revision: 7, ops: [{ op: "replace" }] });
      expect(e.detail.decision).toEqual({ decision: "required", level: "ask" });
      expect(t.kernel.sent.map((s) => s.payload.dryRun)).toEqual([true]);
      expect(t.kernel.writes()).toHaveLength(0);
    } finally {
      t.close();
    }
  });

  it("the token writes once, bound to the previewed revision; its second use on another write is refused", async () => {
    const t = stepDeps();
    try {
      const token = await tokenFor(t);
      const outcome = await askedWrite(t.deps, saveCall(REPLACE, { approval: { token, approvedBy: "user_2" } }));
      expect(outcome.approval).toEqual({ decision: "approved", level: "ask", approvedBy: "user_2" });
      expect(t.kernel.writes().map((w) => w.payload.args.baseRevision)).toEqual([7]);
      const again = await thrown(() => askedWrite(t.deps, saveCall(REPLACE, { approval: { token } })));
      expect([again.code, again.detail?.reason]).toEqual([ERR.approvalInvalid, "replayed"]);
      expect(t.kernel.writes()).toHaveLength(1);
    } finally {
      t.close();
    }
  });

  it("a person's no uses the token up and writes nothing; an altered token is invalid", async () => {
    const t = stepDeps();
    try {
      const token = await tokenFor(t);
      const no = await thrown(() => askedWrite(t.deps, saveCall(REPLACE, { approval: { token, answer: "declined" } })));
      expect([no.code, no.detail?.reason]).toEqual([ERR.approvalDenied, "declined"]);
      const after = await thrown(() => askedWrite(t.deps, saveCall(REPLACE, { approval: { token } })));
      expect([after.code, after.detail?.reason]).toEqual([ERR.approvalInvalid, "replayed"]);
      const altered = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
      const bad = await thrown(() => askedWrite(t.deps, saveCall(REPLACE, { approval: { token: altered } })));
      expect(bad.code).toBe(ERR.approvalInvalid);
      expect(t.kernel.writes()).toHaveLength(0);
    } finally {
      t.close();
    }
  });

  it("a dry run that changes nothing asks nobody: its result is the answer (decision unchanged)", async () => {
    const t = stepDeps();
    try {
      const call = t.kernel.port.call.bind(t.kernel.port);
      t.kernel.port.call = (async (command: never, payload: never) => {
        const reply = (await call(command, payload)) as { result: { diff: unknown[] } };
        reply.result.diff = [];
        return reply;
      }) as typeof t.kernel.port.call;
      const outcome = await askedWrite(t.deps, saveCall());
      expect([outcome.effect, outcome.approval]).toEqual(["dry_run", { decision: "unchanged", level: "ask" }]);
      expect(t.kernel.writes()).toHaveLength(0);
    } finally {
      t.close();
    }
  });

  it("an expired token: approval_expired, unless the write it approved committed, which then replays", async () => {
    let clock = Date.now();
    const t = stepDeps({ now: () => clock });
    try {
      const request = { idempotencyKey: "k1", keyOrigin: "caller" };
      const token = await tokenFor(t);
      const other = await tokenFor(t);
      await askedWrite(t.deps, saveCall(REPLACE, { ...request, approval: { token } }));
      clock += DEFAULT_APPROVAL_TTL_MS + 1;
      const replay = await askedWrite(t.deps, saveCall(REPLACE, { ...request, approval: { token } }));
      expect(replay.replayed).toBe(true);
      const never = await thrown(() =>
        askedWrite(t.deps, saveCall(REPLACE, { idempotencyKey: "k2", approval: { token: other } })),
      );
      expect(never.code).toBe(ERR.approvalExpired);
      expect(t.kernel.writes()).toHaveLength(1);
    } finally {
      t.close();
    }
  });
});
