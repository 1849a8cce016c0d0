"""The demo agent: drives the mnote tools through the generated Hermes plugin, loaded as Hermes
loads it, and checks every answer. Run by `npm run demo` (scripts/demo.ts), which starts the
runtime and sets MNOTE_TOOLS_URL / MNOTE_TOOLS_TOKEN.

    python3 demo.py <plugin_dir> <owner_session> <outsider_session>

Exit status 0 only when every step gave the expected result.

The approval round (docs/APPROVAL.md): the runtime asks approval for a rename and a replace. Hermes'
own consent prompt (tools/approval.py request_elicitation_consent) is not part of this loader, so
the demo installs a stand-in person: it prints what Hermes would show and gives the answer the
step scripts (no for the replace, yes for the rename).
"""

import types

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hermes_loader import call_tool, load_plugin, schema_problems  # noqa: E402

WIDTH = 100


def show(label, value):
    text = json.dumps(value, ensure_ascii=False, indent=2)
    print("  " + label)
    for line in text.splitlines():
        print("    " + line)


class Person:
    """Stands in for Hermes' consent prompt: shows the summary, answers as scripted."""

    def __init__(self):
        self.answers = []

    def request_elicitation_consent(self, message, description, **_kw):
        answer = self.answers.pop(0) if self.answers else "decline"
        print("  Hermes asks the person: " + description)
        for line in message.splitlines():
            print("    | " + line)
        print("  the person answers: " + answer)
        return answer

    def install(self):
        tools = sys.modules.get("tools") or types.ModuleType("tools")
        approval = types.ModuleType("tools.approval")
        approval.request_elicitation_consent = self.request_elicitation_consent
        tools.approval = approval
        sys.modules["tools"] = tools
        sys.modules["tools.approval"] = approval


class Demo:
    def __init__(self, plugin_dir, owner, outsider):
        self.manifest, self.module, self.ctx = load_plugin(plugin_dir)
        self.owner = owner
        self.outsider = outsider
        self.sent = []
        self.failures = []
        self.step_no = 0
        original = self.module._send

        def recording_send(transport, request):
            self.sent.append(request)
            return original(transport, request)

        self.module._send = recording_send

    def call(self, title, tool, args, expect, session=None, call_id=None):
        self.step_no += 1
        session = session or self.owner
        call_id = call_id or "call_demo_%d" % self.step_no
        print("=" * WIDTH)
        print("%2d. %s" % (self.step_no, title))
        print("  the model calls %s(%s)" % (tool, json.dumps(args, ensure_ascii=False)))
        before = len(self.sent)
        output, raised = call_tool(self.ctx, tool, args, session_id=session, task_id="task_demo", tool_call_id=call_id)
        if raised or not isinstance(output, str):
            self.failures.append("%d %s: the handler raised %s" % (self.step_no, title, raised))
            print("  !! the handler raised: %s" % raised)
            return None
        response = json.loads(output)
        if len(self.sent) > before:
            show("request envelope the plugin sent:", self.sent[before])
        show("response envelope:", response)
        problem = expect(response)
        if problem:
            self.failures.append("%d %s: %s" % (self.step_no, title, problem))
            print("  !! unexpected: " + problem)
        else:
            print("  ok: as expected")
        return response


def expect_ok(effect, extra=None):
    def check(r):
        if not r.get("ok"):
            return "expected success, got %s" % (r.get("error") or {}).get("code")
        if r["audit"]["effect"] != effect:
            return "expected effect %s, got %s" % (effect, r["audit"]["effect"])
        return extra(r) if extra else None

    return check


def expect_error(code, extra=None):
    def check(r):
        if r.get("ok"):
            return "expected %s, got success" % code
        if r["error"]["code"] != code:
            return "expected %s, got %s" % (code, r["error"]["code"])
        return extra(r) if extra else None

    return check


def main():
    plugin_dir, owner, outsider = sys.argv[1], sys.argv[2], sys.argv[3]
    person = Person()
    person.install()
    demo = Demo(plugin_dir, owner, outsider)
    problems = schema_problems(demo.ctx, demo.manifest)
    print("Loaded the Hermes plugin %s %s: %d tools %s" % (demo.manifest["name"], demo.manifest["version"], len(demo.ctx.tools), ", ".join(sorted(demo.ctx.tools))))
    if problems:
        demo.failures.extend(problems)

    page = demo.call("read the page", "mnote_page_get", {"includeBlocks": True}, expect_ok("read"))
    revision = page["result"]["revision"] if page and page.get("ok") else 0
    blocks = [{"type": "heading", "text": "下一步", "level": 2}, {"type": "paragraph", "text": "和团队确认里程碑日期。"}]
    demo.call(
        "preview the edit (dryRun)",
        "mnote_page_save",
        {"content": blocks, "baseRevision": revision, "dryRun": True},
        expect_ok("dry_run", lambda r: None if [(d["op"], d.get("blocks")) for d in r["result"]["diff"]] == [("append", 2)] else "unexpected diff"),
    )
    saved = demo.call(
        "append the blocks",
        "mnote_page_save",
        {"content": blocks, "baseRevision": revision},
        expect_ok("write", lambda r: None if r["result"]["revision"] == revision + 1 else "revision did not move by one"),
        call_id="call_save_once",
    )
    first_command = saved["audit"]["commandId"] if saved and saved.get("ok") else None
    demo.call(
        "Hermes retries the same tool call (a lost answer): it replays, nothing is written twice",
        "mnote_page_save",
        {"content": blocks, "baseRevision": revision},
        expect_ok("write", lambda r: None if r["audit"]["commandId"] == first_command and r["audit"].get("replayed") else "not a replay of the first write"),
        call_id="call_save_once",
    )
    demo.call(
        "a second edit still based on the old revision: conflict, nothing written",
        "mnote_page_save",
        {"content": [{"type": "paragraph", "text": "过时的修改"}], "baseRevision": revision},
        expect_error("mnote_tool_conflict"),
    )
    person.answers = ["decline"]
    demo.call(
        "replace the whole body: the runtime asks the person first, who says no; nothing written",
        "mnote_page_save",
        {"content": [{"type": "paragraph", "text": "全部重写"}], "mode": "replace", "baseRevision": revision + 1},
        expect_error("mnote_tool_approval_denied", lambda r: None if r["error"].get("reason") == "declined" else "not declined by the user"),
    )
    person.answers = ["accept"]
    demo.call(
        "rename the page: the person sees the new title and says yes; written once",
        "mnote_page_update_title",
        {"title": "项目计划（第二版）", "baseRevision": revision + 1},
        expect_ok(
            "write",
            lambda r: None
            if r["result"]["revision"] == revision + 2 and (r["audit"].get("approval") or {}).get("decision") == "approved"
            else "not approved and written",
        ),
    )
    demo.call(
        "preview options, one of them not wired yet: a warning",
        "mnote_page_update_options",
        {"options": {"wideLayout": False, "showToc": True}, "dryRun": True},
        expect_ok("dry_run", lambda r: None if [w["field"] for w in r["result"].get("warnings", [])] == ["showToc"] else "no warning for showToc"),
    )
    demo.call(
        "apply those options for real: refused, nothing written",
        "mnote_page_update_options",
        {"options": {"wideLayout": False, "showToc": True}},
        expect_error("mnote_tool_unsupported_option", lambda r: None if r["error"].get("field") == "showToc" else "the field is not named"),
    )
    first = demo.call(
        "save a summary of the page",
        "mnote_artifact_create_summary",
        {"summary": "项目计划：确定范围、里程碑，并和团队确认日期。"},
        expect_ok("write", lambda r: None if r["result"]["created"] and r["result"]["edgeCreated"] else "summary not created"),
    )
    summary_id = first["result"]["artifactId"] if first and first.get("ok") else None
    demo.call(
        "summarize again: the one summary is updated in place, its edge confirmed",
        "mnote_artifact_create_summary",
        {"summary": "项目计划（第二版）：范围、里程碑、日期确认。"},
        expect_ok("write", lambda r: None if r["result"]["artifactId"] == summary_id and not r["result"]["created"] and not r["result"]["edgeCreated"] else "a second summary was made"),
    )
    note = demo.call(
        "keep a finding as an AI note",
        "mnote_artifact_create_ai_note",
        {"content": "里程碑二依赖外部评审。", "title": "风险"},
        expect_ok("write", lambda r: None if r["result"]["created"] else "note not created"),
    )
    note_id = note["result"]["artifactId"] if note and note.get("ok") else None
    demo.call(
        "another AI note: a new, separate note",
        "mnote_artifact_create_ai_note",
        {"content": "预算需要在月底前确认。"},
        expect_ok("write", lambda r: None if r["result"]["artifactId"] != note_id else "the same note came back"),
    )
    demo.call(
        "someone else's session reads a page they may not see: refused, nothing leaks",
        "mnote_page_get",
        {},
        expect_error("mnote_tool_permission_denied", lambda r: "the refusal leaks page content" if "薪酬" in json.dumps(r, ensure_ascii=False) else None),
        session=outsider,
    )

    print("=" * WIDTH)
    if demo.failures:
        print("DEMO FAILED: %d step(s) did not give the expected result:" % len(demo.failures))
        for failure in demo.failures:
            print("  - " + failure)
        sys.exit(1)
    print("DEMO OK: %d steps through the Hermes plugin, every one as expected." % demo.step_no)


if __name__ == "__main__":
    main()
