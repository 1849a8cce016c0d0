/**
 * One logger for the three servers (issue 14 item 4): pino with levels, redaction of tokens and
 * page content, one schema for tool_call, store_unavailable and http_error; and store errors are
 * logged in MCP mode too.
 */
import { Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLogger, logEvent, showGeneratedTokenFile, storeErrorLogger } from "../../common/http/logger";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { privateRedis, redisServerPath } from "../support/fault-world";

function captured(level?: string) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return {
    log: createLogger({ service: "test", level, destination }),
    lines,
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("the servers' logger", () => {
  it("redacts tokens and page content, at the top level and one level down", () => {
    const { log, lines, parsed } = captured();
    log.info(
      {
        event: "x",
        token: "SECRET-1",
        hostToken: "SECRET-2",
        headers: { authorization: "Bearer SECRET-3" },
        args: { content: "PAGE TEXT" },
        request: { title: "PAGE TITLE", blocks: ["B"] },
      },
      "x",
    );
    const text = lines.join("\n");
    for (const secret of ["SECRET-1", "SECRET-2", "SECRET-3", "PAGE TEXT", "PAGE TITLE"])
      expect(text).not.toContain(secret);
    expect(parsed()[0]).toMatchObject({
      level: "info",
      service: "test",
      event: "x",
      token: "[redacted]",
      args: "[redacted]",
      request: { title: "[redacted]", blocks: "[redacted]" },
    });
    expect(typeof parsed()[0]!.time).toBe("string");
  });

  it("has levels: below the threshold nothing is written", () => {
    const { log, parsed } = captured("warn");
    log.info({ event: "quiet" }, "quiet");
    logEvent(log, "warn", "http_error", { method: "GET", path: "/x", status: 404, message: "no route" });
    expect(parsed()).toEqual([
      expect.objectContaining({ level: "warn", event: "http_error", status: 404, path: "/x" }),
    ]);
    expect(() => createLogger({ service: "test", level: "loud" })).toThrow(/--log-level/);
  });

  it("logs the first of every 100 store failures as store_unavailable", () => {
    const { log, parsed } = captured();
    const onError = storeErrorLogger(log);
    for (let i = 0; i < 150; i++) onError(new Error("ECONNREFUSED"));
    expect(parsed().map((l) => [l.event, l.level, l.count])).toEqual([
      ["store_unavailable", "error", 1],
      ["store_unavailable", "error", 101],
    ]);
  });

  it("says where a generated token is as one plain line, not a JSON log line", () => {
    const out: string[] = [];
    showGeneratedTokenFile("serve", "--token", "/srv/mnote/serve.token", (t) => out.push(t));
    expect(out).toEqual([
      "mnote-tools serve: no --token given; generated a bearer token into /srv/mnote/serve.token (readable by you only)\n",
    ]);
  });
});

describe("mcp --http logs like serve", () => {
  (redisServerPath() ? it : it.skip)(
    `tool_call for every call, and store_unavailable when the idempotency store is down (the write still happens once)${redisServerPath() ? "" : " (skipped: redis-server not found)"}`,
    async () => {
      const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
      // a Redis that answers at start (one that does not stops the command, exit 3), stopped before the call
      const redis = await privateRedis(false);
      const server = await start([
        "mcp",
        "--http",
        "--port",
        "0",
        "--token",
        "t",
        "--session",
        "s_owner",
        "--db",
        p.db,
        "--state",
        p.state,
        "--store",
        redis.url,
      ]);
      await redis.stop();
      const client = new Client({ name: "test", version: "0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: "Bearer t" } },
        }),
      );
      // the caller's own key (keyOrigin caller): the kernel's record guards it with the store down. A
      // key derived from the request (tool_call) needs its slot, and is refused while the store is down
      // (test/reliability/slot-store-down.test.ts)
      const r = await client.callTool({
        name: "mnote_artifact_create_ai_note",
        arguments: { content: "SECRET PAGE CONTENT" },
        _meta: { "mnote/idempotencyKey": "logging-store-down" },
      });
      expect((r.structuredContent as { ok: boolean }).ok).toBe(true);
      await client.close();
      await server.stop();
      const lines = server.stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => l.event === "store_unavailable")).toMatchObject({
        level: "error",
        service: "mcp",
        count: 1,
        fallback: expect.any(String),
      });
      expect(lines.find((l) => l.event === "tool_call")).toMatchObject({
        level: "info",
        service: "mcp",
        toolName: "mnote.artifact.create_ai_note",
        ok: true,
        replayed: false,
      });
      expect(server.stderr.join("\n")).not.toContain("SECRET PAGE CONTENT");
      // the line names the store (issue 47: it said only ioredis's "Stream isn't writeable")
      expect(lines.find((l) => l.event === "store_unavailable")?.message).toContain(`--store ${redis.url}`);
    },
  );
});

describe("http_error lines always say what went wrong (issue 47: the MCP server's carried an empty message)", () => {
  it("an answer the MCP SDK wrote itself (406: no acceptable type) is logged with its status's words", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start([
      "mcp",
      "--http",
      "--port",
      "0",
      "--token",
      "t",
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
    ]);
    const res = await fetch(server.url, {
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": "application/json", accept: "text/plain" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    await server.stop();
    const errors = server.stderr
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === "http_error");
    expect(errors).toEqual([
      expect.objectContaining({ service: "mcp", status: res.status, message: expect.stringMatching(/\S/) }),
    ]);
  });
});

describe("a server's start-up warnings are JSON log lines, not plain text among them (issue 47)", () => {
  (redisServerPath() ? it : it.skip)(
    `serve with a Redis that forgets and no MNOTE_APPROVAL_SECRET: two start_warning lines, no plain line${redisServerPath() ? "" : " (skipped: redis-server not found)"}`,
    async () => {
      const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
      const redis = await privateRedis(false);
      try {
        const server = await start(
          ["serve", "--port", "0", "--token", "t", "--db", p.db, "--state", p.state, "--store", redis.url],
          { env: { MNOTE_APPROVAL_SECRET: "" } },
        );
        await server.stop();
        const plain = server.stderr.filter((l) => l.trim() !== "" && !l.startsWith("{"));
        expect(plain).toEqual([]);
        const warnings = server.stderr
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.event === "start_warning");
        expect(warnings).toEqual([
          expect.objectContaining({
            level: "warn",
            service: "serve",
            message: expect.stringContaining("keeps nothing across a restart"),
          }),
          expect.objectContaining({
            level: "warn",
            service: "serve",
            message: expect.stringContaining("MNOTE_APPROVAL_SECRET is not set"),
          }),
        ]);
      } finally {
        await redis.stop();
      }
    },
  );
});
