/**
 * Host header edge cases on all three servers (`kernel serve`, `serve`, `mcp --http`), which share
 * one HTTP layer (issue 18 item 10). Requests go through a real socket as raw bytes, so two Host
 * headers really arrive (node:http and fetch would send one):
 *   - two Host headers, a loopback one first, are a 400 (RFC 9112 section 3.2) and write nothing,
 *     while the same request with one Host header writes;
 *   - `--allowed-hosts ::1` (or `[::1]`) accepts `Host: [::1]` and `Host: [::1]:port`.
 */
import { connect } from "node:net";
import { seededProject } from "../support/project";
import { start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { dbFileHash } from "../support/db-hash";
import { commandIdFor, idempotencyScope, requestFingerprint } from "../../runtime/dispatch/keys";
import { checkHost, hostnameOf, normalizeHostName } from "../../common/http/host";

jest.setTimeout(120_000);

const owner = { sessionId: "s_owner", actorId: "user_1" };

interface Answer {
  status: number;
  text: string;
}

/** Sends one request as raw lines (headers exactly as given, duplicates included) and reads the answer. */
function rawRequest(url: string, method: string, path: string, headers: string[], body: string): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    let received = "";
    socket.on("data", (d: Buffer) => (received += d.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(received)}`));
      resolve({ status: Number(status[1]), text: received.slice(received.indexOf("\r\n\r\n") + 4) });
    });
    const head = [
      `${method} ${path} HTTP/1.1`,
      ...headers,
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
    ];
    socket.end(head.join("\r\n") + "\r\n\r\n" + body);
  });
}

/** One of the three servers: how to start it, and a write request that changes the kernel's database. */
interface ServerKind {
  start(p: { db: string; state: string }, extra: string[]): Promise<Running>;
  path(server: Running): string;
  headers: string[];
  write(title: string): string;
}

let counter = 0;

const KINDS: Record<string, ServerKind> = {
  "kernel serve": {
    start: (p, extra) => start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok", ...extra]),
    path: () => "/v1/commands/page.head.updateTitle",
    headers: ["Authorization: Bearer ktok", "Content-Type: application/json"],
    write: (title) => {
      const key = `host-key-${++counter}`;
      const scope = idempotencyScope({
        workspaceId: "ws_1",
        actorId: "user_1",
        toolName: "mnote.page.update_title",
        idempotencyKey: key,
      });
      const args = { title };
      const context = {
        workspaceId: "ws_1",
        documentId: "doc_1",
        actorId: "user_1",
        traceId: "t_1",
        sessionId: "s_owner",
        runId: "r_1",
        toolCallId: `c_${counter}`,
      };
      return JSON.stringify({
        context,
        args,
        dryRun: false,
        write: {
          commandId: commandIdFor("page.head.updateTitle", scope),
          idempotencyKey: key,
          idempotencyScope: scope,
          fingerprint: requestFingerprint("doc_1", args),
          ttlMs: 60_000,
        },
      });
    },
  },
  serve: {
    start: (p, extra) => start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", ...extra]),
    path: () => "/v1/tools/call",
    headers: ["Authorization: Bearer tok", "Content-Type: application/json"],
    write: (title) => JSON.stringify(makeRequest("mnote.page.update_title", { title }, {}, owner)),
  },
  "mcp --http": {
    start: (p, extra) =>
      start([
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
        ...extra,
      ]),
    path: (server) => new URL(server.url).pathname,
    headers: [
      "Authorization: Bearer mcp-token",
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
    ],
    write: (title) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: ++counter,
        method: "tools/call",
        params: { name: "mnote_page_update_title", arguments: { title } },
      }),
  },
};

describe.each(Object.keys(KINDS))("%s: the Host header", (name) => {
  const kind = KINDS[name]!;

  it("two Host headers (a loopback one first) are a 400 that writes nothing; one Host header writes", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await kind.start(p, []);
    const port = new URL(server.url).port;
    const send = (hosts: string[], title: string) =>
      rawRequest(server.url, "POST", kind.path(server), [...hosts, ...kind.headers], kind.write(title));
    const before = dbFileHash(p.db);
    for (const hosts of [
      [`Host: 127.0.0.1:${port}`, "Host: evil.example"],
      ["Host: localhost", "host: localhost"],
      [`Host: 127.0.0.1:${port}`, `HOST: 127.0.0.1:${port}`, "Host: evil.example"],
    ]) {
      const answer = await send(hosts, "smuggled");
      expect([hosts, answer.status]).toEqual([hosts, 400]);
      expect(answer.text).toContain(`a request carries one Host header, this one carries ${hosts.length}`);
    }
    // a Host that is not host[:port] is a 400 too, not read leniently
    const odd = await send(["Host: evil.example@localhost"], "smuggled");
    expect(odd.status).toBe(400);
    expect(dbFileHash(p.db)).toBe(before);

    const single = await send([`Host: 127.0.0.1:${port}`], "written");
    expect(single.status).toBe(200);
    expect(dbFileHash(p.db)).not.toBe(before);
    await server.stop();
  });

  it.each(["::1", "[::1]"])(
    "--allowed-hosts %s matches Host: [::1] and [::1]:port, and nothing else",
    async (allowed) => {
      const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
      const server = await kind.start(p, ["--allowed-hosts", allowed]);
      const port = new URL(server.url).port;
      const statusFor = async (host: string) =>
        (await rawRequest(server.url, "POST", kind.path(server), [`Host: ${host}`, ...kind.headers], kind.write(host)))
          .status;
      expect(await statusFor("[::1]")).toBe(200);
      expect(await statusFor(`[::1]:${port}`)).toBe(200);
      expect(await statusFor(`127.0.0.1:${port}`)).toBe(403);
      expect(await statusFor("localhost")).toBe(403);
      await server.stop();
    },
  );
});

describe("one normal form for allowed hosts and Host headers", () => {
  it("an IPv6 literal with or without brackets, in any spelling, is the bracketed canonical form", () => {
    for (const name of ["::1", "[::1]", "0:0:0:0:0:0:0:1", "[0:0::1]"])
      expect([name, normalizeHostName(name)]).toEqual([name, "[::1]"]);
    expect(normalizeHostName(" LocalHost ")).toBe("localhost");
    expect(normalizeHostName("*")).toBe("*");
    const allowed = ["::1"].map(normalizeHostName);
    for (const host of ["[::1]", "[::1]:8787", "[0:0::1]:1"])
      expect([host, checkHost(host, allowed)]).toEqual([host, undefined]);
    expect(checkHost("localhost", allowed)).toMatch(/Host "localhost" is not allowed/);
  });

  it("an allowed host with a port, a scheme or a path is refused at start, never silently unmatched", () => {
    for (const name of ["localhost:8080", "[::1]:80", "http://localhost", "a/b", ""])
      expect(() => normalizeHostName(name)).toThrow(`allowed host "${name}" is not a host name or address`);
  });

  it("a Host header that is not host[:port] has no hostname", () => {
    for (const host of ["evil.example@localhost", "localhost:80:80", "[::1", "a b", "x/y"])
      expect([host, hostnameOf(host)]).toEqual([host, undefined]);
  });
});
