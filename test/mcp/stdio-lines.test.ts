/**
 * The stdio transport's line reading (runtime/transports/mcp-stdio.ts): a line that came in one
 * chunk is read where it lies (no copy, issue 46), a line split across chunks is joined, several
 * lines in one chunk are each read, CRLF is accepted; every message reaches the server whole and
 * in order, and a line of invalid UTF-8 is refused without touching the lines around it.
 */
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { LimitedStdioServerTransport } from "../../runtime/transports/mcp-stdio";

const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });

async function read(chunks: Buffer[]): Promise<{ messages: JSONRPCMessage[]; sent: unknown[] }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const sent: unknown[] = [];
  stdout.on("data", (d: Buffer) =>
    sent.push(
      ...d
        .toString("utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ),
  );
  const transport = new LimitedStdioServerTransport(stdin, stdout);
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (m) => messages.push(m);
  await transport.start();
  for (const chunk of chunks) {
    stdin.write(chunk);
    await new Promise((r) => setImmediate(r));
  }
  await transport.close();
  return { messages, sent };
}

describe("mcp stdio: lines from chunks", () => {
  it("reads one-chunk lines, split lines, several lines per chunk and CRLF, whole and in order", async () => {
    const line = (id: number, end = "\n") => JSON.stringify(ping(id)) + end;
    const split = Buffer.from(line(3));
    const { messages, sent } = await read([
      Buffer.from(line(1)), // one line, one chunk
      Buffer.from(line(2, "\r\n") + split.subarray(0, 5).toString("latin1"), "latin1"), // a line, then a part
      split.subarray(5, 12),
      Buffer.concat([split.subarray(12), Buffer.from(line(4) + line(5))]), // the rest, then two lines
    ]);
    expect(messages).toEqual([1, 2, 3, 4, 5].map(ping));
    expect(sent).toEqual([]);
  });

  it("refuses a line of invalid UTF-8 in one chunk and reads the next", async () => {
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":9,"method":"p'),
      Buffer.from([0xff]),
      Buffer.from('"}\n'),
    ]);
    const { messages, sent } = await read([bad, Buffer.from(JSON.stringify(ping(10)) + "\n")]);
    expect(messages).toEqual([ping(10)]);
    expect(sent).toEqual([expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) })]);
  });
});
