/**
 * One write per answer (issue 46, serve): each answer of `serve`, headers and body together, goes
 * to the operating system in one call of the socket's handle (a write or writev: one system call
 * unless the socket buffer is full), whatever the route and whether the envelope is a success, a
 * failure, a write (delivery watched) or a refusal of the HTTP layer. The handle's write methods
 * are wrapped on each accepted connection: what they are called with is what reaches the kernel.
 */
import type { Server, Socket } from "node:net";
import { request } from "node:http";
import { Writable } from "node:stream";
import { createToolServer } from "../../runtime/transports/tool-server";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { makeRequest } from "../support/requests";

/** The handle methods Node's stream_base writes through (lib/internal/stream_base_commons.js). */
const WRITES = ["writev", "writeBuffer", "writeUtf8String", "writeLatin1String", "writeAsciiString", "writeUcs2String"];

interface HandleWrite {
  method: string;
  bytes: Buffer;
}

/** Records every write call of every accepted socket's handle, as the text it hands over. */
function recordWrites(server: Server): HandleWrite[] {
  const writes: HandleWrite[] = [];
  server.on("connection", (socket: Socket) => {
    const handle = (socket as unknown as { _handle: Record<string, (...a: unknown[]) => unknown> })._handle;
    for (const method of WRITES) {
      const original = handle[method]!;
      handle[method] = function (this: unknown, ...args: unknown[]) {
        const data = args[1];
        const encodingOf: Record<string, BufferEncoding> = {
          writeUtf8String: "utf8",
          writeLatin1String: "latin1",
          writeAsciiString: "ascii",
          writeUcs2String: "ucs2",
        };
        // writev: (req, chunks, allBuffers): buffers, or chunk and encoding pairs
        const parts: Buffer[] =
          method === "writev"
            ? args[2]
              ? (data as Buffer[])
              : (data as unknown[])
                  .filter((_, i) => i % 2 === 0)
                  .map((c, i) =>
                    Buffer.isBuffer(c) ? c : Buffer.from(String(c), (data as BufferEncoding[])[2 * i + 1]),
                  )
            : [Buffer.isBuffer(data) ? data : Buffer.from(String(data), encodingOf[method])];
        writes.push({ method, bytes: Buffer.concat(parts) });
        return original.apply(this, args);
      };
    }
  });
  return writes;
}

/** One request on a keep-alive connection; the raw answer's length (status line to body's end). */
function send(
  port: number,
  agent: import("node:http").Agent,
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("serve answers in one write", () => {
  let t: TestRuntime;
  let server: import("node:http").Server;
  let port: number;
  let writes: HandleWrite[];
  const logged: string[] = [];

  beforeAll(async () => {
    t = await testRuntime();
    const log = createLogger({
      service: "serve",
      destination: new Writable({
        write(chunk: Buffer, _e, done) {
          logged.push(chunk.toString("utf8"));
          done();
        },
      }),
    });
    server = createToolServer({ runtime: t.runtime, token: "tok", hostToken: "host", maxBytes: 1 << 20, log });
    writes = recordWrites(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  it("writes each answer, headers and body, in one call of the socket's handle", async () => {
    const as = await t.session({ actorId: "user_1" });
    const json = { "content-type": "application/json", authorization: "Bearer tok" };
    const cases: Array<[string, string, string | undefined, Record<string, string>, number, boolean?]> = [
      ["POST", "/v1/tools/call", JSON.stringify(makeRequest("mnote.page.get", undefined, {}, as)), json, 200, true],
      ["POST", "/v1/tools/call", JSON.stringify(makeRequest("mnote.page.save", undefined, {}, as)), json, 200, true],
      // a failure envelope (the grant does not know this session)
      [
        "POST",
        "/v1/tools/call",
        JSON.stringify(makeRequest("mnote.page.get", undefined, {}, { sessionId: "s_none" })),
        json,
        200,
        false,
      ],
      ["POST", "/v1/tools/call", "{}", { "content-type": "application/json", authorization: "Bearer wrong" }, 401],
      ["GET", "/healthz", undefined, {}, 200],
      ["GET", "/no/such/route", undefined, {}, 404],
    ];
    const agent = new (await import("node:http")).Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const [method, path, body, headers, status, ok] of cases) {
        const before = writes.length;
        const answer = await send(port, agent, method, path, body, headers);
        expect(answer.status).toBe(status);
        if (ok !== undefined) expect((JSON.parse(answer.body) as { ok: boolean }).ok).toBe(ok);
        // 'end' on the client means every byte arrived: no write of this answer is still to come
        const mine = writes.slice(before);
        expect({ path, status, writes: mine.length }).toEqual({ path, status, writes: 1 });
        const raw = mine[0]!.bytes.toString("utf8");
        expect(raw.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
        // the whole answer: the status line, the headers and every byte of the body
        expect(raw.endsWith(`\r\n\r\n${answer.body}`)).toBe(true);
      }
      expect(writes.length).toBe(cases.length);
      expect(t.count("command_log")).toBe(1); // the save was a real write
    } finally {
      agent.destroy();
    }
  });
});
