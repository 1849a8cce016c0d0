/** Keyed writes: replay, conflict, scope, authorization before replay, concurrency, expiry, restart, failed first calls. */
import { join } from "node:path";
import { testRuntime, failed, ok, demoSeed } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { tempDir } from "../support/tmp";
import { createRuntime } from "../../runtime/runtime";
import { seedKernel } from "../../kernel/seed";

const note = { content: "A note." };

describe("idempotency", () => {
  it("the same key and request: the first response again, same commandId, one write", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const first = ok(await t.call("mnote.artifact.create_ai_note", as, note, { idempotencyKey: "k1" }));
    const again = ok(await t.call("mnote.artifact.create_ai_note", as, note, { idempotencyKey: "k1" }));
    expect(again.audit.commandId).toBe(first.audit.commandId);
    expect(again.result).toEqual(first.result);
    expect([first.audit.replayed, again.audit.replayed]).toEqual([false, true]);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
    expect(t.count("command_log")).toBe(1);
    await t.close();
  });

  it("key order and 1 vs 1.0 do not change the fingerprint; different strings do", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const base = makeRequest(
      "mnote.page.update_options",
      { options: { wideLayout: false, smallText: true }, baseRevision: 0 },
      { idempotencyKey: "opts" },
      as,
    );
    const text = JSON.stringify(base);
    const reordered = text
      .replace('{"wideLayout":false,"smallText":true}', '{"smallText":true,"wideLayout":false}')
      .replace('"baseRevision":0', '"baseRevision":0.0');
    expect(reordered).not.toBe(text);
    const a = ok(await t.runtime.dispatcher.dispatch(text));
    const b = ok(await t.runtime.dispatcher.dispatch(reordered));
    expect(b.audit).toMatchObject({ commandId: a.audit.commandId, replayed: true });
    const c = failed(
      await t
        .call("mnote.page.update_title", as, { title: "One" }, { idempotencyKey: "title" })
        .then(() => t.call("mnote.page.update_title", as, { title: "One " }, { idempotencyKey: "title" })),
    );
    expect(c.error.code).toBe("mnote_tool_idempotency_conflict");
    await t.close();
  });

  it("the same key with a different summary: idempotency_conflict with the note's message, nothing written", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    ok(await t.call("mnote.artifact.create_summary", as, { summary: "First." }, { idempotencyKey: "sum" }));
    const before = t.kernelStateHash();
    const r = failed(
      await t.call("mnote.artifact.create_summary", as, { summary: "Second." }, { idempotencyKey: "sum" }),
    );
    expect([r.error.code, r.error.message]).toEqual([
      "mnote_tool_idempotency_conflict",
      "同一幂等键已用于不同 summary 内容",
    ]);
    expect(t.kernelStateHash()).toBe(before);
    await t.close();
  });

  it("another actor's identical key never sees the first actor's result", async () => {
    const t = await testRuntime();
    t.kernel.db
      .prepare("INSERT INTO page_grants (page_id, user_id, capability) VALUES ('doc_1', 'user_2', 'artifact.write')")
      .run();
    const owner = await t.session({ actorId: "user_1" });
    const other = await t.session({ actorId: "user_2" });
    const a = ok(await t.call("mnote.artifact.create_ai_note", owner, note, { idempotencyKey: "shared" }));
    const b = ok(await t.call("mnote.artifact.create_ai_note", other, note, { idempotencyKey: "shared" }));
    expect(b.audit.commandId).not.toBe(a.audit.commandId);
    expect(b.audit.replayed).toBe(false);
    expect(b.result.artifactId).not.toBe(a.result.artifactId);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);
    await t.close();
  });

  it("authorization runs before any replay", async () => {
    const t = await testRuntime();
    t.kernel.db
      .prepare("INSERT INTO page_grants (page_id, user_id, capability) VALUES ('doc_1', 'user_2', 'page.write')")
      .run();
    const as = await t.session({ actorId: "user_2" });
    ok(await t.call("mnote.page.update_title", as, { title: "Mine" }, { idempotencyKey: "t1" }));
    t.kernel.db.prepare("DELETE FROM page_grants WHERE user_id = 'user_2' AND capability = 'page.write'").run();
    const r = failed(await t.call("mnote.page.update_title", as, { title: "Mine" }, { idempotencyKey: "t1" }));
    expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_permission_denied", "page_write"]);
    expect(JSON.stringify(r)).not.toContain("revision");
    await t.close();
  });

  it("concurrent duplicates make exactly one write; the rest get the same result or a retryable in-progress error", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.call("mnote.artifact.create_ai_note", as, note, { idempotencyKey: "burst" })),
    );
    const successes = responses.filter((r) => r.ok).map((r) => ok(r));
    const others = responses.filter((r) => !r.ok).map((r) => failed(r));
    expect(successes.length).toBeGreaterThan(0);
    expect(new Set(successes.map((s) => s.audit.commandId)).size).toBe(1);
    for (const o of others) expect([o.error.code, o.error.retryable]).toEqual(["mnote_tool_in_progress", true]);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
    expect(t.count("edges")).toBe(1);
    await t.close();
  });

  it("keys expire after the configured window; then the key makes a new write", async () => {
    let now = Date.parse("2026-12-01T00:00:00Z");
    const t = await testRuntime({ idempotencyTtlMs: 60_000, now: () => now });
    const as = await t.session({ actorId: "user_1" });
    const first = ok(await t.call("mnote.artifact.create_ai_note", as, note, { idempotencyKey: "ttl" }));
    now += 59_000;
    expect(ok(await t.call("mnote.artifact.create_ai_note", as, note, { idempotencyKey: "ttl" })).audit.replayed).toBe(
      true,
    );
    now += 2_000;
    const later = ok(await t.call("mnote.artifact.create_ai_note", as, note, { idempotencyKey: "ttl" }));
    expect(later.audit.replayed).toBe(false);
    expect(later.audit.commandId).toBe(`${first.audit.commandId}_g2`);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);
    await t.close();
  });

  it("records survive a restart", async () => {
    const dir = tempDir();
    const open = () =>
      createRuntime({ kernel: { kind: "embedded", path: join(dir, "kernel.db") }, statePath: join(dir, "runtime.db") });
    const rt1 = open();
    seedKernel(rt1.embeddedKernel!, demoSeed());
    const grant = {
      sessionId: "s_restart",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read", "artifact.write"] as never,
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    };
    await rt1.grants.put(grant);
    const request = makeRequest("mnote.artifact.create_ai_note", note, { idempotencyKey: "persist" }, grant);
    const first = ok(await rt1.dispatcher.dispatch(request));
    await rt1.close();
    const rt2 = open();
    const again = ok(await rt2.dispatcher.dispatch(request));
    expect(again.audit).toMatchObject({ commandId: first.audit.commandId, replayed: true });
    expect((rt2.embeddedKernel!.db.prepare("SELECT COUNT(*) AS n FROM artifacts").get() as { n: number }).n).toBe(1);
    await rt2.close();
  });

  it("a first call that failed does not use the key up", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const stale = failed(
      await t.call(
        "mnote.page.save",
        as,
        { content: [{ type: "paragraph", text: "x" }], baseRevision: 5 },
        { idempotencyKey: "retry-me" },
      ),
    );
    expect(stale.error.code).toBe("mnote_tool_conflict");
    const fixed = ok(
      await t.call(
        "mnote.page.save",
        as,
        { content: [{ type: "paragraph", text: "x" }], baseRevision: 0 },
        { idempotencyKey: "retry-me" },
      ),
    );
    expect(fixed.audit.replayed).toBe(false);
    expect(fixed.result.revision).toBe(1);
    await t.close();
  });
});
