/**
 * Faults between the runtime and the kernel: an acknowledgement lost after the kernel committed
 * (over the generated HTTP client and the CLI transport), and a kernel that is slow, failing or
 * down. The runtime answers a retryable error within its timeout, keeps serving other calls, and
 * a retry with the same key never writes twice.
 */
import { createServer, request as httpRequest } from "node:http";
import Database from "better-sqlite3";
import { cliPath } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { failed, ok } from "../support/runtime";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { createKernelClient } from "../../generated/kernel/client";
import { cliTransport, httpTransport, KernelTransportError, type KernelTransport } from "../../generated/kernel/transport";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";

const ids = { sessionId: "s_owner", workspaceId: "ws_1", documentId: "doc_1", actorId: "user_1", capabilityScope: ["page.read", "page.write", "artifact.write"] };
const KERNEL_TOKEN = "kernel-faults-token";

async function runtimeOver(transport: KernelTransport, kernelTimeoutMs = 15_000) {
  const state = openDatabase(":memory:");
  const grants = new SqliteGrantStore(state);
  await grants.put({ ...ids, capabilityScope: ids.capabilityScope as never, expiresAt: new Date(Date.now() + 3600e3).toISOString() });
  return createDispatcher({ kernel: createKernelClient(transport), grants, idempotency: new SqliteIdempotencyStore(state), kernelTimeoutMs });
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
    const request = makeRequest("mnote.artifact.create_ai_note", { content: "committed, answer lost" }, { idempotencyKey: "lost-ack" }, ids);
    const first = failed(await dispatcher.dispatch(request));
    expect([first.error.code, first.error.retryable]).toEqual(["mnote_tool_kernel_unavailable", true]);
    expect(lossy.lost()).toBe(1);
    expect(commandCount(db)).toBe(1); // the kernel did commit
    const retry = ok(await dispatcher.dispatch(request));
    expect(retry.audit.replayed).toBe(true);
    const logged = new Database(db, { readonly: true });
    const row = logged.prepare("SELECT command_id, result_json FROM command_log").get() as { command_id: string; result_json: string };
    logged.close();
    expect(retry.audit.commandId).toBe(row.command_id);
    expect(retry.result).toEqual(JSON.parse(row.result_json));
    expect(ok(await dispatcher.dispatch(request)).audit.commandId).toBe(row.command_id);
    expect(commandCount(db)).toBe(1);
  }

  it("over the generated HTTP kernel client: the retry returns the original commandId and result; one kernel command", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
    await check(p.db, httpTransport({ url: kernel.url, token: KERNEL_TOKEN, timeoutMs: 5_000 }));
    await kernel.stop();
  });

  it("over the CLI transport (kernel exec): the same", async () => {
    const p = seededProject([]);
    await check(p.db, cliTransport({ command: process.execPath, args: [cliPath, "kernel", "exec", "--db", p.db], timeoutMs: 10_000 }));
  });
});

describe("a kernel that is slow, failing or down", () => {
  /** A proxy in front of a real kernel: passes a command on at once, then delays or fails the answer. */
  async function faultyProxy(target: string, fault: (command: string) => "delay" | "fail" | "pass"): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((req, res) => {
      const command = (req.url ?? "").split("/").pop() ?? "";
      const mode = fault(command);
      if (mode === "fail") {
        req.resume();
        res.writeHead(500);
        res.end("kernel crashed");
        return;
      }
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const upstream = httpRequest(target + req.url, { method: req.method, headers: req.headers }, (up) => {
          const body: Buffer[] = [];
          up.on("data", (c: Buffer) => body.push(c));
          up.on("end", () => {
            const answer = () => {
              if (res.destroyed) return; // the runtime gave up waiting: the answer is lost
              res.writeHead(up.statusCode ?? 502, { "content-type": "application/json" });
              res.end(Buffer.concat(body));
            };
            if (mode === "delay") setTimeout(answer, 3_000);
            else answer();
          });
        });
        upstream.on("error", () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    return {
      url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      close: () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    };
  }

  it("slow: a retryable error within the timeout while reads keep being served; the retry later writes once", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
    let slow = true;
    const proxy = await faultyProxy(kernel.url, (c) => (c === "artifact.aiNote.create" && slow ? "delay" : "pass"));
    const dispatcher = await runtimeOver(httpTransport({ url: proxy.url, token: KERNEL_TOKEN, timeoutMs: 500 }));
    const request = makeRequest("mnote.artifact.create_ai_note", { content: "slow" }, { idempotencyKey: "slow-key" }, ids);
    const started = Date.now();
    const pending = dispatcher.dispatch(request);
    const reads = await Promise.all(Array.from({ length: 5 }, () => dispatcher.dispatch(makeRequest("mnote.page.get", { includeBlocks: false }, {}, ids))));
    for (const r of reads) expect(r.ok).toBe(true);
    const slowAnswer = failed(await pending);
    expect([slowAnswer.error.code, slowAnswer.error.retryable]).toEqual(["mnote_tool_kernel_unavailable", true]);
    expect(Date.now() - started).toBeLessThan(2_500);
    // the kernel had the command at once and committed it; only its answer was late
    expect(commandCount(p.db)).toBe(1);
    slow = false;
    const retry = ok(await dispatcher.dispatch(request));
    expect(retry.audit.replayed).toBe(true);
    expect(commandCount(p.db)).toBe(1);
    await proxy.close();
    await kernel.stop();
  });

  it("failing (HTTP 500): retryable, nothing written, other tools still served", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", KERNEL_TOKEN]);
    const proxy = await faultyProxy(kernel.url, (c) => (c === "page.body.save" ? "fail" : "pass"));
    const dispatcher = await runtimeOver(httpTransport({ url: proxy.url, token: KERNEL_TOKEN, timeoutMs: 2_000 }));
    const r = failed(await dispatcher.dispatch(makeRequest("mnote.page.save", { content: [{ type: "paragraph", text: "x" }] }, {}, ids)));
    expect([r.error.code, r.error.retryable]).toEqual(["mnote_tool_kernel_unavailable", true]);
    expect(commandCount(p.db)).toBe(0);
    expect(ok(await dispatcher.dispatch(makeRequest("mnote.page.update_title", { title: "still served" }, {}, ids))).result.revision).toBe(1);
    await proxy.close();
    await kernel.stop();
  });

  it("down: retryable within the timeout, for every tool", async () => {
    const dispatcher = await runtimeOver(httpTransport({ url: "http://127.0.0.1:9", timeoutMs: 1_000 }));
    for (const name of ["mnote.page.get", "mnote.page.save", "mnote.artifact.create_summary"]) {
      const started = Date.now();
      const r = failed(await dispatcher.dispatch(makeRequest(name, name === "mnote.page.get" ? {} : name === "mnote.page.save" ? { content: [] } : { summary: "s" }, {}, ids)));
      expect([name, r.error.code, r.error.retryable]).toEqual([name, "mnote_tool_kernel_unavailable", true]);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
  });
});
