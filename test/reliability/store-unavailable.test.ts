/**
 * A kernel store that cannot take a write (issue 18, item 8), through the transports it was found
 * on, `call` and `serve`: here its database is locked by another writer past the busy timeout
 * (SQLITE_BUSY; a full or read-only disk takes the same path, in process: test/runtime/edges.test.ts).
 * The answer is the retryable mnote_tool_store_unavailable, never internal and never a stack trace;
 * nothing is half-written; and the key is free again: once the lock is gone the same request
 * (same key) writes once, with no in_progress in between.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { cliPath, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { hashDatabaseFile } from "../support/runtime";

function call(p: { db: string; state: string }, input: string): Promise<{ out: any; err: string }> {
  const child = spawn(process.execPath, [cliPath, "call", "--db", p.db, "--state", p.state], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  child.stdin.end(input);
  return new Promise((resolve, reject) =>
    child.on("close", (status) => {
      try {
        resolve({ out: JSON.parse(out), err });
      } catch {
        reject(new Error(`call exited ${status} without an envelope: ${err}`));
      }
    }),
  );
}

describe("a kernel database that cannot take a write", () => {
  it("call and serve answer store_unavailable (retryable), write nothing, and free the key", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const serve = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    const note = (key: string) =>
      JSON.stringify(
        makeRequest(
          "mnote.artifact.create_ai_note",
          { content: "N" },
          { idempotencyKey: key },
          { sessionId: "s_owner" },
        ),
      );
    try {
      const before = hashDatabaseFile(p.db);
      const locker = new Database(p.db);
      locker.exec("BEGIN IMMEDIATE"); // another writer holds the lock past every busy timeout
      const [viaCall, viaServe] = await Promise.all([
        call(p, note("busy-call")),
        postJson(`${serve.url}/v1/tools/call`, note("busy-serve"), "tok"),
      ]);
      locker.exec("ROLLBACK");
      locker.close();
      for (const r of [viaCall.out, viaServe.body])
        expect(r.error).toMatchObject({ code: "mnote_tool_store_unavailable", retryable: true });
      expect(viaCall.err).not.toMatch(/\n\s+at /); // no stack trace
      expect(serve.stderr.join("\n")).not.toMatch(/\n\s+at /);
      expect(hashDatabaseFile(p.db)).toBe(before);
      // the keys are free: the same requests now write, once each
      const again = await Promise.all([
        call(p, note("busy-call")).then((r) => r.out),
        postJson(`${serve.url}/v1/tools/call`, note("busy-serve"), "tok").then((r) => r.body),
      ]);
      for (const r of again) expect(r).toMatchObject({ ok: true, audit: { effect: "write", replayed: false } });
      const d = new Database(p.db, { readonly: true });
      expect((d.prepare("SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'").get() as { n: number }).n).toBe(
        2,
      );
      d.close();
    } finally {
      await serve.stop();
    }
  });
});
