/** The design note's permission check points, and the no-leak rule. */
import { validateToolResponse } from "../../generated/validators";
import { testRuntime, failed, ok, type TestRuntime } from "../support/runtime";
import { sampleArgs } from "../support/requests";
import { toolList } from "../../generated/registry";

const SECRET_TITLE = "薪酬调整（机密）";
const SECRET_BODY = "只有所有者可以看到这一页。";

describe("permission check points", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());

  it("not logged in: a disabled user, or one the kernel does not know, gets not_authenticated", async () => {
    for (const actorId of ["user_4", "user_ghost"]) {
      const as = await t.session({ actorId });
      const r = failed(await t.call("mnote.page.get", as));
      expect(r.error.code).toBe("mnote_tool_not_authenticated");
    }
  });

  it("not a workspace member: permission_denied, reason not_member", async () => {
    const as = await t.session({ actorId: "user_3" });
    const r = failed(await t.call("mnote.page.get", as));
    expect([r.error.code, r.error.reason, r.error.message]).toEqual([
      "mnote_tool_permission_denied",
      "not_member",
      "不是该工作区成员",
    ]);
  });

  it("page read: a member without a grant on the page cannot read it", async () => {
    const as = await t.session({ actorId: "user_2", documentId: "doc_secret" });
    const r = failed(await t.call("mnote.page.get", as));
    expect([r.error.code, r.error.reason, r.error.message]).toEqual([
      "mnote_tool_permission_denied",
      "page_read",
      "无页面读取权限",
    ]);
  });

  it("page write: a reader cannot save, rename or change options", async () => {
    const as = await t.session({ actorId: "user_2" });
    for (const tool of ["mnote.page.save", "mnote.page.update_title", "mnote.page.update_options"]) {
      const r = failed(await t.call(tool, as));
      expect([tool, r.error.code, r.error.reason, r.error.message]).toEqual([
        tool,
        "mnote_tool_permission_denied",
        "page_write",
        "无页面写权限",
      ]);
    }
  });

  it("artifact write: a reader, or a writer without artifact.write, cannot create artifacts", async () => {
    const reader = await t.session({ actorId: "user_2" });
    const t4 = await testRuntime();
    // user_4 is disabled in the demo; enable them as a writer without artifact.write
    t4.kernel.db.prepare("UPDATE users SET active = 1 WHERE id = 'user_4'").run();
    const writer = await t4.session({ actorId: "user_4" });
    for (const [rt, as] of [
      [t, reader],
      [t4, writer],
    ] as const) {
      for (const tool of ["mnote.artifact.create_summary", "mnote.artifact.create_ai_note"]) {
        const r = failed(await rt.call(tool, as));
        expect([tool, r.error.reason]).toEqual([tool, "artifact_write"]);
      }
    }
    expect(ok(await t4.call("mnote.page.update_title", writer, { title: "Renamed by a writer" })).result.revision).toBe(
      1,
    );
    await t4.close();
  });

  it("the owner passes every check point", async () => {
    const as = await t.session({ actorId: "user_1" });
    for (const tool of toolList) {
      const { baseRevision: _stale, ...args } = sampleArgs[tool.name]!;
      expect([tool.name, (await t.call(tool.name, as, args)).ok]).toEqual([tool.name, true]);
    }
  });
});

describe("a page that does not exist and a page the actor cannot read", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());

  it.each(toolList.map((tool) => [tool.name]))("%s: same code, same message, same fields", async (toolName) => {
    const hidden = await t.session({ actorId: "user_2", documentId: "doc_secret", sessionId: "s_hidden" });
    const missing = await t.session({ actorId: "user_2", documentId: "doc_nowhere", sessionId: "s_missing" });
    const overrides = { toolCallId: "call_same", idempotencyKey: "key_same" };
    const a = failed(await t.call(toolName, hidden, sampleArgs[toolName], overrides));
    const b = failed(await t.call(toolName, missing, sampleArgs[toolName], overrides));
    expect(a.error).toEqual(b.error);
    expect(a.error).toMatchObject({ code: "mnote_tool_permission_denied", reason: "page_read" });
    expect({ ...a, audit: { ...a.audit, documentId: null } }).toEqual({
      ...b,
      audit: { ...b.audit, documentId: null },
    });
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  });

  it("a page of another workspace is as good as missing", async () => {
    const as = await t.session({ actorId: "user_1", documentId: "doc_other" });
    expect(failed(await t.call("mnote.page.get", as)).error.reason).toBe("page_read");
  });
});

describe("no failure leaks the content of a page the actor cannot read", () => {
  it("in any tool's failure, for every actor who lacks access", async () => {
    const t = await testRuntime();
    const responses: unknown[] = [];
    for (const actorId of ["user_2", "user_3", "user_4", "user_ghost"]) {
      const as = await t.session({ actorId, documentId: "doc_secret" });
      for (const tool of toolList) {
        for (const dryRun of [false, true]) {
          const r = await t.call(tool.name, as, sampleArgs[tool.name], tool.effect === "write" ? { dryRun } : {});
          expect(r.ok).toBe(false);
          expect(validateToolResponse(r)).toBe(true);
          responses.push(r);
        }
      }
    }
    const text = JSON.stringify(responses);
    expect(text).not.toContain(SECRET_TITLE);
    expect(text).not.toContain(SECRET_BODY);
    expect(text).not.toContain("薪酬");
    await t.close();
  });
});
