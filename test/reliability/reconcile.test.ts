/**
 * Reconciling a write whose answer was lost: the kernel's command.status, and what the
 * dispatcher answers with it (the committed result, or the retryable outcome_unknown), over an
 * in-process reference kernel behind the generated client, so every payload and reply is checked
 * against the contract.
 */
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { commandIdFor, idempotencyScope, requestFingerprint } from "../../runtime/dispatch/keys";
import { createKernelClient } from "../../generated/kernel/client";
import { KernelTransportError, type KernelTransport } from "../../generated/kernel/transport";
import { errorCatalog } from "../../generated/registry";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { executeCommand } from "../../kernel/protocol";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { makeRequest } from "../support/requests";
import { demoSeed, failed, ok } from "../support/runtime";
import { allowAllPolicy } from "../support/approval";

const ids = {
  sessionId: "s_owner",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write", "artifact.write"],
};

function kernel(): ReferenceKernel {
  const k = new ReferenceKernel();
  seedKernel(k, demoSeed());
  return k;
}

/** The reference kernel behind the wire protocol, with a fault hook per command. */
function wire(
  k: ReferenceKernel,
  fault: (command: string, payload: unknown) => "pass" | "lose" | "fail" | "late" = () => "pass",
): KernelTransport {
  return async (command, payload) => {
    const mode = fault(command, payload);
    if (mode === "fail") throw new KernelTransportError("unavailable", `${command}: connection reset`);
    if (mode === "late") {
      // delivered, but only after the runtime gave up waiting for it
      setTimeout(() => executeCommand(k, command, payload), 400);
      throw new KernelTransportError("timeout", `${command}: no answer`);
    }
    const reply = executeCommand(k, command, payload);
    if (mode === "lose") throw new KernelTransportError("timeout", `${command}: the answer was lost`);
    return reply;
  };
}

async function dispatcherOver(transport: KernelTransport, reconcileMs = 2_000) {
  const state = openDatabase(":memory:");
  const grants = new SqliteGrantStore(state);
  await grants.put({
    ...ids,
    capabilityScope: ids.capabilityScope as never,
    expiresAt: new Date(Date.now() + 3600e3).toISOString(),
  });
  return createDispatcher({
    kernel: createKernelClient(transport),
    grants,
    idempotency: new SqliteIdempotencyStore(state),
    // every tool allowed, explicitly (test/support/approval.ts)
    approval: { policy: allowAllPolicy() },
    kernelTimeoutMs: 5_000,
    reconcileMs,
  });
}

const count = (k: ReferenceKernel, table: string) =>
  (k.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
const isWrite = (payload: unknown) => Boolean((payload as { write?: unknown }).write);

describe("command.status (reference kernel)", () => {
  const context = {
    workspaceId: "ws_1",
    documentId: "doc_1",
    actorId: "user_1",
    traceId: "t_1",
    sessionId: "s_owner",
    runId: "r_1",
    toolCallId: "call_1",
  };
  const scope = idempotencyScope({
    workspaceId: "ws_1",
    actorId: "user_1",
    toolName: "mnote.page.update_title",
    idempotencyKey: "k1",
  });
  const args = { title: "Renamed" };
  const fingerprint = requestFingerprint("doc_1", args);
  const status = (k: ReferenceKernel, over: Record<string, unknown> = {}) =>
    executeCommand(k, "command.status", {
      context,
      commandId: commandIdFor("page.head.updateTitle", scope),
      idempotencyScope: scope,
      fingerprint,
      ...over,
    });

  it("not applied before the write; applied, with the committed result, after it", () => {
    const k = kernel();
    expect(status(k)).toEqual({
      ok: true,
      result: {
        commandId: null,
        replayed: false,
        result: { applied: false, commandId: null, commandName: null, toolCallId: null, result: null },
      },
    });
    const written = k.execute("page.head.updateTitle", {
      context,
      args,
      dryRun: false,
      write: {
        commandId: commandIdFor("page.head.updateTitle", scope),
        idempotencyKey: "k1",
        idempotencyScope: scope,
        fingerprint,
        ttlMs: 60_000,
      },
    }) as { commandId: string; result: unknown };
    expect(status(k)).toEqual({
      ok: true,
      result: {
        commandId: null,
        replayed: false,
        result: {
          applied: true,
          commandId: written.commandId,
          commandName: "page.head.updateTitle",
          toolCallId: "call_1",
          result: written.result,
        },
      },
    });
    // another request under the same key, another actor's view, or a malformed ask: never "applied"
    expect(
      (status(k, { fingerprint: requestFingerprint("doc_1", { title: "Other" }) }) as any).result.result.applied,
    ).toBe(false);
    expect((status(k, { context: { ...context, actorId: "user_2" } }) as any).result.result.applied).toBe(false);
    expect(status(k, { idempotencyScope: "nope" })).toMatchObject({
      ok: false,
      error: { code: "mnote_tool_invalid_input" },
    });
  });

  it("an expired record is not applied (a retry would write again, so the runtime must not claim it)", () => {
    let now = 1_000_000;
    const k = new ReferenceKernel({ now: () => now });
    seedKernel(k, demoSeed());
    k.execute("page.head.updateTitle", {
      context,
      args,
      dryRun: false,
      write: {
        commandId: commandIdFor("page.head.updateTitle", scope),
        idempotencyKey: "k1",
        idempotencyScope: scope,
        fingerprint,
        ttlMs: 1_000,
      },
    });
    expect((status(k) as any).result.result.applied).toBe(true);
    now += 5_000;
    expect((status(k) as any).result.result.applied).toBe(false);
  });
});

describe("a write whose answer is lost", () => {
  it("is answered with the committed result when command.status says it was applied; the retry replays; one write", async () => {
    const k = kernel();
    let lost = 0;
    const dispatcher = await dispatcherOver(wire(k, (c, p) => (isWrite(p) && lost++ === 0 ? "lose" : "pass")));
    const request = makeRequest(
      "mnote.artifact.create_ai_note",
      { content: "answer lost" },
      { idempotencyKey: "lost-1" },
      ids,
    );
    const first = ok(await dispatcher.dispatch(request));
    expect(first.audit).toMatchObject({ effect: "write", replayed: false });
    expect(count(k, "artifacts")).toBe(1);
    const retry = ok(await dispatcher.dispatch(request));
    expect(retry.audit).toMatchObject({ replayed: true, commandId: first.audit.commandId });
    expect(retry.result).toEqual(first.result);
    expect(count(k, "artifacts")).toBe(1);
    expect(count(k, "command_log")).toBe(1);
  });

  it("is outcome_unknown (retryable, 'retry the same call') when the kernel cannot say; the same call then replays, never writes twice", async () => {
    const k = kernel();
    let lost = 0;
    let statusDown = true;
    const dispatcher = await dispatcherOver(
      wire(k, (c, p) => (c === "command.status" && statusDown ? "fail" : isWrite(p) && lost++ === 0 ? "lose" : "pass")),
      500,
    );
    const request = makeRequest(
      "mnote.artifact.create_ai_note",
      { content: "who knows" },
      { idempotencyKey: "unknown-1", locale: "en" },
      ids,
    );
    const first = failed(await dispatcher.dispatch(request));
    expect(first.error).toMatchObject({ code: "mnote_tool_outcome_unknown", retryable: true });
    expect(first.error.message).toBe(errorCatalog.mnote_tool_outcome_unknown.messages.en);
    expect(first.error.message).toMatch(/retry the same call; it will not write twice/);
    expect(first.audit).toMatchObject({ effect: "none", commandId: null });
    expect(count(k, "artifacts")).toBe(1); // it was in fact applied
    statusDown = false;
    const retry = ok(await dispatcher.dispatch(request));
    expect(retry.audit.replayed).toBe(true);
    expect(count(k, "artifacts")).toBe(1);
  });

  it("keeps asking while the write is still on its way, and answers it once it lands", async () => {
    const k = kernel();
    let sent = 0;
    const dispatcher = await dispatcherOver(
      wire(k, (c, p) => (isWrite(p) && sent++ === 0 ? "late" : "pass")),
      5_000,
    );
    const r = ok(
      await dispatcher.dispatch(
        makeRequest("mnote.page.update_title", { title: "Landed late" }, { idempotencyKey: "late-1" }, ids),
      ),
    );
    expect(r.result).toMatchObject({ revision: 1 });
    expect((k.db.prepare("SELECT title FROM pages WHERE id = ?").get("doc_1") as { title: string }).title).toBe(
      "Landed late",
    );
    expect(count(k, "command_log")).toBe(1);
  });

  it("the zh-CN message says the same: retry the same call, no double write", async () => {
    const entry = errorCatalog.mnote_tool_outcome_unknown;
    expect(entry.retryable).toBe(true);
    expect(entry.messages["zh-CN"]).toMatch(/相同参数重试同一调用.*不会重复写入/);
  });
});
