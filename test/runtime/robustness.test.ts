/** Every answer is a valid envelope; bad input names its first problem; a kernel that fails or hangs gives a retryable error. */
import { validateToolResponse } from "../../generated/validators";
import { testRuntime, failed, ok } from "../support/runtime";
import { makeRequest, sampleArgs } from "../support/requests";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { KernelTransportError } from "../../generated/kernel/transport";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { demoSeed } from "../support/runtime";

describe("bad input", () => {
  const cases: Array<[string, unknown, string]> = [
    ["not JSON", "{oops", ""],
    ["an array", "[]", ""],
    ["a missing envelope field", { ...makeRequest("mnote.page.get"), traceId: undefined }, "/traceId"],
    ["an extra envelope field", { ...makeRequest("mnote.page.get"), admin: true }, "/admin"],
    ["a wrong type", { ...makeRequest("mnote.page.save"), dryRun: "no" }, "/dryRun"],
    ["a missing arg", makeRequest("mnote.page.update_title", {}), "/args/title"],
    ["an empty title", makeRequest("mnote.page.update_title", { title: "" }), "/args/title"],
    [
      "an unknown page option",
      makeRequest("mnote.page.update_options", { options: { darkMode: true } }),
      "/args/options/darkMode",
    ],
    [
      "a block without text",
      makeRequest("mnote.page.save", { content: [{ type: "paragraph" }] }),
      "/args/content/0/text",
    ],
    ["a write without a key", { ...makeRequest("mnote.page.save"), idempotencyKey: undefined }, "/idempotencyKey"],
    ["a bad id", { ...makeRequest("mnote.page.get"), workspaceId: "ws 1" }, "/workspaceId"],
  ];

  it.each(cases)("%s: mnote_tool_invalid_input naming %p", async (_what, input, pointer) => {
    const t = await testRuntime();
    const r = failed(await t.runtime.dispatcher.dispatch(typeof input === "string" ? input : JSON.stringify(input)));
    expect([r.error.code, r.error.pointer]).toEqual(["mnote_tool_invalid_input", pointer]);
    expect(validateToolResponse(r)).toBe(true);
    await t.close();
  });

  it("an unknown tool: mnote_tool_unknown_tool, echoing its name", async () => {
    const t = await testRuntime();
    const r = failed(await t.runtime.dispatcher.dispatch(makeRequest("mnote.page.delete", {})));
    expect([r.error.code, r.toolName]).toEqual(["mnote_tool_unknown_tool", "mnote.page.delete"]);
    await t.close();
  });

  it("too large, too deep: mnote_tool_payload_too_large", async () => {
    const t = await testRuntime({ limits: { maxBytes: 10_000 } });
    const big = JSON.stringify(makeRequest("mnote.artifact.create_ai_note", { content: "x".repeat(20_000) }));
    expect(failed(await t.runtime.dispatcher.dispatch(big)).error.code).toBe("mnote_tool_payload_too_large");
    const deep = JSON.stringify(makeRequest("mnote.page.get", JSON.parse("[".repeat(200) + "]".repeat(200))));
    expect(failed(await t.runtime.dispatcher.dispatch(deep)).error.code).toBe("mnote_tool_payload_too_large");
    await t.close();
  });

  it("values JSON allows and the contract cannot hold: 1e400, lone surrogates", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const text = JSON.stringify(makeRequest("mnote.page.save", { content: [], baseRevision: 7 }, {}, as)).replace(
      '"baseRevision":7',
      '"baseRevision":1e400',
    );
    expect(failed(await t.runtime.dispatcher.dispatch(text)).error).toMatchObject({
      code: "mnote_tool_invalid_input",
      pointer: "/args/baseRevision",
    });
    const lone = failed(await t.call("mnote.artifact.create_ai_note", as, { content: "half \ud800 a pair" }));
    expect(lone.error).toMatchObject({ code: "mnote_tool_invalid_input", pointer: "/args/content" });
    await t.close();
  });

  it("echoes only valid ids, never arbitrary input", async () => {
    const t = await testRuntime();
    const r = failed(
      await t.runtime.dispatcher.dispatch({ ...makeRequest("mnote.page.get"), toolCallId: "<script>".repeat(50) }),
    );
    expect(r.toolCallId).toBeNull();
    expect(JSON.stringify(r)).not.toContain("<script>");
    await t.close();
  });
});

describe("a kernel that fails or hangs", () => {
  /** A dispatcher whose kernel calls go through call first (which may fail, hang, or answer instead of the kernel). */
  async function withKernel(
    call: (command: string) => Promise<unknown>,
    options: { kernelTimeoutMs?: number; answer?: () => unknown; reconcileMs?: number } = {},
  ) {
    const kernel = new ReferenceKernel();
    seedKernel(kernel, demoSeed());
    const state = openDatabase(":memory:");
    const grants = new SqliteGrantStore(state);
    await grants.put({
      sessionId: "s",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read", "page.write", "artifact.write"],
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const dispatcher = createDispatcher({
      kernel: {
        accessCheck: (p) => kernel.accessCheck(p),
        commandStatus: (p) => kernel.commandStatus(p),
        call: ((command: string, payload: unknown) =>
          call(command).then(() => (options.answer ? options.answer() : kernel.execute(command, payload)))) as never,
      },
      grants,
      idempotency: new SqliteIdempotencyStore(state),
      kernelTimeoutMs: options.kernelTimeoutMs,
      reconcileMs: options.reconcileMs ?? 500,
    });
    const ids = {
      sessionId: "s",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read", "page.write", "artifact.write"],
    };
    return { dispatcher, kernel, ids };
  }

  it("a transport failure on a write: retryable outcome_unknown (the kernel cannot say whether it applied it), and the key is free for the retry", async () => {
    let fail = true;
    const { dispatcher, kernel, ids } = await withKernel(async () => {
      if (fail) throw new KernelTransportError("unavailable", "connection refused");
    });
    const request = makeRequest("mnote.artifact.create_ai_note", { content: "n" }, { idempotencyKey: "k" }, ids);
    const r = failed(await dispatcher.dispatch(request));
    expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_outcome_unknown", true]);
    fail = false;
    expect(ok(await dispatcher.dispatch(request)).audit.replayed).toBe(false);
    expect((kernel.db.prepare("SELECT COUNT(*) AS n FROM artifacts").get() as { n: number }).n).toBe(1);
    kernel.close();
  });

  it("a hang: retryable outcome_unknown once the timeout and the reconciliation are over, and other calls are served meanwhile", async () => {
    const { dispatcher, ids } = await withKernel(
      (command) => (command === "artifact.aiNote.create" ? new Promise(() => undefined) : Promise.resolve()),
      { kernelTimeoutMs: 300 },
    );
    const started = Date.now();
    const hanging = dispatcher.dispatch(makeRequest("mnote.artifact.create_ai_note", { content: "n" }, {}, ids));
    const read = ok(await dispatcher.dispatch(makeRequest("mnote.page.get", {}, {}, ids)));
    expect(read.result.title).toBe("项目计划");
    const r = failed(await hanging);
    expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_outcome_unknown", true]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a kernel that throws something unexpected: mnote_tool_internal, no exception escapes", async () => {
    const { dispatcher, ids } = await withKernel(async () => {
      throw new TypeError("boom");
    });
    const r = failed(await dispatcher.dispatch(makeRequest("mnote.page.get", {}, {}, ids)));
    expect(r.error.code).toBe("mnote_tool_internal");
    expect(JSON.stringify(r)).not.toContain("boom");
  });

  it("a kernel answering outside the contract: the runtime answers internal, not the bad data", async () => {
    const { dispatcher, kernel, ids } = await withKernel(async () => undefined, {
      answer: () => ({ commandId: null, replayed: false, result: { title: 42 } }),
    });
    // the runtime reports the bug on stderr for the operator: captured here, where it is expected
    const said: string[] = [];
    const write = jest.spyOn(process.stderr, "write").mockImplementation((text: string | Uint8Array) => {
      said.push(String(text));
      return true;
    });
    let r;
    try {
      r = failed(
        await dispatcher.dispatch(makeRequest("mnote.page.get", {}, {}, { ...ids, capabilityScope: ["page.read"] })),
      );
    } finally {
      write.mockRestore();
    }
    expect(r.error.code).toBe("mnote_tool_internal");
    expect(said).toEqual([
      "mnote-tools: bug: a response did not match the contract at /result: must have required property 'documentId'\n",
    ]);
    kernel.close();
  });
});

describe("messages", () => {
  it("zh-CN by default, as in the note; en when the request or the grant says so", async () => {
    const t = await testRuntime();
    const reader = await t.session({ actorId: "user_2" });
    expect(failed(await t.call("mnote.page.save", reader, sampleArgs["mnote.page.save"])).error.message).toBe(
      "无页面写权限",
    );
    expect(
      failed(await t.call("mnote.page.save", reader, sampleArgs["mnote.page.save"], { locale: "en" })).error.message,
    ).toBe("No permission to edit this page");
    const english = await t.session({ actorId: "user_2" }, { locale: "en" });
    expect(failed(await t.call("mnote.page.save", english, sampleArgs["mnote.page.save"])).error.message).toBe(
      "No permission to edit this page",
    );
    await t.close();
  });
});
