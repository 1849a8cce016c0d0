/** Capability scope and the trusted session binding. */
import { testRuntime, failed, ok, type TestRuntime } from "../support/runtime";
import { makeRequest, sampleArgs } from "../support/requests";

describe("capability scope", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());

  it("a tool runs only if the request's scope holds its capability", async () => {
    const as = await t.session({ actorId: "user_1", capabilityScope: ["page.read"] });
    expect(ok(await t.call("mnote.page.get", as)).audit.effect).toBe("read");
    for (const tool of ["mnote.page.save", "mnote.artifact.create_summary"]) {
      const r = failed(await t.call(tool, as));
      expect([tool, r.error.code, r.error.reason]).toEqual([tool, "mnote_tool_permission_denied", "scope"]);
    }
  });

  it("unknown, wildcard and miscased scopes are rejected as invalid input, naming the pointer", async () => {
    const as = await t.session({ actorId: "user_1" });
    for (const scope of ["*", "page.*", "Page.Read", "page.admin", "PAGE.WRITE"]) {
      const r = failed(
        await t.runtime.dispatcher.dispatch(makeRequest("mnote.page.get", {}, { capabilityScope: [scope] }, as)),
      );
      expect([scope, r.error.code, r.error.pointer]).toEqual([scope, "mnote_tool_invalid_input", "/capabilityScope/0"]);
    }
  });

  it("the user's own permission is checked as well: scope alone is not enough", async () => {
    const reader = await t.session({ actorId: "user_2", capabilityScope: ["page.read", "page.write"] });
    const r = failed(await t.call("mnote.page.update_title", reader));
    expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_permission_denied", "page_write"]);
  });
});

describe("session binding", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());

  const mismatches: Array<[string, Record<string, unknown>]> = [
    ["another actor", { actorId: "user_2" }],
    ["another workspace", { workspaceId: "ws_2" }],
    ["another page", { documentId: "doc_secret" }],
    ["a wider scope than granted", { capabilityScope: ["page.read", "page.write"] }],
  ];

  it.each(mismatches)(
    "a request claiming %s than its grant is refused, and writes nothing",
    async (_what, override) => {
      const as = await t.session({ actorId: "user_1", capabilityScope: ["page.read"] });
      const before = t.kernelStateHash();
      const r = failed(
        await t.runtime.dispatcher.dispatch(
          makeRequest("mnote.page.save", sampleArgs["mnote.page.save"], override, as),
        ),
      );
      expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_permission_denied", "session_mismatch"]);
      expect(t.kernelStateHash()).toBe(before);
    },
  );

  it("a narrower scope than granted is fine", async () => {
    const as = await t.session({ actorId: "user_1" });
    expect(
      (await t.runtime.dispatcher.dispatch(makeRequest("mnote.page.get", {}, { capabilityScope: ["page.read"] }, as)))
        .ok,
    ).toBe(true);
  });

  it("an unknown session and an expired grant: not_authenticated", async () => {
    const ghost = {
      sessionId: "never_granted",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read"],
    };
    expect(failed(await t.call("mnote.page.get", ghost)).error).toMatchObject({
      code: "mnote_tool_not_authenticated",
      reason: "session_unknown",
    });
    const expired = await t.session({ actorId: "user_1" }, { ttlMs: -1000 });
    expect(failed(await t.call("mnote.page.get", expired)).error).toMatchObject({
      code: "mnote_tool_not_authenticated",
      reason: "session_expired",
    });
  });

  it("a grant of another workspace does not open this one, and leaks nothing of it", async () => {
    const other = await t.session({
      actorId: "user_3",
      workspaceId: "ws_2",
      documentId: "doc_other",
      capabilityScope: ["page.read"],
    });
    const r = failed(
      await t.runtime.dispatcher.dispatch(
        makeRequest("mnote.page.get", {}, { workspaceId: "ws_1", documentId: "doc_1" }, other),
      ),
    );
    expect(r.error.reason).toBe("session_mismatch");
    expect(JSON.stringify(r)).not.toContain("项目计划");
  });

  it("a revoked grant stops the session at once", async () => {
    const as = await t.session({ actorId: "user_1" });
    expect((await t.call("mnote.page.get", as)).ok).toBe(true);
    await t.runtime.grants.revoke(as.sessionId);
    expect(failed(await t.call("mnote.page.get", as)).error.code).toBe("mnote_tool_not_authenticated");
  });
});
