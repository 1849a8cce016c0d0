/**
 * Misconfiguration is named: a kernel that refuses the runtime's token (HTTP 401/403) or a kernel
 * CLI adapter that cannot be started is mnote_tool_kernel_misconfigured, not retryable, with a
 * reason; never the retryable kernel_unavailable a model would retry forever. The kernel client
 * says so (not "the reply is not a KernelReply"); serve logs it at error with the cause and never
 * the token; serve and mcp ask the kernel once at start-up and stop with exit 3 when it cannot be
 * used, but serve on (with a warning) when it is merely down.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import { createKernelClient } from "../../generated/kernel/client";
import {
  cliTransport,
  httpTransport,
  KernelMisconfigured,
  KernelTransportError,
  type KernelTransport,
} from "../../generated/kernel/transport";
import { errorCatalog } from "../../generated/registry";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { executeCommand } from "../../kernel/protocol";
import { seedKernel } from "../../kernel/seed";
import { SqliteGrantStore } from "../../runtime/state/grant-store";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { openDatabase } from "../../common/sqlite";
import { checkKernel, STARTUP_CONTEXT } from "../../runtime/kernel-check";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { demoSeed } from "../support/runtime";
import { tempDir } from "../support/tmp";

const owner = { sessionId: "s_owner", actorId: "user_1" };
const SECRET = "kernel-token-that-must-not-leak";

/** A one-route HTTP server answering every command with the given status and body. */
async function answering(status: number, body: unknown): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

async function misconfiguration(send: Promise<unknown>): Promise<KernelMisconfigured> {
  const e = await send.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(KernelMisconfigured);
  return e as KernelMisconfigured;
}

describe("the generated kernel client names the misconfiguration", () => {
  it("HTTP 401 and 403: token_refused, saying which, never quoting the token", async () => {
    for (const status of [401, 403]) {
      const kernel = await answering(status, { error: "a bearer token is required" });
      try {
        const client = createKernelClient(httpTransport({ url: kernel.url, token: SECRET, timeoutMs: 5_000 }));
        const e = await misconfiguration(client.accessCheck({ context: STARTUP_CONTEXT }));
        expect(e.kind).toBe("token_refused");
        expect(e.message).toContain(`HTTP ${status}`);
        expect(e.message).toContain("refuses the token");
        expect(e.message).not.toContain("KernelReply");
        expect(e.message).not.toContain(SECRET);
      } finally {
        await kernel.close();
      }
    }
  });

  it("without a token the message says to set one", async () => {
    const kernel = await answering(401, { error: "a bearer token is required" });
    try {
      const e = await misconfiguration(httpTransport({ url: kernel.url })("access.check", {}));
      expect(e.message).toContain("set --kernel-token");
    } finally {
      await kernel.close();
    }
  });

  it("a credential in the kernel URL is never printed", async () => {
    const kernel = await answering(401, {});
    try {
      const url = kernel.url.replace("http://", `http://user:${SECRET}@`);
      const e = await misconfiguration(httpTransport({ url })("access.check", {}));
      expect(e.message).not.toContain(SECRET);
    } finally {
      await kernel.close();
    }
  });

  it("a CLI adapter that does not exist, cannot be executed, or exits with an error without answering", async () => {
    const missing = await misconfiguration(cliTransport({ command: "/nonexistent/mnote-cli" })("access.check", {}));
    expect([missing.kind, missing.mayHaveRun]).toEqual(["adapter_not_found", false]);
    const script = join(tempDir("mnote-adapter-"), "mnote-cli");
    writeFileSync(script, "#!/bin/sh\necho '{}'\n");
    chmodSync(script, 0o644);
    const locked = await misconfiguration(cliTransport({ command: script })("access.check", {}));
    expect([locked.kind, locked.mayHaveRun]).toEqual(["adapter_not_executable", false]);
    const failing = await misconfiguration(
      cliTransport({ command: process.execPath, args: ["-e", "console.error('no database'); process.exit(4)"] })(
        "access.check",
        {},
      ),
    );
    expect([failing.kind, failing.mayHaveRun]).toEqual(["adapter_failed", true]);
    expect(failing.message).toContain("no database");
  });

  it("an adapter killed by a signal is not misconfiguration: it may pass (kernel_unavailable)", async () => {
    const e = await cliTransport({ command: process.execPath, args: ["-e", "process.kill(process.pid, 'SIGKILL')"] })(
      "access.check",
      {},
    ).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(KernelTransportError);
  });
});

describe("the dispatcher's answer", () => {
  const ids = {
    sessionId: "s_owner",
    workspaceId: "ws_1",
    documentId: "doc_1",
    actorId: "user_1",
    capabilityScope: ["page.read", "page.write", "artifact.write"],
  };

  async function dispatcherOver(transport: KernelTransport) {
    const state = openDatabase(":memory:");
    const grants = new SqliteGrantStore(state);
    await grants.put({
      ...ids,
      capabilityScope: ids.capabilityScope as never,
      expiresAt: new Date(Date.now() + 3600e3).toISOString(),
    });
    const records: Array<{ code: string | null; cause?: string }> = [];
    const dispatcher = createDispatcher({
      kernel: createKernelClient(transport),
      grants,
      idempotency: new SqliteIdempotencyStore(state),
      kernelTimeoutMs: 5_000,
      reconcileMs: 2_000,
      onCall: (r) => records.push(r),
    });
    return { dispatcher, records };
  }

  it("is in the catalog: not retryable, with a reason per cause, in zh-CN and en", () => {
    const entry = errorCatalog.mnote_tool_kernel_misconfigured;
    expect(entry.retryable).toBe(false);
    expect(Object.keys(entry.reasons).sort()).toEqual([
      "adapter_failed",
      "adapter_not_executable",
      "adapter_not_found",
      "no_revision",
      "token_refused",
    ]);
    for (const reason of Object.values(entry.reasons)) expect(Object.keys(reason).sort()).toEqual(["en", "zh-CN"]);
  });

  it("a refused token: kernel_misconfigured (token_refused), retryable false; the record carries the cause", async () => {
    const { dispatcher, records } = await dispatcherOver(async () => {
      throw new KernelMisconfigured("token_refused", "kernel access.check: http://k answers HTTP 401");
    });
    const r = await dispatcher.dispatch(makeRequest("mnote.page.get", {}, {}, owner));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({
      code: "mnote_tool_kernel_misconfigured",
      reason: "token_refused",
      retryable: false,
    });
    expect(records).toEqual([
      expect.objectContaining({ code: "mnote_tool_kernel_misconfigured", cause: expect.stringContaining("HTTP 401") }),
    ]);
  });

  it("a write whose adapter failed is reconciled first: applied is a success, still failing is misconfigured (not outcome_unknown)", async () => {
    const k = new ReferenceKernel();
    seedKernel(k, demoSeed());
    const count = () => (k.db.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n;
    // the adapter applies the write, then crashes before answering; command.status works
    let crashed = false;
    const applyThenCrash: KernelTransport = async (command, payload) => {
      const reply = executeCommand(k, command, payload);
      if ((payload as { write?: unknown }).write && !crashed) {
        crashed = true;
        throw new KernelMisconfigured("adapter_failed", "kernel adapter exited with 1 and no answer");
      }
      return reply;
    };
    const first = await dispatcherOver(applyThenCrash);
    const note = makeRequest("mnote.artifact.create_ai_note", { content: "kept" }, { idempotencyKey: "k1" }, owner);
    const applied = await first.dispatcher.dispatch(note);
    expect(applied).toMatchObject({ ok: true, audit: { effect: "write", replayed: false } });
    expect(count()).toBe(1);

    // the adapter fails for every command after access.check: the answer names it, quickly
    const broken: KernelTransport = async (command, payload) => {
      if (command === "access.check") return executeCommand(k, command, payload);
      throw new KernelMisconfigured("adapter_failed", "kernel adapter exited with 1 and no answer");
    };
    const second = await dispatcherOver(broken);
    const started = Date.now();
    const r = await second.dispatcher.dispatch(
      makeRequest("mnote.artifact.create_ai_note", { content: "other" }, { idempotencyKey: "k2" }, owner),
    );
    expect(r).toMatchObject({
      ok: false,
      error: { code: "mnote_tool_kernel_misconfigured", reason: "adapter_failed", retryable: false },
    });
    expect(Date.now() - started).toBeLessThan(1_900); // it did not wait out the 2 s reconcile window
    expect(count()).toBe(1);
  });
});

describe("serve and mcp: the start-up check, and the log", () => {
  let p: ReturnType<typeof seededProject>;
  beforeAll(() => {
    p = seededProject([{ session: "s_owner", actor: "user_1" }]);
  });

  async function kernelServe() {
    return start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", SECRET]);
  }

  it("a refused token stops serve and mcp at start-up: exit 3, one line, no token", async () => {
    const kernel = await kernelServe();
    try {
      for (const args of [
        ["serve", "--state", p.state, "--port", "0", "--token", "T"],
        ["mcp", "--state", p.state, "--session", "s_owner"],
        ["mcp", "--state", p.state, "--session", "s_owner", "--http", "--port", "0", "--token", "T"],
      ]) {
        const run = runCli([...args, "--kernel-url", kernel.url, "--kernel-token", "wrong"], { timeoutMs: 30_000 });
        expect([args.join(" "), run.status]).toEqual([args.join(" "), 3]);
        expect(run.stderr.trim().split("\n")).toEqual([
          expect.stringMatching(/^mnote-tools: cannot use the kernel: .*HTTP 401.*refuses the token/),
        ]);
        expect(run.stdout).not.toContain("listening");
      }
    } finally {
      await kernel.stop();
    }
  });

  it("a kernel CLI that cannot start stops serve: exit 3", () => {
    const run = runCli(["serve", "--state", p.state, "--port", "0", "--token", "T", "--kernel-cli", "/nonexistent/x"]);
    expect(run.status).toBe(3);
    expect(run.stderr.trim().split("\n")).toEqual([
      "mnote-tools: cannot use the kernel: kernel adapter /nonexistent/x: no such program (check --kernel-cli)",
    ]);
  });

  it("a kernel that is down at start-up is a warning: serve runs, and calls answer kernel_unavailable", async () => {
    const server = await start([
      "serve",
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "T",
      "--kernel-url",
      "http://127.0.0.1:9",
      "--kernel-timeout",
      "2000",
    ]);
    try {
      const warned = server.stderr.map((l) => JSON.parse(l)).find((l) => l.event === "kernel_check");
      expect(warned).toMatchObject({ level: "warn", ok: false, kernel: "http://127.0.0.1:9/" });
      const r = await postJson(`${server.url}/v1/tools/call`, makeRequest("mnote.page.get", {}, {}, owner), "T");
      expect(r.body.error).toMatchObject({ code: "mnote_tool_kernel_unavailable", retryable: true });
    } finally {
      await server.stop();
    }
  });

  it("serve says the kernel answers; logs a success at info, a refusal at warn, a misconfigured kernel at error with the cause and no token", async () => {
    const kernel = await kernelServe();
    const server = await start([
      "serve",
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "T",
      "--kernel-url",
      kernel.url,
      "--kernel-token",
      SECRET,
    ]);
    try {
      const lines = () => server.stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      expect(lines().find((l) => l.event === "kernel_check")).toMatchObject({ level: "info", ok: true });
      const ok = await postJson(`${server.url}/v1/tools/call`, makeRequest("mnote.page.get", {}, {}, owner), "T");
      expect(ok.body.ok).toBe(true);
      const stranger = makeRequest("mnote.page.get", {}, {}, { ...owner, sessionId: "s_nobody" });
      const refused = await postJson(`${server.url}/v1/tools/call`, stranger, "T");
      expect(refused.body.ok).toBe(false);
      // the kernel is restarted with another token: the running serve's calls are now misconfigured
      await kernel.stop();
      const port = new URL(kernel.url).port;
      const moved = await start(["kernel", "serve", "--db", p.db, "--port", port, "--token", "rotated"]);
      try {
        const denied = await postJson(`${server.url}/v1/tools/call`, makeRequest("mnote.page.get", {}, {}, owner), "T");
        expect(denied.body.error).toMatchObject({ code: "mnote_tool_kernel_misconfigured", retryable: false });
      } finally {
        await moved.stop();
      }
      const calls = lines().filter((l) => l.event === "tool_call");
      expect(calls.map((l) => [l.level, l.code])).toEqual([
        ["info", null],
        ["warn", "mnote_tool_not_authenticated"],
        ["error", "mnote_tool_kernel_misconfigured"],
      ]);
      expect(calls[2].cause).toMatch(/HTTP 401.*refuses the token/);
      expect(server.stderr.join("\n")).not.toContain(SECRET);
    } finally {
      await server.stop();
    }
  });

  it("checkKernel: any answer passes, a refusal included; a misconfiguration and a silence are told apart", async () => {
    const k = new ReferenceKernel();
    expect(await checkKernel(k, 1_000)).toEqual({ ok: true });
    k.close();
    const refusing = createKernelClient(async () => ({ ok: false, error: { code: "mnote_tool_permission_denied" } }));
    expect(await checkKernel(refusing, 1_000)).toEqual({ ok: true });
    const silent = createKernelClient(() => new Promise(() => undefined));
    expect(await checkKernel(silent, 200)).toMatchObject({ ok: false, misconfigured: false });
    const adapter = createKernelClient(cliTransport({ command: "/nonexistent/mnote-cli" }));
    expect(await checkKernel(adapter, 1_000)).toMatchObject({ ok: false, misconfigured: true });
  });
});
