/**
 * Faults between the runtime and the kernel: an acknowledgement lost after the kernel committed
 * (over the generated HTTP client and the CLI transport), and a kernel that is slow, failing or
 * down. A write whose answer is lost is reconciled (command.status): the committed result, or
 * the retryable outcome_unknown when the kernel cannot tell. Reads answer kernel_unavailable.
 * The runtime keeps serving other calls, and a retry with the same key never writes twice.
 */
import Database from "better-sqlite3";
import { cliPath } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { failed, ok } from "../support/runtime";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { createKernelClient } from "../../generated/kernel/client";
import {
  cliTransport,
  httpTransport,
  KernelTransportError,
  type KernelTransport,
} from "../../generated/kernel/transport";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { faultyKernelProxy } from "../support/kernel-proxy";
import { allowAllPolicy } from "../support/approval";

const ids = {
  sessionId: "s_owner",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write", "artifact.write"],
};
const KERNEL_TOKEN = "kernel-faults-token";

async function runtimeOver(transport: KernelTransport, kernelTimeoutMs = 15_000, reconcileMs = 3_000) {
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
    kernelTimeoutMs,
    reconcileMs,
  });
}

/** The transport delivers the command, the kernel commits, and the answer is lost on the way back. */
function losingFirstWriteReply(inner: KernelTransport): { transport: KernelTransport; lost: () => number } {
  let lost = 0;
  return {
    lost: () => lost,
    transport: async (command, payload) => {
      const reply = await inner(command, payload);
      if (lost === 0 && (payload as { write?: unknown }).write) {
        lost++;
        throw new KernelTransportError("timeout", "the acknowledgement was lost");
      }
      return reply;
    },
  };
}

function commandCount(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n;
  } finally {
    d.close();
  }
}

describe("a lost acknowledgement", () => {
  async function check(db: string, inner: KernelTransport) {
    const lossy = losingFirstWriteReply(inner);
    const dispatcher = await runtimeOver(lossy.transport);
    const request = makeRequest(
      "mnote.artifact.create_ai_note",
      { content: "committed, answer lost" },
      { idempotencyKey: "lost-ack" },
      ids,
    );
    // the runtime asks the kernel (command.status) and answers the committed write
    const first = ok(await dispatcher.dispatch(request));
    expect(lossy.lost()).toBe(1);
    expect(commandCount(db)).toBe(1); // the kernel did commit, once
    const logged = new Database(db, { readonly: true });
    const row = logged.prepare("SELECT command_id, result_json FROM command_log").get() as {
      command_id: string;
      result_json: string;
    };
    logged.close();
    expect(first.audit).toMatchObject({ effect: "write", commandId: row.command_id, replayed: false });
    expect(first.result).toEqual(JSON.parse(row.result_json));
    const retry = ok(await dispatcher.dispatch(request));
    expect(retry.audit.replayed).toBe(true);
    expect(retry.audit.commandId).toBe(row.command_id);
    expect(retry.result).toEqual(JSON.parse(row.result_json));
    expect(ok(await dispatcher.dispatch(request)).audit.commandId).toBe(row.command_id);
    expect(commandCount(db)).toBe(1);
  }

  it("over the generated HTTP kernel client: the call answers the committed result; a retry replays it; one kernel command", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
    await check(p.db, httpTransport({ url: kernel.url, token: KERNEL_TOKEN, timeoutMs: 5_000 }));
    await kernel.stop();
  });

  it("over the CLI transport (kernel exec): the same", async () => {
    const p = seededProject([]);
    await check(
      p.db,
      cliTransport({ command: process.execPath, args: [cliPath, "kernel", "exec", "--db", p.db], timeoutMs: 10_000 }),
    );
  });
});

describe("a kernel that is slow, failing or down", () => {
  it("slow: the write's answer comes too late; the runtime reconciles and answers the committed write while reads keep being served", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
    let slow = true;
    const proxy = await faultyKernelProxy(kernel.url, (c) =>
      c === "artifact.aiNote.create" && slow ? "delay" : "pass",
    );
    const dispatcher = await runtimeOver(httpTransport({ url: proxy.url, token: KERNEL_TOKEN, timeoutMs: 500 }));
    const request = makeRequest(
      "mnote.artifact.create_ai_note",
      { content: "slow" },
      { idempotencyKey: "slow-key" },
      ids,
    );
    const pending = dispatcher.dispatch(request);
    const reads = await Promise.all(
      Array.from({ length: 5 }, () =>
        dispatcher.dispatch(makeRequest("mnote.page.get", { includeBlocks: false }, {}, ids)),
      ),
    );
    for (const r of reads) expect(r.ok).toBe(true);
    const slowAnswer = ok(await pending);
    expect(slowAnswer.audit).toMatchObject({ effect: "write", replayed: false });
    // the kernel had the command at once and committed it; only its answer was late
    expect(commandCount(p.db)).toBe(1);
    slow = false;
    const retry = ok(await dispatcher.dispatch(request));
    expect(retry.audit.replayed).toBe(true);
    expect(commandCount(p.db)).toBe(1);
    await proxy.close();
    await kernel.stop();
  });

  it("failing (HTTP 500): outcome_unknown (the kernel cannot say it applied it), nothing written, other tools still served; the retry writes once", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
    let failing = true;
    const proxy = await faultyKernelProxy(kernel.url, (c) => (c === "page.body.save" && failing ? "fail" : "pass"));
    const dispatcher = await runtimeOver(
      httpTransport({ url: proxy.url, token: KERNEL_TOKEN, timeoutMs: 2_000 }),
      15_000,
      1_000,
    );
    const save = makeRequest(
      "mnote.page.save",
      { content: [{ type: "paragraph", text: "x" }] },
      { idempotencyKey: "save-500" },
      ids,
    );
    const r = failed(await dispatcher.dispatch(save));
    expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_outcome_unknown", true]);
    expect(proxy.seen).toContain("command.status");
    expect(commandCount(p.db)).toBe(0);
    expect(
      ok(await dispatcher.dispatch(makeRequest("mnote.page.update_title", { title: "still served" }, {}, ids))).result
        .revision,
    ).toBe(1);
    failing = false;
    expect(ok(await dispatcher.dispatch(save)).audit.replayed).toBe(false);
    expect(ok(await dispatcher.dispatch(save)).audit.replayed).toBe(true);
    expect(commandCount(p.db)).toBe(2);
    await proxy.close();
    await kernel.stop();
  });

  it("down: retryable for every tool (the access check cannot reach it either)", async () => {
    const dispatcher = await runtimeOver(httpTransport({ url: "http://127.0.0.1:9", timeoutMs: 1_000 }), 15_000, 500);
    for (const name of ["mnote.page.get", "mnote.page.save", "mnote.artifact.create_summary"]) {
      const r = failed(
        await dispatcher.dispatch(
          makeRequest(
            name,
            name === "mnote.page.get" ? {} : name === "mnote.page.save" ? { content: [] } : { summary: "s" },
            {},
            ids,
          ),
        ),
      );
      expect([name, r.error.code, r.error.retryable]).toEqual([name, "mnote_tool_kernel_unavailable", true]);
    }
  });
});
