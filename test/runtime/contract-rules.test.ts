/**
 * Rules the contract states and both sides now hold (issue 12 items 2, 5 and 8; issue 11 item 6):
 * the page block limit, capability requirements in the session scope, title and block rules, and
 * writes that change nothing keeping the revision. Every refusal is checked against the kernel
 * state too: nothing is written.
 */
import { testRuntime, failed, ok, type TestRuntime } from "../support/runtime";
import { limits } from "../../generated/registry";

describe("one page block limit, held by both sides (issue 12.2)", () => {
  it("a save that would take the page past limits.pageBlocks is refused with page_blocks, dry run included, and page.get keeps working", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    expect(limits.pageBlocks).toBe(2000);
    const blocks = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "paragraph", text: `p${i}` }));
    // 3 seeded blocks; fill the page to exactly the limit
    ok(await t.call("mnote.page.save", as, { content: blocks(500), mode: "replace" }));
    for (let i = 0; i < 3; i++) ok(await t.call("mnote.page.save", as, { content: blocks(500) }));
    expect(t.count("blocks", "page_id = 'doc_1'")).toBe(2000);
    const before = t.kernelStateHash();
    const over = failed(await t.call("mnote.page.save", as, { content: blocks(1) }));
    expect([over.error.code, over.error.reason, over.error.retryable]).toEqual([
      "mnote_tool_payload_too_large",
      "page_blocks",
      false,
    ]);
    const dry = failed(await t.call("mnote.page.save", as, { content: blocks(1) }, { dryRun: true }));
    expect(dry.error.reason).toBe("page_blocks");
    expect(t.kernelStateHash()).toBe(before);
    // every reader still reads the whole page
    const page = ok(await t.call("mnote.page.get", as, {}));
    expect((page.result.blocks as unknown[]).length).toBe(2000);
    // a replace that shrinks the body is still allowed
    expect(ok(await t.call("mnote.page.save", as, { content: blocks(10), mode: "replace" })).result.revision).toBe(5);
    await t.close();
  }, 60_000);
});

describe("the session scope must hold what a capability requires (issue 12.5)", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());

  it("a session granted only page.write cannot replace the page, and its dry runs reveal nothing", async () => {
    const writer = await t.session({ actorId: "user_1", capabilityScope: ["page.write"] });
    const before = t.kernelStateHash();
    const replace = failed(await t.call("mnote.page.save", writer, { content: [], mode: "replace" }));
    expect([replace.error.code, replace.error.reason]).toEqual(["mnote_tool_permission_denied", "scope"]);
    const dry = failed(await t.call("mnote.page.save", writer, { content: [], mode: "replace" }, { dryRun: true }));
    expect([dry.error.code, dry.error.reason, dry.result]).toEqual(["mnote_tool_permission_denied", "scope", null]);
    expect(JSON.stringify(dry)).not.toMatch(/revision|removedBlocks/);
    for (const tool of ["mnote.page.update_title", "mnote.page.update_options"])
      expect(failed(await t.call(tool, writer)).error.reason).toBe("scope");
    const artifacts = await t.session({ actorId: "user_1", capabilityScope: ["artifact.write"] });
    expect(failed(await t.call("mnote.artifact.create_summary", artifacts)).error.reason).toBe("scope");
    expect(t.kernelStateHash()).toBe(before);
  });

  it("with page.read granted as well, the same writes go through", async () => {
    const both = await t.session({ actorId: "user_1", capabilityScope: ["page.read", "page.write", "artifact.write"] });
    ok(await t.call("mnote.page.save", both, { content: [], mode: "replace" }, { dryRun: true }));
    ok(await t.call("mnote.artifact.create_summary", both));
  });
});

describe("title and block rules stated in the schema and held (issue 12.8)", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());

  it.each([
    ["only a zero-width space", "\u200b"],
    ["only invisible characters", "\u200b\u200d\ufeff\u2060"],
    ["only spaces", "   \u00a0\u3000"],
    ["a line separator", "one\u2028two"],
    ["a paragraph separator", "one\u2029two"],
    ["NUL", "a\u0000b"],
    ["a tab", "a\tb"],
    ["DEL", "a\u007f"],
    ["a C1 control", "a\u0085b"],
    ["a newline", "a\nb"],
  ])("a title with %s is invalid_input at /args/title, nothing written", async (_name, title) => {
    const as = await t.session({ actorId: "user_1" });
    const before = t.kernelStateHash();
    const r = failed(await t.call("mnote.page.update_title", as, { title }));
    expect([r.error.code, r.error.pointer]).toEqual(["mnote_tool_invalid_input", "/args/title"]);
    expect(t.kernelStateHash()).toBe(before);
  });

  it.each([["计划 v2"], ["\u200bPlan\u200b"], ["😀"], ["a\u00a0b"]])("the title %j is accepted", async (title) => {
    const as = await t.session({ actorId: "user_1" });
    ok(await t.call("mnote.page.update_title", as, { title }));
    expect(ok(await t.call("mnote.page.get", as, {})).result.title).toBe(title);
  });

  it.each([
    ["level on a paragraph", { type: "paragraph", text: "x", level: 2 }, "/args/content/0/level"],
    ["checked on a heading", { type: "heading", text: "x", checked: true }, "/args/content/0/checked"],
    ["language on a quote", { type: "quote", text: "x", language: "ts" }, "/args/content/0/language"],
    ["level on a to_do", { type: "to_do", text: "x", level: 1 }, "/args/content/0/level"],
    ["text on a divider", { type: "divider", text: "---" }, "/args/content/0/text"],
    ["checked on a divider", { type: "divider", text: "", checked: false }, "/args/content/0/checked"],
  ])("a block with %s is invalid_input naming the field, nothing written", async (_name, block, pointer) => {
    const as = await t.session({ actorId: "user_1" });
    const before = t.kernelStateHash();
    const r = failed(await t.call("mnote.page.save", as, { content: [block] }));
    expect([r.error.code, r.error.pointer]).toEqual(["mnote_tool_invalid_input", pointer]);
    expect(t.kernelStateHash()).toBe(before);
  });

  it("blocks that use their own fields are stored as sent", async () => {
    const as = await t.session({ actorId: "user_1" });
    const content = [
      { type: "heading", text: "H", level: 3 },
      { type: "to_do", text: "T", checked: true },
      { type: "code", text: "let x = 1", language: "ts" },
      { type: "divider", text: "" },
    ];
    ok(await t.call("mnote.page.save", as, { content, mode: "replace" }));
    const blocks = ok(await t.call("mnote.page.get", as, {})).result.blocks as Array<Record<string, unknown>>;
    expect(blocks.map(({ id: _id, ...b }) => b)).toEqual(content);
  });
});

describe("a write that changes nothing keeps the revision (issue 11.6)", () => {
  let t: TestRuntime;
  beforeEach(async () => (t = await testRuntime()));
  afterEach(() => t.close());
  const revision = async (as: Parameters<TestRuntime["call"]>[1]) =>
    ok(await t.call("mnote.page.get", as, {})).result.revision as number;

  it("mnote.page.update_title: the same title again is a committed no-op with an empty diff", async () => {
    const as = await t.session({ actorId: "user_1" });
    const dry = ok(await t.call("mnote.page.update_title", as, { title: "项目计划" }, { dryRun: true }));
    expect(dry.result.diff).toEqual([]);
    const same = ok(await t.call("mnote.page.update_title", as, { title: "项目计划", baseRevision: 0 }));
    expect(same.result).toEqual({ commandName: "page.head.updateTitle", revision: 0 });
    expect(same.audit.effect).toBe("write");
    // two writers sending the same title against the same base no longer conflict
    ok(await t.call("mnote.page.update_title", as, { title: "项目计划", baseRevision: 0 }));
    expect(await revision(as)).toBe(0);
    expect(ok(await t.call("mnote.page.update_title", as, { title: "New" })).result.revision).toBe(1);
  });

  it("mnote.page.update_options: options already shown (set or default) change nothing; only real changes are in the diff", async () => {
    const as = await t.session({ actorId: "user_1" });
    const before = t.kernelStateHash();
    const dry = ok(
      await t.call(
        "mnote.page.update_options",
        as,
        { options: { wideLayout: true, smallText: false } },
        { dryRun: true },
      ),
    );
    expect(dry.result.diff).toEqual([]);
    expect(
      ok(await t.call("mnote.page.update_options", as, { options: { wideLayout: true, smallText: false } })).result
        .revision,
    ).toBe(0);
    expect(await revision(as)).toBe(0);
    expect(t.count("pages", "id = 'doc_1' AND options_json = ?", JSON.stringify({ wideLayout: true }))).toBe(1);
    expect(t.kernelStateHash()).not.toBe(before); // the commands are logged (a retry replays them)
    const mixed = ok(
      await t.call(
        "mnote.page.update_options",
        as,
        { options: { wideLayout: true, smallText: true } },
        { dryRun: true },
      ),
    );
    expect(mixed.result.diff).toEqual([{ op: "set_option", field: "smallText", value: true }]);
  });

  it("mnote.page.save: an empty append, and a replace with the same blocks, keep the revision and the block ids", async () => {
    const as = await t.session({ actorId: "user_1" });
    const blocksBefore = ok(await t.call("mnote.page.get", as, {})).result.blocks as Array<Record<string, unknown>>;
    expect(ok(await t.call("mnote.page.save", as, { content: [] }, { dryRun: true })).result.diff).toEqual([]);
    expect(ok(await t.call("mnote.page.save", as, { content: [] })).result.revision).toBe(0);
    const same = blocksBefore.map(({ id: _id, ...b }) => b);
    expect(
      ok(await t.call("mnote.page.save", as, { content: same, mode: "replace" }, { dryRun: true })).result.diff,
    ).toEqual([]);
    expect(ok(await t.call("mnote.page.save", as, { content: same, mode: "replace" })).result.revision).toBe(0);
    expect(ok(await t.call("mnote.page.save", as, { content: blocksBefore, mode: "replace" })).result.revision).toBe(0);
    expect(ok(await t.call("mnote.page.get", as, {})).result.blocks).toEqual(blocksBefore);
    // a replace that differs in one field is a change
    const changed = same.map((b, i) => (i === 1 ? { ...b, text: "changed" } : b));
    expect(ok(await t.call("mnote.page.save", as, { content: changed, mode: "replace" })).result.revision).toBe(1);
  });

  it.each([["mnote.artifact.create_summary"], ["mnote.artifact.create_ai_note"]])(
    "%s never bumps the page revision",
    async (tool) => {
      const as = await t.session({ actorId: "user_1" });
      ok(await t.call(tool, as));
      ok(await t.call(tool, as, undefined, { idempotencyKey: "again" }));
      expect(await revision(as)).toBe(0);
    },
  );
});
