/**
 * Never twice when the runtime's store cannot be reached at the model's retry (the fault matrix's
 * "serve envelope | Redis (AOF) restarted | new call" wrote twice once at load 45). A keyOrigin
 * "tool_call" write's retry carries a new key; only its slot in the store maps it to the first
 * write's key, which the kernel's record replays. When the runtime's Redis connection was still
 * reconnecting after the restart, the slot could not be read, the retry ran under its own new key,
 * and the kernel took it as a second note. Here the retry is made while Redis is stopped (not by
 * timing luck): it must be refused retryably (store_unavailable) with nothing written, and once
 * Redis is back the retries replay the one note. Through `serve` and MCP Streamable HTTP (real
 * processes: kernel serve, a kernel proxy holding the first answer, the runtime, a Redis with AOF).
 */
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openDatabase } from "../../common/sqlite";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { testRuntime, ok, failed } from "../support/runtime";
import { tempDir } from "../support/tmp";
import { faultWorld, redisServerPath, SESSION, TOOL_TOKEN, type World } from "../support/fault-world";
import { makeRequest } from "../support/requests";

const TOOL = "mnote.artifact.create_ai_note";
const bearer = { authorization: `Bearer ${TOOL_TOKEN}` };

/** What the model read: the note, a failure code, or nothing (the host hung up first). */
type Answer = { ok: true; artifactId: string; replayed: boolean } | { ok: false; code: string };

/** POST with a timeout after which the host hangs up, as a client does. */
function post(url: string, body: unknown, timeoutMs: number): Promise<any> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...bearer };
    const accept = url.endsWith("/mcp") ? { accept: "application/json, text/event-stream" } : {};
    const req = httpRequest(url, { method: "POST", agent: false, headers: { ...headers, ...accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          resolve(undefined);
        }
      });
    });
    const timer = setTimeout(() => req.destroy(), timeoutMs);
    req.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    req.end(text);
  });
}

function fromEnvelope(e: any): Answer {
  if (!e || typeof e.ok !== "boolean") return { ok: false, code: "lost" };
  return e.ok
    ? { ok: true, artifactId: e.result.artifactId, replayed: e.audit.replayed }
    : { ok: false, code: e.error.code };
}

/** One model tool call (a new call id each time, so a new key) through the surface. */
const surfaces: Array<{
  name: string;
  runtime: "serve" | "mcp";
  attempt(w: World, content: string, callId: string, ms: number): Promise<Answer>;
}> = [
  {
    name: "serve envelope",
    runtime: "serve",
    attempt: async (w, content, callId, ms) => {
      const ids = { toolCallId: callId, idempotencyKey: `key_${callId}`, keyOrigin: "tool_call" };
      return fromEnvelope(
        await post(`${w.url}/v1/tools/call`, makeRequest(TOOL, { content }, ids, { sessionId: SESSION }), ms),
      );
    },
  },
  {
    name: "MCP Streamable HTTP",
    runtime: "mcp",
    attempt: async (w, content, callId, ms) => {
      // no _meta key: the runtime derives one from the request (keyOrigin tool_call)
      const params = { name: "mnote_artifact_create_ai_note", arguments: { content } };
      const message = await post(`${w.url}/mcp`, { jsonrpc: "2.0", id: callId, method: "tools/call", params }, ms);
      return fromEnvelope(message?.result?.structuredContent);
    },
  },
];

const skip = redisServerPath() ? undefined : "skipped: redis-server not found (apt-get install redis-server)";

describe("a tool_call write's retry while the runtime's Redis (AOF) is down", () => {
  for (const s of surfaces) {
    (skip ? it.skip : it.concurrent)(
      `${s.name}: refused retryably, nothing written; after Redis is back it replays the one note${skip ? ` (${skip})` : ""}`,
      async () => {
        const w = await faultWorld({ redis: true, runtime: s.runtime });
        try {
          const content = `slot store down: ${s.name}`;
          // the kernel commits the first write at once; its answer is held past the host's timeout
          w.faultWrite(content, { kind: "delay", ms: 6_000 });
          expect((await s.attempt(w, content, "tc-1", 2_000)).ok).toBe(false);
          await w.stopRedis();
          // the model's retry: a new call id, so a new key; the slot (-> the first key) cannot be read
          const whileDown = await s.attempt(w, content, "tc-2", 30_000);
          expect(whileDown).toEqual({ ok: false, code: "mnote_tool_store_unavailable" });
          expect(w.notes(content).length).toBeLessThanOrEqual(1);
          await w.startRedis();
          const trail: string[] = [whileDown.ok ? "ok" : whileDown.code];
          let answer: Answer = whileDown;
          const deadline = Date.now() + 60_000;
          for (let n = 3; !answer.ok && Date.now() < deadline; n++) {
            await new Promise((r) => setTimeout(r, 500));
            answer = await s.attempt(w, content, `tc-${n}`, 30_000);
            trail.push(answer.ok ? "ok" : answer.code);
          }
          expect(answer.ok ? "ok" : `no success within the budget: ${trail.join(", ")}`).toBe("ok");
          const read = answer as { artifactId: string; replayed: boolean };
          // exactly one note in the kernel, the one the model read, answered as a replay
          expect(w.notes(content)).toEqual([read.artifactId]);
          expect(read.replayed).toBe(true);
          // the answer was delivered: the same call made again on purpose is a second note
          const again = await s.attempt(w, content, "tc-again", 30_000);
          expect(again.ok).toBe(true);
          expect(w.notes(content)).toHaveLength(2);
        } finally {
          await w.close();
        }
      },
      180_000,
    );
  }
});

/**
 * The same rule on the embedded store, in process on the reference kernel: the runtime's state file
 * is locked by another writer past the busy timeout (SQLITE_BUSY), so the slot can be read (WAL) but
 * not written. A write whose key no slot holds must not run: its answer lost, the next retry would
 * miss it too and write a second note.
 */
describe("a tool_call write's retry while the state file is locked (SQLite)", () => {
  it("refused retryably, the kernel unchanged; once the lock is gone the retry replays the one note", async () => {
    const file = join(tempDir("mnote-slot-busy-"), "state.db");
    const db = openDatabase(file);
    db.pragma("busy_timeout = 100"); // the lock is held past it (the default waits 10 s)
    const t = await testRuntime({ idempotency: new SqliteIdempotencyStore(db) });
    try {
      const as = await t.session({ actorId: "user_1" });
      const args = { content: "the one note, locked" };
      const byModel = (id: string) =>
        makeRequest(TOOL, args, { toolCallId: id, idempotencyKey: `key_${id}`, keyOrigin: "tool_call" }, as);
      const notes = () => t.count("artifacts", "type = 'ai_note' AND content = ?", args.content);
      // the first call committed, and its answer never reached the model (delivered() not called)
      ok((await t.runtime.dispatcher.dispatchTracked(byModel("tc-1"))).response);
      const before = t.kernelStateHash();
      const locker = new Database(file);
      locker.exec("BEGIN IMMEDIATE");
      // the model's retry (a new call id, so a new key) while the lock holds
      const whileLocked = failed(await t.runtime.dispatcher.dispatch(byModel("tc-2")));
      locker.exec("ROLLBACK");
      locker.close();
      expect(whileLocked.error).toMatchObject({ code: "mnote_tool_store_unavailable", retryable: true });
      expect(t.kernelStateHash()).toBe(before);
      const after = ok(await t.runtime.dispatcher.dispatch(byModel("tc-3")));
      expect(after.audit.replayed).toBe(true);
      expect(notes()).toBe(1);
    } finally {
      await t.close();
      db.close();
    }
  });
});
