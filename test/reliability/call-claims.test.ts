/**
 * A `mnote-tools call` process that dies mid-write frees its idempotency claim quickly (issue 18,
 * item 6): killed outright (SIGKILL) it holds the key only for its short lease, which its heartbeat
 * was renewing; stopped by SIGTERM it releases the claim before it exits. Either way the retry
 * replays the write the kernel committed: one note. The write is held in flight by a kernel proxy
 * that forwards it at once (the kernel commits) and never answers.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { cliPath, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { faultyKernelProxy } from "../support/kernel-proxy";
import { makeRequest } from "../support/requests";
import { DEFAULT_LEASE_MS } from "../../runtime/dispatch/dispatcher";

interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

/** A `call` process, not awaited: this process runs the proxy, so it must not block. */
function call(args: string[], input: string) {
  const child = spawn(process.execPath, [cliPath, "call", ...args], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stdin.end(input);
  const done = new Promise<Ran>((resolve) =>
    child.on("close", (status, signal) => resolve({ status, signal, stdout })),
  );
  return { child, done };
}

const until = async (what: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
};

function rows(path: string, sql: string): Array<Record<string, number | string>> {
  const d = new Database(path, { readonly: true });
  try {
    return d.prepare(sql).all() as Array<Record<string, number | string>>;
  } finally {
    d.close();
  }
}
const aiNotes = (db: string) => rows(db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'")[0]!.n;

async function stack() {
  const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
  const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
  let writes = 0;
  const proxy = await faultyKernelProxy(kernel.url, (command) =>
    command === "artifact.aiNote.create" && writes++ === 0 ? "hold" : "pass",
  );
  const args = ["--kernel-url", proxy.url, "--kernel-token", "ktok", "--state", p.state, "--kernel-timeout", "60000"];
  const request = JSON.stringify(
    makeRequest(
      "mnote.artifact.create_ai_note",
      { content: "Written once." },
      { idempotencyKey: "claim-key" },
      {
        sessionId: "s_owner",
      },
    ),
  );
  return {
    p,
    args,
    request,
    writeArrived: () => proxy.seen.includes("artifact.aiNote.create"),
    async stop() {
      await proxy.close();
      await kernel.stop();
    },
  };
}

const pendingClaims = (state: string) =>
  rows(state, "SELECT lease_until FROM idempotency_records WHERE state = 'pending'") as Array<{ lease_until: number }>;

describe("a `call` that dies mid-write", () => {
  it("killed outright (SIGKILL): its claim runs out within one short lease, and the retry replays", async () => {
    const s = await stack();
    try {
      const first = call(s.args, s.request);
      await until(s.writeArrived, 30_000);
      first.child.kill("SIGKILL");
      expect((await first.done).signal).toBe("SIGKILL");
      // the claim it left holds at most one default lease from now (it was renewed, never 30 s ahead)
      const [claim] = pendingClaims(s.p.state);
      expect(claim!.lease_until).toBeLessThanOrEqual(Date.now() + DEFAULT_LEASE_MS);
      // retry like a caller would, every half second; wide margin, far below the old 30 s lease
      let answer: any;
      const deadline = Date.now() + 20_000;
      do {
        answer = JSON.parse((await call(s.args, s.request).done).stdout);
        if (answer.ok || answer.error.code !== "mnote_tool_in_progress") break;
        await new Promise((r) => setTimeout(r, 500));
      } while (Date.now() < deadline);
      expect(answer).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
      expect(aiNotes(s.p.db)).toBe(1);
    } finally {
      await s.stop();
    }
  });

  it("stopped by SIGTERM: it releases its claim before it exits, and the very next retry replays", async () => {
    const s = await stack();
    try {
      const first = call(s.args, s.request);
      await until(s.writeArrived, 30_000);
      expect(pendingClaims(s.p.state)).toHaveLength(1);
      first.child.kill("SIGTERM");
      const ended = await first.done;
      expect([ended.status, ended.stdout]).toEqual([143, ""]); // 128 + SIGTERM; no envelope: it did not finish
      expect(pendingClaims(s.p.state)).toHaveLength(0);
      const retry = JSON.parse((await call(s.args, s.request).done).stdout);
      expect(retry).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
      expect(aiNotes(s.p.db)).toBe(1);
    } finally {
      await s.stop();
    }
  });
});
