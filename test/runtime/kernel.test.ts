/** The reference kernel's own promises: artifacts and edges, atomic writes, no chat history, seeding. */
import { testRuntime, ok, hashTables, demoSeed } from "../support/runtime";
import { seedKernel } from "../../kernel/seed";
import { bodySummary } from "../../kernel/blocks";
import { KernelRefusal } from "../../generated/kernel/transport";
import { truncations } from "../../generated/registry";

describe("artifacts", () => {
  it("summary: one node per page, created then updated in place; its edge created once, then confirmed", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const first = ok(await t.call("mnote.artifact.create_summary", as, { summary: "v1" }));
    const second = ok(await t.call("mnote.artifact.create_summary", as, { summary: "v2" }));
    expect(first.result).toMatchObject({ artifactType: "summary", created: true, edgeCreated: true });
    expect(second.result).toMatchObject({
      artifactId: first.result.artifactId,
      created: false,
      edgeId: first.result.edgeId,
      edgeCreated: false,
    });
    expect(t.count("artifacts", "type = 'summary'")).toBe(1);
    expect(t.count("edges")).toBe(1);
    expect((t.kernel.db.prepare("SELECT content FROM artifacts").get() as { content: string }).content).toBe("v2");
    await t.close();
  });

  it("ai_note: a new independent node and edge on every call", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const a = ok(await t.call("mnote.artifact.create_ai_note", as, { content: "one" }));
    const b = ok(await t.call("mnote.artifact.create_ai_note", as, { content: "one" }));
    expect(a.result.artifactId).not.toBe(b.result.artifactId);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);
    expect(t.count("edges", "to_id = 'doc_1'")).toBe(2);
    await t.close();
  });
});

describe("writes are atomic", () => {
  it("a write that fails half way leaves no change, no log row and no idempotency record", async () => {
    const t = await testRuntime();
    const before = hashTables(t.kernel);
    const context = {
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      traceId: "t",
      sessionId: "s",
      runId: "r",
      toolCallId: "c",
    };
    const write = {
      commandId: "page_body_save_crash",
      idempotencyScope: "a".repeat(64),
      fingerprint: "b".repeat(64),
      ttlMs: 60_000,
    };
    expect(() =>
      t.kernel.write("page.body.save", { context, args: {}, dryRun: false, write }, (page) => ({
        diff: [],
        apply: () => {
          t.kernel.db.prepare("UPDATE pages SET title = 'half written' WHERE id = ?").run(page.id);
          throw new KernelRefusal("mnote_tool_internal", "crash_in_the_middle");
        },
      })),
    ).toThrow(KernelRefusal);
    expect(hashTables(t.kernel)).toBe(before);
    await t.close();
  });
});

describe("no chat history", () => {
  it("nothing of a conversation is stored: only business facts, and a dry run leaves no trace", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const marker = "PROMPT-MARKER-7f3a";
    ok(await t.call("mnote.artifact.create_ai_note", as, { content: marker }, { dryRun: true }));
    ok(await t.call("mnote.page.get", as, {}, { runId: marker.toLowerCase() }));
    const tables = (
      t.kernel.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    )
      .map((r) => r.name)
      .sort();
    expect(tables).toEqual([
      "artifacts",
      "blocks",
      "command_log",
      "edges",
      "idempotency",
      "members",
      "page_grants",
      "pages",
      "users",
      "workspaces",
    ]);
    const dump = JSON.stringify(tables.map((name) => t.kernel.db.prepare(`SELECT * FROM ${name}`).all()));
    expect(dump).not.toContain(marker);
    expect(dump.toLowerCase()).not.toContain(marker.toLowerCase());
    await t.close();
  });
});

describe("seeding and body summaries", () => {
  it("seeding twice changes nothing", async () => {
    const t = await testRuntime();
    const before = hashTables(t.kernel);
    seedKernel(t.kernel, demoSeed());
    expect(hashTables(t.kernel)).toBe(before);
    await t.close();
  });

  it("a bad seed file is refused with the pointer of the problem", async () => {
    const t = await testRuntime();
    expect(() => seedKernel(t.kernel, { pages: [{ id: "p", workspaceId: "ws_1" }] })).toThrow(
      /at \/pages\/0: must have required property 'title'/,
    );
    expect(() => seedKernel(t.kernel, { pages: [{ id: "p", workspaceId: "ws_nope", title: "x" }] })).toThrow(
      /workspace ws_nope does not exist/,
    );
    await t.close();
  });

  it("bodySummary joins block text and cuts at 200 characters with ... (the contract's x-mnote-truncate)", () => {
    const long = "长".repeat(250);
    const cut = truncations.bodySummary;
    expect(cut).toEqual({ length: 200, marker: "..." });
    expect(
      bodySummary(
        [
          { id: "a", type: "paragraph", text: "one" },
          { id: "b", type: "divider", text: "" },
          { id: "c", type: "paragraph", text: "two" },
        ],
        cut,
      ),
    ).toBe("one\ntwo");
    expect(bodySummary([{ id: "a", type: "paragraph", text: long }], cut)).toBe("长".repeat(200) + "...");
  });
});
