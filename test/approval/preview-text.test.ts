/**
 * What a person sees (issue 28, "What a person sees"): the challenge's summary, made by the
 * runtime from the kernel's dry run in the session's locale. The expected texts below are the
 * snapshots, written out so a reviewer reads them as the person would: the page's title, what is
 * removed and added as counts with the right plural and then first words (bounded), old → new for a
 * rename, the meaning within the first 200 characters. Before: "mnote: Write the page body (page
 * revision 35) / - replace the whole body: 1 blocks removed, 1 written", English only.
 * Also: a replace that changes nothing asks nobody and is answered with its dry run.
 */
import { approvalPolicyFrom } from "../../runtime/approval/policy";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { failed, ok, testRuntime, type Actor, type TestRuntime } from "../support/runtime";

const LONG_EN = "Weekly notes: the launch moves to Thursday because the review found two blocking issues";
const LONG_ZH = "第二段：这是一个很长的中文段落，没有空格，用来检查按字符截断是否正确以及省略号的位置";
const REPLACE = { content: [{ type: "paragraph", text: "A new body." }], mode: "replace" };
const APPEND = {
  content: [
    { type: "paragraph", text: LONG_EN },
    { type: "divider", text: "" },
    { type: "paragraph", text: LONG_ZH },
  ],
  mode: "append",
};

/** The contract's levels, plus ask for every page.save and for update_options (to see their wording). */
async function asking(): Promise<TestRuntime> {
  return testRuntime({
    approval: {
      policy: approvalPolicyFrom({ tools: { "mnote.page.save": "ask", "mnote.page.update_options": "ask" } }),
    },
  });
}

async function summary(t: TestRuntime, as: Actor, tool: string, args: Record<string, unknown>): Promise<string> {
  const before = t.kernelStateHash();
  const r = failed(await t.call(tool, as, args));
  expect(r.error.code).toBe("mnote_tool_approval_required");
  expect(t.kernelStateHash()).toBe(before);
  return r.error.approval!.summary;
}

const SNAPSHOTS: Record<"en" | "zh-CN", Array<[string, string, Record<string, unknown>, string]>> = {
  en: [
    [
      "a replace",
      "mnote.page.save",
      REPLACE,
      [
        "Replace all text of “项目计划”: remove 3 paragraphs, write 1 paragraph.",
        "Removes: “章节一”, “第一段：确定范围与里程碑。”, “整理需求清单”",
        "Adds: “A new body.”",
      ].join("\n"),
    ],
    [
      "an append of long blocks (cut at a word; a divider has no words)",
      "mnote.page.save",
      APPEND,
      [
        "Add 3 paragraphs at the end of “项目计划”.",
        "Adds: “Weekly notes: the launch moves to…”, “第二段：这是一个很长的中文段落，没有空格，用来检查按字符截断是否正确以及省略号的…”",
      ].join("\n"),
    ],
    [
      "a rename",
      "mnote.page.update_title",
      { title: "Project plan 2027" },
      "Rename the page “项目计划” → “Project plan 2027”.",
    ],
    [
      "a display option",
      "mnote.page.update_options",
      { options: { smallText: true } },
      "Change a display option of “项目计划”: smallText → true.",
    ],
  ],
  "zh-CN": [
    [
      "a replace",
      "mnote.page.save",
      REPLACE,
      [
        "替换「项目计划」的全部内容：删除 3 段，写入 1 段。",
        "删除：“章节一”、“第一段：确定范围与里程碑。”、“整理需求清单”",
        "新增：“A new body.”",
      ].join("\n"),
    ],
    [
      "an append of long blocks (cut at a word; a divider has no words)",
      "mnote.page.save",
      APPEND,
      [
        "在「项目计划」末尾添加 3 段。",
        "新增：“Weekly notes: the launch moves to…”、“第二段：这是一个很长的中文段落，没有空格，用来检查按字符截断是否正确以及省略号的…”",
      ].join("\n"),
    ],
    [
      "a rename",
      "mnote.page.update_title",
      { title: "Project plan 2027" },
      "重命名页面：「项目计划」 → 「Project plan 2027」。",
    ],
    [
      "a display option",
      "mnote.page.update_options",
      { options: { smallText: true } },
      "修改「项目计划」的显示选项：smallText → true。",
    ],
  ],
};

describe.each(["en", "zh-CN"] as const)("the preview a person reads, locale %s", (locale) => {
  let t: TestRuntime;
  let as: Actor;
  beforeEach(async () => {
    t = await asking();
    as = await t.session({ actorId: "user_1" }, { locale });
  });
  afterEach(() => t.close());

  it.each(SNAPSHOTS[locale])("%s", async (_what, tool, args, expected) => {
    expect(await summary(t, as, tool, args)).toBe(expected);
  });

  it("the first line carries the meaning within 200 characters, even with a 500-character title; the whole stays bounded", async () => {
    const title = "长".repeat(250) + "x".repeat(250);
    t.kernel.db.prepare("UPDATE pages SET title = ? WHERE id = 'doc_1'").run(title);
    const many = {
      content: Array.from({ length: 40 }, (_, i) => ({ type: "paragraph", text: `${LONG_EN} ${i}` })),
      mode: "replace",
    };
    const text = await summary(t, as, "mnote.page.save", many);
    const firstLine = text.split("\n")[0]!;
    expect([...firstLine].length).toBeLessThanOrEqual(200);
    expect(firstLine).toContain(locale === "en" ? "40 paragraphs" : "40 段");
    expect(firstLine).toContain("长".repeat(39) + "…");
    expect([...text].length).toBeLessThanOrEqual(1000);
    expect(text.split("\n")).toHaveLength(3);
  });
});

describe("a replace that changes nothing asks nobody", () => {
  it("answered with its dry run (no change), nothing written, audit decision unchanged", async () => {
    const t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
    try {
      const as = await t.session({ actorId: "user_1" });
      const same = {
        content: [
          { id: "heading_1", type: "heading", text: "章节一", level: 1 },
          ...(
            t.kernel.db
              .prepare(
                "SELECT id, type, text, checked FROM blocks WHERE page_id = 'doc_1' AND position > 0 ORDER BY position",
              )
              .all() as Array<{ id: string; type: string; text: string; checked: number | null }>
          ).map((b) => ({
            id: b.id,
            type: b.type,
            text: b.text,
            ...(b.checked === null ? {} : { checked: b.checked === 1 }),
          })),
        ],
        mode: "replace",
      };
      const before = t.kernelStateHash();
      const r = ok(await t.call("mnote.page.save", as, same));
      expect(r.result).toMatchObject({ dryRun: true, diff: [], baseRevision: 0 });
      expect(r.audit).toMatchObject({ effect: "dry_run", approval: { decision: "unchanged", level: "ask" } });
      expect(t.kernelStateHash()).toBe(before);
      // a replace that does change something still asks
      expect(failed(await t.call("mnote.page.save", as, REPLACE)).error.code).toBe("mnote_tool_approval_required");
    } finally {
      await t.close();
    }
  });
});
