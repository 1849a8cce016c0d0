/**
 * The pre-scan on every transport that parses JSON (issue 21): serve, call, mcp --http and mcp over
 * stdio refuse a 1 MiB request whose parse alone would be the cost (a 524k-deep nesting, 122k keys)
 * before JSON.parse, with their own refusal, write nothing, and keep serving. Costs are measured by
 * `npm run bench -- --only hostile`, not here.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { cliPath, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";

const owner = { sessionId: "s_owner", actorId: "user_1" };
const grants = [{ session: "s_owner", actor: "user_1" }];
const MiB = 1024 * 1024;

/** Every row of every table of the kernel database (read-only), hashed. */
function kernelHash(db: string): string {
  const d = new Database(db, { readonly: true });
  try {
    const hash = createHash("sha256");
    const tables = d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>;
    for (const { name } of tables) {
      hash.update(`#${name}\n`);
      for (const row of d.prepare(`SELECT * FROM ${name} ORDER BY 1`).all()) hash.update(JSON.stringify(row) + "\n");
    }
    return hash.digest("hex");
  } finally {
    d.close();
  }
}

/** A page.save envelope whose content is the hostile value, as text just under `limit` bytes. */
function hostileSave(shape: "deep" | "keys", limit = MiB): string {
  const text = JSON.stringify(
    makeRequest("mnote.page.save", { content: "@V@" }, { idempotencyKey: `hostile-${shape}` }, owner),
  );
  const room = limit - Buffer.byteLength(text) - 8;
  let value: string;
  if (shape === "deep") value = "[".repeat(room >> 1) + "]".repeat(room >> 1);
  else {
    const keys: string[] = [];
    for (let k = 0, size = 2; size + 12 < room; k++) {
      const member = `"${k.toString(36)}":0`;
      keys.push(member);
      size += member.length + 1;
    }
    value = `{${keys.join(",")}}`;
  }
  return text.replace('"@V@"', value);
}

/** A tools/call JSON-RPC message for page.save whose content is the hostile value, just under 1 MiB. */
function hostileCall(shape: "deep" | "keys", id: number): string {
  const message = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "mnote_page_save", arguments: { content: "@V@", mode: "append" } },
  });
  const room = MiB - message.length - 8;
  const value =
    shape === "deep"
      ? "[".repeat(room >> 1) + "]".repeat(room >> 1)
      : `{${Array.from({ length: 100_000 }, (_, k) => `"k${k.toString(36)}":0`).join(",")}}`;
  return message.replace('"@V@"', value);
}

describe("a hostile 1 MiB request is refused before JSON.parse on every transport", () => {
  it("serve: the envelope's refusal (payload_too_large), nothing written, the next call served", async () => {
    const p = seededProject(grants);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const before = kernelHash(p.db);
      for (const shape of ["deep", "keys"] as const) {
        const r = await postJson(`${server.url}/v1/tools/call`, hostileSave(shape), "tok");
        expect([shape, r.status, r.body.ok, r.body.error?.code]).toEqual([
          shape,
          200,
          false,
          "mnote_tool_payload_too_large",
        ]);
      }
      expect(kernelHash(p.db)).toBe(before);
      const next = await postJson(`${server.url}/v1/tools/call`, makeRequest("mnote.page.get", {}, {}, owner), "tok");
      expect(next.body.ok).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it("call: the envelope's refusal on stdout, exit 0, nothing written", () => {
    const p = seededProject(grants);
    const before = kernelHash(p.db);
    for (const shape of ["deep", "keys"] as const) {
      const run = runCli(["call", "--db", p.db, "--state", p.state], { input: hostileSave(shape) });
      expect([shape, run.status]).toEqual([shape, 0]);
      const answer = JSON.parse(run.stdout) as { ok: boolean; error: { code: string; pointer?: string } };
      expect([shape, answer.ok, answer.error.code]).toEqual([shape, false, "mnote_tool_payload_too_large"]);
    }
    expect(kernelHash(p.db)).toBe(before);
  });

  it("mcp --http: 413 with a JSON-RPC error naming payload_too_large, nothing written, the next call served", async () => {
    const p = seededProject(grants);
    const server = await start([
      "mcp",
      "--http",
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
    ]);
    try {
      const before = kernelHash(p.db);
      const post = (body: string) =>
        fetch(server.url, {
          method: "POST",
          headers: {
            authorization: "Bearer tok",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body,
        });
      for (const shape of ["deep", "keys"] as const) {
        const res = await post(hostileCall(shape, 1));
        const body = (await res.json()) as { error: { code: number; data: { code: string } } };
        expect([shape, res.status, body.error.code, body.error.data.code]).toEqual([
          shape,
          413,
          -32600,
          "mnote_tool_payload_too_large",
        ]);
      }
      expect(kernelHash(p.db)).toBe(before);
      const list = await post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }));
      expect(list.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("mcp over stdio: a JSON-RPC error with id null for the line, nothing written, the next message answered", async () => {
    const p = seededProject(grants);
    const before = kernelHash(p.db);
    const child = spawn(process.execPath, [cliPath, "mcp", "--session", "s_owner", "--db", p.db, "--state", p.state], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    const answers: Array<{ id: number | null; error?: { code: number; data?: { code: string } }; result?: unknown }> =
      [];
    let out = "";
    const waitFor = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${answers.length} answers: ${out.slice(0, 500)}`)),
          30_000,
        );
        const check = () => {
          if (answers.length >= n) {
            clearTimeout(timer);
            resolve();
          } else setTimeout(check, 20);
        };
        check();
      });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const lines = out.split("\n");
      out = lines.pop()!;
      for (const line of lines) if (line) answers.push(JSON.parse(line));
    });
    try {
      child.stdin.write(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
        }) + "\n",
      );
      await waitFor(1);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
      child.stdin.write(hostileCall("deep", 2) + "\n");
      child.stdin.write(hostileCall("keys", 3) + "\n");
      // past the byte limit: the rest of the line is skipped, not buffered
      child.stdin.write("[".repeat(3 * MiB) + "\n");
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: {} }) + "\n");
      await waitFor(5);
      const refused = answers.slice(1, 4);
      for (const a of refused)
        expect([a.id, a.error?.code, a.error?.data?.code]).toEqual([null, -32600, "mnote_tool_payload_too_large"]);
      expect(answers[4]!.id).toBe(4);
      expect(answers[4]!.result).toBeDefined();
      expect(kernelHash(p.db)).toBe(before);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once("exit", r));
    }
  });
});
