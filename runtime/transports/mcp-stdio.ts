/**
 * MCP over stdio with the request limits: the SDK's StdioServerTransport buffers up to 10 MiB per
 * line, decodes it with U+FFFD in place of invalid bytes, and gives it to JSON.parse whatever its
 * shape. This transport reads newline-delimited JSON-RPC the same way, but a line is held to the
 * byte limit (past it the rest of the line is skipped, not buffered), decoded as strict UTF-8 and
 * pre-scanned for depth and size before JSON.parse, like every other transport's body
 * (runtime/dispatch/prescan.ts). A refused line is answered with a JSON-RPC error whose id is null
 * (the id was never read), as MCP over HTTP answers a body it cannot read.
 */
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { ERR } from "../../generated/registry";
import { JSON_RPC_LIMITS, jsonRpcTooLarge } from "./json-rpc-limits";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const NEWLINE = 0x0a;

/** A JSON-RPC error for a message that could not be read (id null). */
function unreadable(code: number, message: string, errorCode: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id: null, error: { code, message, data: { code: errorCode } } } as unknown as JSONRPCMessage;
}

export class LimitedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Told once the transport closed (the serving entry owns onclose). */
  onclosed?: () => void;
  private parts: Buffer[] = [];
  private size = 0;
  /** Past the byte limit: the rest of the line is dropped until its newline. */
  private skipping = false;
  private started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = JSON_RPC_LIMITS.maxBytes,
  ) {}

  private readonly ondata = (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      if (!this.skipping) {
        this.size += piece.length;
        if (this.size > this.maxBytes) {
          this.skipping = true;
          this.parts = [];
          void this.send(
            unreadable(-32600, `Request too large: a message is at most ${this.maxBytes} bytes`, ERR.payloadTooLarge),
          );
        } else if (piece.length > 0) this.parts.push(piece);
      }
      if (end < 0) return;
      // a line that came in one chunk (the usual case) is read where it lies: no copy, no new buffer
      if (!this.skipping) this.line(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts));
      this.parts = [];
      this.size = 0;
      this.skipping = false;
      start = end + 1;
    }
  };

  private readonly onstreamerror = (error: Error) => this.onerror?.(error);

  private line(bytes: Buffer): void {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    if (end === 0) return;
    let text: string;
    try {
      text = strictUtf8.decode(bytes.subarray(0, end));
    } catch {
      void this.send(unreadable(-32700, "Parse error: the message is not valid UTF-8", ERR.invalidInput));
      return;
    }
    const tooLarge = jsonRpcTooLarge(text);
    if (tooLarge) {
      void this.send(unreadable(-32600, `Request too large: ${tooLarge}`, ERR.payloadTooLarge));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      void this.send(unreadable(-32700, "Parse error: the message is not JSON", ERR.invalidInput));
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (e) {
      this.onerror?.(new Error(`not a JSON-RPC message: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    this.onmessage?.(message);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("LimitedStdioServerTransport already started");
    this.started = true;
    this.stdin.on("data", this.ondata);
    this.stdin.on("error", this.onstreamerror);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.ondata);
    this.stdin.off("error", this.onstreamerror);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.parts = [];
    this.onclose?.();
    this.onclosed?.();
  }

  /** The one place an answer is handed to the client on stdio (delivery is confirmed when the write is flushed). */
  send(message: JSONRPCMessage): Promise<void> {
    // resolves once stdout took the line (its write callback), rejects when the write failed: the
    // delivery rule confirms a write's answer only after this (mcp-server.ts, deliverOnSend)
    return new Promise((resolve, reject) => {
      this.stdout.write(JSON.stringify(message) + "\n", (error) => (error ? reject(error) : resolve()));
    });
  }
}
