/**
 * The three HTTP servers (`kernel serve`, `serve`, `mcp --http`) as an attacker on the same machine
 * meets them (issue 12 items 1, 4, 7 and 10): secure by default, Host and Origin checked, JSON only,
 * invalid UTF-8 refused with nothing written, malformed paths a clear 4xx, slow bodies cut off, and
 * tokens never in a log line. Each check goes through the real CLI process.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { connect } from "node:net";
import { request as httpRequest } from "node:http";
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cliPath, repoRoot, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { commandIdFor, idempotencyScope, requestFingerprint } from "../../runtime/dispatch/keys";

const owner = { sessionId: "s_owner", actorId: "user_1" };
const context = {
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  traceId: "t_1",
  sessionId: "s_owner",
  runId: "r_1",
  toolCallId: "c_1",
};

/** Every row of every table of a kernel database: "nothing was written" is this hash unchanged. */
function dbHash(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const hash = createHash("sha256");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>;
    for (const { name } of tables) {
      hash.update(`#${name}\n`);
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all()) hash.update(JSON.stringify(row) + "\n");
    }
    return hash.digest("hex");
  } finally {
    db.close();
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw HTTP request (node:http lets a test set Host and send any bytes, unlike fetch). */
function raw(
  url: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method: options.method ?? "GET",
        path: options.path ?? u.pathname,
        headers: options.headers ?? {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A title with a byte that is not UTF-8 (0xff), spliced into an otherwise valid JSON body. */
function withInvalidUtf8(json: string, marker: string): Buffer {
  const [before, after] = json.split(marker) as [string, string];
  return Buffer.concat([Buffer.from(before, "utf8"), Buffer.from([0x41, 0xff, 0x42]), Buffer.from(after, "utf8")]);
}

const logLines = (stderr: string[]) =>
  stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);

describe("kernel serve: secure by default", () => {
  it("refuses to start without a token, and --insecure-no-auth refuses a non-loopback address", () => {
    const p = seededProject([]);
    const bare = runCli(["kernel", "serve", "--db", p.db, "--port", "0"], { timeoutMs: 20_000 });
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(/refusing to run without a token.*--insecure-no-auth/);
    expect(bare.stdout).not.toContain("listening");
    const wide = runCli(["kernel", "serve", "--db", p.db, "--port", "0", "--insecure-no-auth", "--host", "0.0.0.0"], {
      timeoutMs: 20_000,
    });
    expect(wide.status).toBe(2);
    expect(wide.stderr).toMatch(/loopback only/);
  });

  it("with --insecure-no-auth: warns, and refuses a cross-origin text/plain POST (415), a foreign Host and a foreign Origin (403); nothing written", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--insecure-no-auth"]);
    expect(logLines(kernel.stderr).find((l) => l.event === "insecure_no_auth")).toMatchObject({
      level: "warn",
      service: "kernel",
    });
    const before = dbHash(p.db);
    const scope = idempotencyScope({
      workspaceId: "ws_1",
      actorId: "user_1",
      toolName: "mnote.page.update_title",
      idempotencyKey: "forged-key",
    });
    const args = { title: "forged" };
    const write = {
      commandId: commandIdFor("page.head.updateTitle", scope),
      idempotencyKey: "forged-key",
      idempotencyScope: scope,
      fingerprint: requestFingerprint("doc_1", args),
      ttlMs: 60_000,
    };
    const forged = JSON.stringify({ context, args, dryRun: false, write });
    const path = "/v1/commands/page.head.updateTitle";

    // what a web page can send without a preflight
    const simple = await raw(kernel.url, {
      method: "POST",
      path,
      headers: { "content-type": "text/plain", origin: "https://evil.example" },
      body: forged,
    });
    expect(simple.status).toBe(403); // the Origin alone already refuses it
    const plain = await raw(kernel.url, {
      method: "POST",
      path,
      headers: { "content-type": "text/plain" },
      body: forged,
    });
    expect([plain.status, JSON.parse(plain.text).error]).toEqual([415, "the body must be application/json"]);
    // DNS rebinding: the right address under a foreign name
    const rebound = await raw(kernel.url, {
      method: "POST",
      path,
      headers: { "content-type": "application/json", host: "evil.example:8788" },
      body: forged,
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text).error).toMatch(/Host "evil.example" is not allowed/);
    // invalid UTF-8: refused as the CLI adapter refuses it, never stored with U+FFFD
    const mangled = await raw(kernel.url, {
      method: "POST",
      path,
      headers: { "content-type": "application/json" },
      body: withInvalidUtf8(forged, "forged"),
    });
    expect([mangled.status, JSON.parse(mangled.text)]).toEqual([
      400,
      { ok: false, error: { code: "mnote_tool_invalid_input", reason: "not_json" } },
    ]);
    expect(dbHash(p.db)).toBe(before);

    // the same command, sent the way the runtime sends it, does reach the kernel
    const allowed = await raw(kernel.url, {
      method: "POST",
      path,
      headers: { "content-type": "application/json" },
      body: forged,
    });
    expect([allowed.status, JSON.parse(allowed.text).ok]).toEqual([200, true]);
    expect(dbHash(p.db)).not.toBe(before);
    await kernel.stop();
  });

  it("with a token: 401 with WWW-Authenticate without it", async () => {
    const p = seededProject([]);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
    const body = JSON.stringify({ context, args: {} });
    const refused = await raw(kernel.url, {
      method: "POST",
      path: "/v1/commands/access.check",
      headers: { "content-type": "application/json" },
      body,
    });
    expect([refused.status, refused.headers["www-authenticate"]]).toEqual([401, "Bearer"]);
    const ok = await raw(kernel.url, {
      method: "POST",
      path: "/v1/commands/access.check",
      headers: { "content-type": "application/json", authorization: "Bearer ktok" },
      body,
    });
    expect(ok.status).toBe(200);
    await kernel.stop();
  });
});

describe("serve: Host, Origin, clear 4xx, invalid UTF-8, slow bodies, tokens", () => {
  it("checks Host and Origin against an allow-list (default loopback, configurable)", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    const listing = { path: "/v1/tools", headers: { authorization: "Bearer tok" } };
    expect((await raw(server.url, listing)).status).toBe(200);
    expect((await raw(server.url, { ...listing, headers: { ...listing.headers, host: "localhost" } })).status).toBe(
      200,
    );
    expect((await raw(server.url, { ...listing, headers: { ...listing.headers, host: "evil.example" } })).status).toBe(
      403,
    );
    expect(
      (await raw(server.url, { ...listing, headers: { ...listing.headers, origin: "https://evil.example" } })).status,
    ).toBe(403);
    expect(
      (await raw(server.url, { ...listing, headers: { ...listing.headers, origin: "http://localhost:3000" } })).status,
    ).toBe(200);
    await server.stop();

    const configured = await start([
      "serve",
      "--db",
      p.db,
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
      "--allowed-hosts",
      "mnote.internal",
      "--allowed-origins",
      "https://app.mnote.example",
    ]);
    expect(
      (await raw(configured.url, { ...listing, headers: { ...listing.headers, host: "mnote.internal:8787" } })).status,
    ).toBe(200);
    expect(
      (await raw(configured.url, { ...listing, headers: { ...listing.headers, host: "evil.example" } })).status,
    ).toBe(403);
    expect(
      (
        await raw(configured.url, {
          ...listing,
          headers: { ...listing.headers, host: "mnote.internal", origin: "https://app.mnote.example" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await raw(configured.url, {
          ...listing,
          headers: { ...listing.headers, host: "mnote.internal", origin: "http://localhost" },
        })
      ).status,
    ).toBe(403);
    await configured.stop();
  });

  it("GET and DELETE /v1/sessions/% (malformed percent-encoding) are a clear 400, never 500; other routes a clear 4xx", async () => {
    const p = seededProject([]);
    const server = await start([
      "serve",
      "--db",
      p.db,
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
      "--host-token",
      "host",
    ]);
    for (const [method, token] of [
      ["GET", "tok"],
      ["DELETE", "host"],
    ] as const) {
      const r = await raw(server.url, {
        method,
        path: "/v1/sessions/%",
        headers: { authorization: `Bearer ${token}` },
      });
      expect([method, r.status, JSON.parse(r.text)]).toEqual([
        method,
        400,
        { error: "the path holds malformed percent-encoding" },
      ]);
    }
    const wrongMethod = await raw(server.url, { method: "PUT", path: "/v1/tools/call" });
    expect([wrongMethod.status, wrongMethod.headers.allow]).toEqual([405, "POST"]);
    expect((await raw(server.url, { path: "/nowhere" })).status).toBe(404);
    const notJson = await raw(server.url, {
      method: "POST",
      path: "/v1/tools/call",
      headers: { authorization: "Bearer tok", "content-type": "text/plain" },
      body: "{}",
    });
    expect([notJson.status, JSON.parse(notJson.text).error.code]).toEqual([415, "mnote_tool_invalid_input"]);
    const unauthorized = await raw(server.url, {
      method: "POST",
      path: "/v1/sessions",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect([unauthorized.status, unauthorized.headers["www-authenticate"]]).toEqual([401, "Bearer"]);
    const garbage = await raw(server.url, {
      method: "POST",
      path: "/v1/sessions",
      headers: { authorization: "Bearer host", "content-type": "application/json" },
      body: "{",
    });
    expect([garbage.status, JSON.parse(garbage.text)]).toEqual([400, { error: "the body is not JSON" }]);
    await server.stop();
    // every one of them is an http_error line, and none is a 500
    const errors = logLines(server.stderr).filter((l) => l.event === "http_error");
    expect(errors.map((l) => l.status)).toEqual([400, 400, 405, 404, 415, 401, 400]);
    expect(errors[0]).toMatchObject({
      level: "warn",
      service: "serve",
      method: "GET",
      path: "/v1/sessions/%",
      message: "the path holds malformed percent-encoding",
    });
  });

  it("invalid UTF-8 in a request body is invalid_input with nothing written (HTTP and call's stdin)", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const request = JSON.stringify(makeRequest("mnote.page.update_title", { title: "MARK" }, {}, owner));
    const bytes = withInvalidUtf8(request, "MARK");
    const before = dbHash(p.db);

    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    const http = await raw(server.url, {
      method: "POST",
      path: "/v1/tools/call",
      headers: { authorization: "Bearer tok", "content-type": "application/json" },
      body: bytes,
    });
    expect([http.status, JSON.parse(http.text).error]).toEqual([
      200,
      expect.objectContaining({ code: "mnote_tool_invalid_input", reason: "not_json" }),
    ]);
    await server.stop();
    expect(dbHash(p.db)).toBe(before);

    const child = spawn(process.execPath, [cliPath, "call", "--db", p.db, "--state", p.state], { cwd: repoRoot });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stdin.end(bytes);
    expect(await new Promise((r) => child.once("exit", r))).toBe(0);
    expect(JSON.parse(out).error).toMatchObject({ code: "mnote_tool_invalid_input", reason: "not_json" });
    expect(dbHash(p.db)).toBe(before);

    // the same request with valid bytes does write: the check above is not vacuous
    const valid = runCli(["call", "--db", p.db, "--state", p.state], { input: request });
    expect(JSON.parse(valid.stdout).ok).toBe(true);
    expect(dbHash(p.db)).not.toBe(before);
  });

  it("`call` stops reading stdin past the size limit and answers payload_too_large (stdin that never ends)", async () => {
    const p = seededProject([]);
    const child = spawn(process.execPath, [cliPath, "call", "--db", p.db, "--state", p.state], { cwd: repoRoot });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stdin.on("error", () => undefined); // EPIPE once call stops reading
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let writing = true;
    const pump = () => {
      while (writing && child.stdin.writable && child.stdin.write(chunk));
      if (writing && child.stdin.writable) child.stdin.once("drain", pump);
    };
    pump();
    const code = await new Promise((r) => child.once("exit", r));
    writing = false;
    expect(code).toBe(0);
    expect(JSON.parse(out).error.code).toBe("mnote_tool_payload_too_large");
  });

  it("a body that trickles in is cut off after --request-timeout, not after Node's 300 s", async () => {
    const p = seededProject([]);
    const server = await start([
      "serve",
      "--db",
      p.db,
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
      "--request-timeout",
      "1000",
    ]);
    const u = new URL(server.url);
    const socket = connect(Number(u.port), u.hostname);
    await new Promise((r) => socket.once("connect", r));
    socket.write(
      `POST /v1/tools/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    );
    // one byte every 100 ms: the connection never goes idle, the request never completes
    const trickle = setInterval(() => !socket.destroyed && socket.write("{"), 100);
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString("utf8")));
    const started = Date.now();
    // wide margin: the server must close well before 60 s (its old limit was 300 s)
    let guard: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      new Promise<boolean>((r) => socket.once("close", () => r(true))),
      new Promise<boolean>((r) => (guard = setTimeout(() => r(false), 60_000))),
    ]);
    clearTimeout(guard);
    clearInterval(trickle);
    socket.destroy();
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(60_000);
    if (answer) expect(answer).toMatch(/^HTTP\/1\.1 408/);
    await server.stop();
  });

  it("a generated token is written to a 0600 file beside the state, only its path printed, never the token", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0"], {
      env: { MNOTE_TOOLS_TOKEN: undefined },
    });
    const file = join(dirname(p.state), "serve.token");
    expect(server.stderr.filter((l) => l.includes("generated a bearer token"))).toEqual([
      `mnote-tools serve: no --token or MNOTE_TOOLS_TOKEN given; generated a bearer token into ${file} (readable by you only)`,
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, "utf8").trim();
    expect(token.length).toBeGreaterThan(20);
    const call = await raw(server.url, {
      method: "POST",
      path: "/v1/tools/call",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(makeRequest("mnote.page.get", {}, {}, owner)),
    });
    expect(JSON.parse(call.text).ok).toBe(true);
    await server.stop();
    expect(server.stderr.filter((l) => l.startsWith("{")).length).toBeGreaterThan(2);
    // neither a log line nor the notice carries the token: stderr is the log stream of a service
    expect(server.stderr.filter((l) => l.includes(token))).toEqual([]);
  });
});

describe("mcp --http: Host, Origin, WWW-Authenticate, invalid UTF-8", () => {
  it("checks Host and Origin, answers 401 with WWW-Authenticate: Bearer, and refuses invalid UTF-8 with nothing written", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start([
      "mcp",
      "--http",
      "--port",
      "0",
      "--token",
      "mcp-token",
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
    ]);
    const headers = {
      authorization: "Bearer mcp-token",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const call = (title: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "mnote_page_update_title", arguments: { title } },
      });
    const path = new URL(server.url).pathname;

    const noToken = await raw(server.url, {
      method: "POST",
      path,
      headers: { "content-type": "application/json" },
      body: call("x"),
    });
    expect([noToken.status, noToken.headers["www-authenticate"]]).toEqual([401, "Bearer"]);
    expect(JSON.parse(noToken.text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });
    const rebound = await raw(server.url, {
      method: "POST",
      path,
      headers: { ...headers, host: "evil.example" },
      body: call("x"),
    });
    expect(rebound.status).toBe(403);
    const foreign = await raw(server.url, {
      method: "POST",
      path,
      headers: { ...headers, origin: "https://evil.example" },
      body: call("x"),
    });
    expect([foreign.status, JSON.parse(foreign.text).error.message]).toEqual([
      403,
      'Origin "https://evil.example" is not allowed (see --allowed-origins)',
    ]);

    const before = dbHash(p.db);
    const mangled = await raw(server.url, {
      method: "POST",
      path,
      headers,
      body: withInvalidUtf8(call("MARK"), "MARK"),
    });
    expect(mangled.status).toBe(400);
    expect(JSON.parse(mangled.text)).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32700, data: { code: "mnote_tool_invalid_input" } },
    });
    expect(dbHash(p.db)).toBe(before);

    // a loopback origin (a local inspector) and valid bytes do get through, and write
    const client = new Client({ name: "test", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: "Bearer mcp-token", Origin: "http://localhost:6274" } },
      }),
    );
    const result = await client.callTool({ name: "mnote_page_update_title", arguments: { title: "valid" } });
    expect((result.structuredContent as { ok: boolean }).ok).toBe(true);
    await client.close();
    expect(dbHash(p.db)).not.toBe(before);
    await server.stop();
  });
});
