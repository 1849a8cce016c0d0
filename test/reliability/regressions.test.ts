/** Defects the reliability work found, each pinned by a test named after it. */
import { testRuntime, failed, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { demoSeed } from "../support/runtime";

describe("regressions", () => {
  it("duplicate keys in the raw request were resolved last-wins; now refused as invalid_input (duplicate_key)", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const text = JSON.stringify(makeRequest("mnote.page.update_title", { title: "first" }, {}, as)).replace(
      '"title":"first"',
      '"title":"first","title":"second"',
    );
    const before = t.kernelStateHash();
    const r = failed(await t.runtime.dispatcher.dispatch(text));
    expect(r.error).toMatchObject({ code: "mnote_tool_invalid_input", reason: "duplicate_key" });
    expect(t.kernelStateHash()).toBe(before);
    // the same member name in two different objects is fine
    expect((await t.runtime.dispatcher.dispatch(JSON.stringify(makeRequest("mnote.page.get", {}, {}, as)))).ok).toBe(
      true,
    );
    await t.close();
  });

  it("a committed write whose idempotency record could not be stored was answered as a failure; now it is answered as the success it was", async () => {
    const kernel = new ReferenceKernel();
    seedKernel(kernel, demoSeed());
    const state = openDatabase(":memory:");
    const grants = new SqliteGrantStore(state);
    const ids = {
      sessionId: "s",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["artifact.write", "page.read"],
    };
    await grants.put({
      ...ids,
      capabilityScope: ["artifact.write", "page.read"],
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const store = new SqliteIdempotencyStore(state);
    let broken = true;
    const flaky = {
      claim: store.claim.bind(store),
      release: store.release.bind(store),
      renew: store.renew.bind(store),
      uncertainKey: store.uncertainKey.bind(store),
      rememberUncertain: store.rememberUncertain.bind(store),
      forgetUncertain: store.forgetUncertain.bind(store),
      consumeApproval: store.consumeApproval.bind(store),
      close: store.close.bind(store),
      complete: async (...args: Parameters<SqliteIdempotencyStore["complete"]>) => {
        if (broken) throw new Error("SQLITE_BUSY");
        return store.complete(...args);
      },
    };
    const dispatcher = createDispatcher({ kernel, grants, idempotency: flaky });
    const request = makeRequest("mnote.artifact.create_ai_note", { content: "kept" }, { idempotencyKey: "k" }, ids);
    const first = ok(await dispatcher.dispatch(request));
    broken = false;
    const again = ok(await dispatcher.dispatch(request));
    expect(again.audit).toMatchObject({ commandId: first.audit.commandId, replayed: true });
    expect((kernel.db.prepare("SELECT COUNT(*) AS n FROM artifacts").get() as { n: number }).n).toBe(1);
    kernel.close();
  });

  it("an unreachable grant store made calls fail as internal errors; now they are refused as retryable unavailable, nothing written", async () => {
    const kernel = new ReferenceKernel();
    seedKernel(kernel, demoSeed());
    const state = openDatabase(":memory:");
    const down = {
      get: async () => Promise.reject(new Error("connection refused")),
      put: async () => undefined,
      revoke: async () => false,
    };
    const dispatcher = createDispatcher({ kernel, grants: down, idempotency: new SqliteIdempotencyStore(state) });
    const r = failed(await dispatcher.dispatch(makeRequest("mnote.page.update_title", { title: "x" })));
    expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_unavailable", true]);
    expect((kernel.db.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n).toBe(0);
    kernel.close();
  });
});
