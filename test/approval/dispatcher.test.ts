/**
 * Approval in the dispatcher (docs/APPROVAL.md): the contract's levels (page.save replace and
 * update_title ask, the rest allow), the preview the runtime makes from the dry run, the token
 * (single use, bound to session, tool, args and revision, expiring on a controlled clock), the
 * host policy (deny wins), and the kernel's state after every refusal.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { createRuntime } from "../../runtime/runtime";
import { seedKernel } from "../../kernel/seed";
import { EMPTY_POLICY, approvalPolicyFrom, ApprovalPolicyError } from "../../runtime/approval/policy";
import { demoSeed, failed, hashDatabaseFile, ok, testRuntime, type Actor, type TestRuntime } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { ERR, errorCatalog } from "../../generated/registry";
import { failure } from "../../runtime/dispatch/tool-failure";
import type { TokenProblem } from "../../runtime/approval/token";

const REPLACE = {
  content: [{ type: "paragraph", text: "A new body." }],
  mode: "replace",
  baseRevision: 0,
};
const APPEND = { content: [{ type: "paragraph", text: "One more." }], mode: "append" };

/** A runtime on the contract's levels (no host policy) with a clock the test moves. */
async function contractLevels(policy: unknown = undefined) {
  let clock = Date.now();
  const t = await testRuntime({
    now: () => clock,
    approval: { policy: policy === undefined ? EMPTY_POLICY : approvalPolicyFrom(policy) },
  });
  return { t, advance: (ms: number) => (clock += ms) };
}

function body(t: TestRuntime): string[] {
  return (
    t.kernel.db.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1' ORDER BY position").all() as Array<{
      text: string;
    }>
  ).map((r) => r.text);
}

async function ask(t: TestRuntime, as: Actor, tool = "mnote.page.save", args: Record<string, unknown> = REPLACE) {
  const r = failed(await t.call(tool, as, args));
  expect(r.error.code).toBe("mnote_tool_approval_required");
  return r;
}

describe("approval: the contract's levels", () => {
  let t: TestRuntime;
  let advance: (ms: number) => number;
  let owner: Actor;
  beforeEach(async () => {
    ({ t, advance } = await contractLevels());
    owner = await t.session({ actorId: "user_1" });
  });
  afterEach(() => t.close());

  it("page.save replace: a preview from the dry run, nothing written; the same call with the token writes exactly once", async () => {
    const before = t.kernelStateHash();
    const blocksBefore = body(t).length;
    const r = await ask(t, owner);
    expect(r.audit).toMatchObject({
      effect: "none",
      commandId: null,
      approval: { decision: "required", level: "ask" },
    });
    const challenge = r.error.approval!;
    expect(challenge.preview).toEqual({
      commandName: "page.body.save",
      ops: [
        {
          op: "replace",
          blocks: 1,
          removedBlocks: blocksBefore,
          excerpts: ["A new body."],
          removedExcerpts: ["章节一", "第一段：确定范围与里程碑。", "整理需求清单"],
        },
      ],
      revision: 0,
      pageTitle: "项目计划",
      blockCounts: { before: blocksBefore, after: 1 },
    });
    expect(Date.parse(challenge.expiresAt) - t.runtime.now()).toBe(10 * 60 * 1000);
    expect(t.kernelStateHash()).toBe(before);
    expect(t.count("command_log")).toBe(0);

    const request = makeRequest("mnote.page.save", REPLACE, { approval: { token: challenge.token } }, owner);
    const done = ok(await t.runtime.dispatcher.dispatch(request));
    expect(done.result.revision).toBe(1);
    expect(done.audit).toMatchObject({
      effect: "write",
      replayed: false,
      approval: { decision: "approved", level: "ask", approvedBy: "user_1" },
    });
    expect(body(t)).toEqual(["A new body."]);
    expect(t.count("command_log")).toBe(1);

    // the same write again (same key, same token): replayed, not written twice
    const again = ok(await t.runtime.dispatcher.dispatch(request));
    expect(again.audit.replayed).toBe(true);
    expect(t.count("command_log")).toBe(1);

    // the token for another write (a new key): used up
    const after = t.kernelStateHash();
    const replay = failed(await t.call("mnote.page.save", owner, REPLACE, { approval: { token: challenge.token } }));
    expect([replay.error.code, replay.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
    expect(replay.audit.approval).toEqual({ decision: "invalid", level: "ask" });
    expect(t.kernelStateHash()).toBe(after);
  });

  it("approvedBy names who approved in the audit", async () => {
    const { token } = (await ask(t, owner)).error.approval!;
    const done = ok(
      await t.call("mnote.page.save", owner, REPLACE, { approval: { token, approvedBy: "lin_at_desk" } }),
    );
    expect(done.audit.approval).toEqual({ decision: "approved", level: "ask", approvedBy: "lin_at_desk" });
  });

  it("approving after someone else changed the page: conflict, nothing written; the retry without a token gets a fresh preview", async () => {
    const { token } = (await ask(t, owner, "mnote.page.save", { ...REPLACE, baseRevision: undefined })).error.approval!;
    ok(await t.call("mnote.page.save", owner, APPEND)); // append is allow: someone else's edit
    const changed = t.kernelStateHash();
    const r = failed(
      await t.call("mnote.page.save", owner, { ...REPLACE, baseRevision: undefined }, { approval: { token } }),
    );
    expect(r.error.code).toBe("mnote_tool_conflict");
    expect(t.kernelStateHash()).toBe(changed);
    const fresh = await ask(t, owner, "mnote.page.save", { ...REPLACE, baseRevision: undefined });
    expect(fresh.error.approval!.preview.revision).toBe(1);
  });

  it("a token altered, for other args, another session or another tool is refused, with state unchanged", async () => {
    const { token } = (await ask(t, owner)).error.approval!;
    const other = await t.session({ actorId: "user_1" });
    const before = t.kernelStateHash();
    const [payload, mac] = token.split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...claims, s: other.sessionId })).toString("base64url") + "." + mac;
    const flipped = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    const cases: Array<[string, Actor, string, Record<string, unknown>, string, string]> = [
      ["altered mac", owner, "mnote.page.save", REPLACE, flipped, "altered"],
      ["altered payload", other, "mnote.page.save", REPLACE, forged, "altered"],
      [
        "other args",
        owner,
        "mnote.page.save",
        { ...REPLACE, content: [{ type: "paragraph", text: "Other." }] },
        token,
        "other_args",
      ],
      ["other session", other, "mnote.page.save", REPLACE, token, "other_session"],
      ["other tool", owner, "mnote.page.update_title", { title: "Renamed", baseRevision: 0 }, token, "other_tool"],
    ];
    for (const [name, as, tool, args, tok, reason] of cases) {
      const r = failed(await t.call(tool, as, args, { approval: { token: tok } }));
      expect([name, r.error.code, r.error.reason, r.audit.approval?.decision]).toEqual([
        name,
        "mnote_tool_approval_invalid",
        reason,
        "invalid",
      ]);
    }
    expect(t.kernelStateHash()).toBe(before);
    // refusals do not use the token up: the call it was made for still goes through
    ok(await t.call("mnote.page.save", owner, REPLACE, { approval: { token } }));
  });

  it("a token past its expiry (controlled clock) is approval_expired, nothing written", async () => {
    const { token } = (await ask(t, owner)).error.approval!;
    advance(10 * 60 * 1000 - 1);
    const before = t.kernelStateHash();
    advance(1);
    const r = failed(await t.call("mnote.page.save", owner, REPLACE, { approval: { token } }));
    expect([r.error.code, r.audit.approval]).toEqual([
      "mnote_tool_approval_expired",
      { decision: "expired", level: "ask" },
    ]);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("a malformed token is refused by the envelope's schema", async () => {
    const r = failed(await t.call("mnote.page.save", owner, REPLACE, { approval: { token: "not a token" } }));
    expect([r.error.code, r.error.pointer]).toEqual(["mnote_tool_invalid_input", "/approval/token"]);
  });

  it("page.save append and the artifact tools are allow; update_title asks with the new title in the preview", async () => {
    ok(await t.call("mnote.page.save", owner, APPEND));
    ok(await t.call("mnote.artifact.create_ai_note", owner));
    const r = await ask(t, owner, "mnote.page.update_title", { title: "Project plan", baseRevision: 1 });
    expect(r.error.approval!.preview).toEqual({
      commandName: "page.head.updateTitle",
      ops: [{ op: "set_title", value: "Project plan", previous: "项目计划" }],
      revision: 1,
      pageTitle: "项目计划",
    });
    expect(r.error.approval!.summary).toBe("重命名页面：「项目计划」 → 「Project plan」。");
    // a dry run is not a write: it needs no approval
    const dry = ok(await t.call("mnote.page.save", owner, { ...REPLACE, baseRevision: 1 }, { dryRun: true }));
    expect(dry.audit.effect).toBe("dry_run");
  });
});

describe("approval: the host policy", () => {
  it("deny wins: a workspace deny beats a session allow, for writes and dry runs alike; nothing written", async () => {
    const { t } = await contractLevels({
      tools: { "mnote.page.save": "deny" },
      sessions: { s_allowed: { tools: { "mnote.page.save": "allow" } } },
    });
    const as = await t.session({ actorId: "user_1", sessionId: "s_allowed" });
    const before = t.kernelStateHash();
    for (const overrides of [{}, { dryRun: true }]) {
      const r = failed(await t.call("mnote.page.save", as, APPEND, overrides));
      expect([r.error.code, r.error.reason, r.audit.approval]).toEqual([
        "mnote_tool_approval_denied",
        "policy",
        { decision: "denied", level: "deny" },
      ]);
    }
    expect(t.kernelStateHash()).toBe(before);
    await t.close();
  });

  it("loosens and tightens: a session allows update_title, the workspace asks for every page.save", async () => {
    const { t } = await contractLevels({
      tools: { "mnote.page.save": "ask" },
      sessions: { s_trusted: { tools: { "mnote.page.update_title": "allow" } } },
    });
    const trusted = await t.session({ actorId: "user_1", sessionId: "s_trusted" });
    const other = await t.session({ actorId: "user_1" });
    ok(await t.call("mnote.page.update_title", trusted, { title: "Renamed" }));
    await ask(t, other, "mnote.page.update_title", { title: "Renamed again" });
    await ask(t, other, "mnote.page.save", APPEND);
    await t.close();
  });

  it("a policy is checked against the contract before use: no prototype keys, no unknown tools or fields, no ask without a dry run", () => {
    const bad: Array<[unknown, RegExp]> = [
      [JSON.parse('{"tools": {"__proto__": "allow"}}'), /tools/],
      [{ tools: { "mnote.page.delete": "allow" } }, /no tool mnote\.page\.delete/],
      [
        { tools: { "mnote.page.save": { default: "allow", when: [{ args: { force: true }, approval: "ask" }] } } },
        /no args field force/,
      ],
      [{ tools: { "mnote.page.get": "ask" } }, /no dry run/],
      [{ tools: { "mnote.page.save": "sometimes" } }, /tools/],
      [{ sessions: { "bad id!": { tools: {} } } }, /sessions/],
      [{ tool: {} }, /additional/],
    ];
    for (const [policy, message] of bad) expect(() => approvalPolicyFrom(policy)).toThrow(message);
    expect(() => approvalPolicyFrom({ tools: { "mnote.page.get": "ask" } })).toThrow(ApprovalPolicyError);
  });
});

describe("approval: the SQLite store across a restart", () => {
  it("a token made before a restart is honoured once after it, and stays used up after another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mnote-approval-"));
    const files = {
      kernel: { kind: "embedded" as const, path: join(dir, "kernel.db") },
      statePath: join(dir, "state.db"),
    };
    const open = () => createRuntime({ ...files, approval: { policy: EMPTY_POLICY } });
    let runtime = open();
    seedKernel(runtime.embeddedKernel!, demoSeed());
    const grant = { sessionId: "s1", workspaceId: "ws_1", documentId: "doc_1", actorId: "user_1" };
    await runtime.grants.put({
      ...grant,
      capabilityScope: ["page.read", "page.write"],
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const ids = { ...grant, capabilityScope: ["page.read", "page.write"] };
    const asked = failed(await runtime.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, {}, ids)));
    const token = asked.error.approval!.token;
    await runtime.close();

    runtime = open(); // the state file's secret and nonces survive
    ok(await runtime.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, { approval: { token } }, ids)));
    await runtime.close();

    runtime = open();
    const before = hashDatabaseFile(files.kernel.path);
    const replay = failed(
      await runtime.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, { approval: { token } }, ids)),
    );
    expect([replay.error.code, replay.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
    await runtime.close();
    expect(hashDatabaseFile(files.kernel.path)).toBe(before);
  });
});

describe("a refusal's reason is the catalog's, checked by the compiler", () => {
  it("failure() takes a reason of its code only; a token's problems are approval_invalid reasons or expired", () => {
    const altered = failure(ERR.approvalInvalid, "altered", { decision: { decision: "invalid", level: "ask" } });
    expect([altered.code, altered.detail.reason, altered.detail.decision?.decision]).toEqual([
      "mnote_tool_approval_invalid",
      "altered",
      "invalid",
    ]);
    expect(failure(ERR.storeUnavailable, undefined).detail).toEqual({});
    // @ts-expect-error a reason the catalog does not define for approval_invalid
    expect(failure(ERR.approvalInvalid, "alterd").detail.reason).toBe("alterd");
    // @ts-expect-error declined is approval_denied's reason, not approval_invalid's
    failure(ERR.approvalInvalid, "declined");
    const problems: TokenProblem[] = ["altered", "other_tool", "other_session", "other_args", "expired"];
    const reasons = Object.keys(errorCatalog[ERR.approvalInvalid].reasons);
    expect(problems.filter((p) => p !== "expired" && !reasons.includes(p))).toEqual([]);
  });
});
