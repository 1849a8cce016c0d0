/**
 * Review finding (issue 43, delivery): `mcp` over stdio stopped by SIGTERM mid-write. Like `call`
 * (test/reliability/call-claims.test.ts), it must give its idempotency claim up before it exits
 * (the retry then replays at once instead of waiting out the lease) and exit 128 + the signal
 * through process.exit, so its buffered log lines are written too (logger.ts flushes on 'exit'; a
 * signal nobody handles ends the process without it). The write is held in flight by a kernel proxy that forwards it (the kernel
 * commits) and never answers; the kernel's notes and the state file's claims are asserted.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { cliPath, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { faultyKernelProxy } from "../support/kernel-proxy";
import { makeRequest } from "../support/requests";

function rows(path: string, sql: string): Array<Record<string, number | string>> {
  const d = new Database(path, { readonly: true });
  try {
    return d.prepare(sql).all() as Array<Record<string, number | string>>;
  } finally {
    d.close();
  }
}

const until = async (what: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
};

it("mcp (stdio) stopped by SIGTERM mid-write releases its claim and exits 143; the retry replays", async () => {
  const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
  const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
  let writes = 0;
  const proxy = await faultyKernelProxy(kernel.url, (command) =>
    command === "artifact.aiNote.create" && writes++ === 0 ? "hold" : "pass",
  );
  const kernelArgs = ["--kernel-url", proxy.url, "--kernel-token", "ktok", "--state", p.state];
  try {
    const child = spawn(
      process.execPath,
      [cliPath, "mcp", "--session", "s_owner", ...kernelArgs, "--kernel-timeout", "60000"],
      { cwd: repoRoot, stdio: ["pipe", "pipe", "ignore"] },
    );
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const ended = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (status, signal) => resolve({ status, signal })),
    );
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + "\n");
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    await until(() => stdout.includes('"id":1'), 30_000);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "mnote_artifact_create_ai_note", arguments: { content: "Written once." } },
    });
    await until(() => proxy.seen.includes("artifact.aiNote.create"), 30_000);
    expect(rows(p.state, "SELECT 1 FROM idempotency_records WHERE state = 'pending'")).toHaveLength(1);
    child.kill("SIGTERM");
    const end = await ended;
    expect([end.status, end.signal]).toEqual([143, null]);
    // the claim was given up before the exit: nothing pending, nothing left for a lease to free
    expect(rows(p.state, "SELECT 1 FROM idempotency_records WHERE state = 'pending'")).toHaveLength(0);
    // the model's retry replays the write the kernel committed: one note
    const retry = await start(["serve", "--port", "0", "--token", "tok", ...kernelArgs]);
    try {
      const res = await fetch(`${retry.url}/v1/tools/call`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer tok" },
        body: JSON.stringify(
          makeRequest(
            "mnote.artifact.create_ai_note",
            { content: "Written once." },
            { keyOrigin: "tool_call" },
            { sessionId: "s_owner" },
          ),
        ),
      });
      expect(await res.json()).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
    } finally {
      await retry.stop();
    }
    expect(rows(p.db, "SELECT 1 FROM artifacts WHERE type = 'ai_note'")).toHaveLength(1);
  } finally {
    await proxy.close();
    await kernel.stop();
  }
});
