/** dryRun, page options that are not wired, stale base revisions, and the audit trail. */
import { testRuntime, failed, ok } from "../support/runtime";
import { sampleArgs } from "../support/requests";
import { toolList, tools } from "../../generated/registry";
import { ReferenceKernel } from "../../kernel/reference-kernel";

const writes = toolList.filter((t) => t.effect === "write");
const fresh = (name: string) => {
  const { baseRevision: _b, ...args } = sampleArgs[name]!;
  return args;
};

describe("dryRun", () => {
  it.each(writes.map((w) => [w.name]))(
    "%s: returns the plan and the diff in the note's shape, writes nothing, does not use the key",
    async (name) => {
      const t = await testRuntime();
      const as = await t.session({ actorId: "user_1" });
      const before = t.kernelStateHash();
      const dry = ok(await t.call(name, as, fresh(name), { dryRun: true, idempotencyKey: "same-key" }));
      expect(dry.audit).toEqual({ effect: "dry_run", commandId: null, workspaceId: "ws_1", documentId: "doc_1" });
      expect(dry.result).toMatchObject({
        dryRun: true,
        commandName: tools[name as keyof typeof tools].kernelCommand,
        baseRevision: 0,
      });
      expect(dry.result.diff.length).toBeGreaterThan(0);
      expect(t.kernelStateHash()).toBe(before);
      const real = ok(await t.call(name, as, fresh(name), { dryRun: false, idempotencyKey: "same-key" }));
      expect(real.audit).toMatchObject({ effect: "write", replayed: false });
      expect(t.count("command_log")).toBe(1);
      await t.close();
    },
  );

  it("is authorized exactly like the real call", async () => {
    const t = await testRuntime();
    const reader = await t.session({ actorId: "user_2" });
    for (const w of writes) {
      const dry = failed(await t.call(w.name, reader, fresh(w.name), { dryRun: true }));
      const real = failed(await t.call(w.name, reader, fresh(w.name), { dryRun: false }));
      expect([w.name, dry.error]).toEqual([w.name, real.error]);
    }
    await t.close();
  });

  it("shows what a save would do: append counts blocks, replace counts what it removes", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const content = [{ type: "paragraph", text: "new" }];
    expect(ok(await t.call("mnote.page.save", as, { content }, { dryRun: true })).result.diff).toEqual([
      { op: "append", blocks: 1, excerpts: ["new"] },
    ]);
    expect(ok(await t.call("mnote.page.save", as, { content, mode: "replace" }, { dryRun: true })).result.diff).toEqual(
      [
        {
          op: "replace",
          blocks: 1,
          removedBlocks: 3,
          excerpts: ["new"],
          removedExcerpts: ["章节一", "第一段：确定范围与里程碑。", "整理需求清单"],
        },
      ],
    );
    await t.close();
  });
});

describe("page options whose runtimeSupport is not wired", () => {
  it("the kernel applies exactly the options the contract marks wired", () => {
    const unwired = tools["mnote.page.update_options"].unwiredFields.map((f) => f.field);
    expect(unwired.sort()).toEqual(["protectEditing", "showToc"]);
    const kernel = new ReferenceKernel();
    for (const field of unwired) expect(kernel.facts.wiredOptions.has(field)).toBe(false);
    expect([...kernel.facts.wiredOptions].sort()).toEqual(["smallText", "wideLayout"]);
    kernel.close();
  });

  it.each([["showToc"], ["protectEditing"]])(
    "%s: a warning in dryRun, the business failure in a real call, nothing written",
    async (field) => {
      const t = await testRuntime();
      const as = await t.session({ actorId: "user_1" });
      const options = { wideLayout: false, [field]: true };
      const dry = ok(await t.call("mnote.page.update_options", as, { options }, { dryRun: true }));
      expect(dry.result.warnings).toEqual([
        { code: "mnote_tool_unsupported_option", message: "页面选项暂不支持", field },
      ]);
      const before = t.kernelStateHash();
      const real = failed(await t.call("mnote.page.update_options", as, { options }, { dryRun: false }));
      expect([real.error.code, real.error.field]).toEqual(["mnote_tool_unsupported_option", field]);
      expect(t.kernelStateHash()).toBe(before);
      const wired = ok(
        await t.call("mnote.page.update_options", as, { options: { wideLayout: false, smallText: true } }),
      );
      expect(wired.result.revision).toBe(1);
      await t.close();
    },
  );
});

describe("conflicts", () => {
  it.each(writes.map((w) => [w.name]))(
    "%s: a stale base revision gives mnote_tool_conflict and writes nothing",
    async (name) => {
      const t = await testRuntime();
      const as = await t.session({ actorId: "user_1" });
      ok(await t.call("mnote.page.update_title", as, { title: "Moved on" }));
      const before = t.kernelStateHash();
      const r = failed(await t.call(name, as, { ...sampleArgs[name], baseRevision: 0 }));
      expect([r.error.code, r.error.message]).toEqual(["mnote_tool_conflict", "页面版本冲突，需要刷新后重试"]);
      expect(t.kernelStateHash()).toBe(before);
      await t.close();
    },
  );

  it("the current revision goes through, and page writes bump it by one", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    let revision = ok(await t.call("mnote.page.get", as, {})).result.revision as number;
    // each a real change (the seed already has wideLayout: true, and a write that changes nothing keeps the revision)
    const changes: Record<string, Record<string, unknown>> = {
      "mnote.page.update_options": { options: { smallText: true } },
    };
    for (const name of ["mnote.page.save", "mnote.page.update_title", "mnote.page.update_options"]) {
      const r = ok(await t.call(name, as, { ...sampleArgs[name], ...changes[name], baseRevision: revision }));
      expect(r.result.revision).toBe(revision + 1);
      revision = r.result.revision;
    }
    ok(await t.call("mnote.artifact.create_summary", as, { summary: "s", baseRevision: revision }));
    expect(ok(await t.call("mnote.page.get", as, {})).result.revision).toBe(revision);
    await t.close();
  });
});

describe("audit", () => {
  it("every write's commandId finds its kernel command with the request's ids; reads have none", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const read = ok(await t.call("mnote.page.get", as, {}));
    expect(read.audit.commandId).toBeNull();
    for (const w of writes) {
      const r = ok(
        await t.call(w.name, as, fresh(w.name), {
          traceId: "trace_audit",
          runId: "run_audit",
          toolCallId: `call_${w.providerName}`,
        }),
      );
      const row = t.kernel.db
        .prepare("SELECT * FROM command_log WHERE command_id = ?")
        .get(r.audit.commandId) as Record<string, unknown>;
      expect(row).toMatchObject({
        command_name: w.kernelCommand,
        actor_id: "user_1",
        workspace_id: "ws_1",
        document_id: "doc_1",
        trace_id: "trace_audit",
        session_id: as.sessionId,
        run_id: "run_audit",
        tool_call_id: `call_${w.providerName}`,
        outcome: "committed",
      });
      expect(row.idempotency_key).toEqual(expect.any(String));
      expect(r.audit.commandId).toMatch(
        new RegExp(
          `^${w.kernelCommand
            .replace(/([A-Z])/g, "_$1")
            .replace(/\./g, "_")
            .toLowerCase()}_[0-9a-f]{24}$`,
        ),
      );
    }
    expect(t.count("command_log")).toBe(writes.length);
    await t.close();
  });

  it("two writes in one trace get different command ids", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const a = ok(await t.call("mnote.artifact.create_ai_note", as, { content: "a" }, { traceId: "trace_1" }));
    const b = ok(await t.call("mnote.artifact.create_ai_note", as, { content: "b" }, { traceId: "trace_1" }));
    expect(a.audit.commandId).not.toBe(b.audit.commandId);
    await t.close();
  });
});
