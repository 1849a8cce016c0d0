/**
 * Approval over MCP as the 2026-07-28 revision asks for input (runtime/transports/mcp-approval.ts):
 * a call at level ask is answered input_required, one form whose message is the preview and whose
 * schema is yes/no; the client's retry with yes writes exactly once; decline, cancel, no and a
 * replayed or altered requestState write nothing; a client that cannot show a form gets a clear
 * error and nothing is written; the approval token is in nothing a client or model receives.
 *
 * Driven by the SDK's own clients: the v2 client over Streamable HTTP (our HTTP server, in
 * process, so the kernel's tables are read directly), raw 2026-07-28 requests for what a client
 * would not send on its own (a replayed or altered requestState), and both clients over stdio
 * (`mnote-tools mcp` started by the client; the v1 client goes through the SDK's legacy shim).
 */
import type { AddressInfo } from "node:net";
import type { Server as HttpServer } from "node:http";
import Database from "better-sqlite3";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHttpServer } from "../../runtime/transports/mcp-http";
import { approvalPolicyFrom, EMPTY_POLICY } from "../../runtime/approval/policy";
import { createLogger } from "../../common/http/logger";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { seededProject } from "../support/project";
import { cliPath } from "../support/paths";
import { tools } from "../../generated/registry";

const REPLACE = { content: [{ type: "paragraph", text: "Rewritten." }], mode: "replace" };
const MODERN = "2026-07-28";
const TOKEN = "mcp-approval-token";
/** How every approval token starts: base64url of '{"v":1,"s":"' (runtime/approval/token.ts). */
const TOKEN_PREFIX = Buffer.from('{"v":1,"s":"').toString("base64url");

type Answer = {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
};

async function httpServed(policy?: unknown): Promise<{ t: TestRuntime; url: string; close(): Promise<void> }> {
  const t = await testRuntime({
    approval: { policy: policy === undefined ? EMPTY_POLICY : approvalPolicyFrom(policy) },
  });
  const as = await t.session({ actorId: "user_1" });
  const server: HttpServer = createMcpHttpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: as.sessionId,
    token: TOKEN,
    log: createLogger({ service: "test", level: "silent" }),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    t,
    url,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/** The v2 client (2026-07-28), answering every form with `answer` and recording what it was shown. */
async function modernClient(url: string, answer?: (message: string) => Answer) {
  const asked: string[] = [];
  const client = new Client(
    { name: "approval-test", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: answer ? { elicitation: { form: {} } } : {},
    },
  );
  if (answer)
    client.setRequestHandler("elicitation/create", async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      return answer(message);
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
  );
  return { client, asked };
}

/** One raw 2026-07-28 tools/call over HTTP (the envelope and standard headers a v2 client sends). */
async function rawCall(url: string, params: Record<string, unknown>, capabilities: object = { elicitation: {} }) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
      },
    },
  };
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": String(params.name),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as any };
}

function body(t: TestRuntime): string[] {
  return (
    t.kernel.db.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1' ORDER BY position").all() as Array<{
      text: string;
    }>
  ).map((r) => r.text);
}

describe("approval over MCP (2026-07-28, input_required), over Streamable HTTP", () => {
  it("the person sees what would change as a yes/no form; yes writes exactly once", async () => {
    const s = await httpServed();
    const { client, asked } = await modernClient(s.url, () => ({ action: "accept", content: { approve: true } }));
    const before = body(s.t).length;
    const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`删除 ${before} 段，写入 1 段`); // the challenge's summary, in the session's locale
    expect(asked[0]).toContain("「项目计划」"); // the page by its title, not its revision
    expect([r.ok, r.toolName, r.audit.approval]).toEqual([
      true,
      "mnote_page_save",
      { decision: "approved", level: "ask", approvedBy: "user_1" },
    ]);
    expect(body(s.t)).toEqual(["Rewritten."]);
    expect(s.t.count("command_log")).toBe(1);
    await client.close();
    await s.close();
  });

  it.each([
    ["declines", { action: "decline" }],
    ["cancels", { action: "cancel" }],
    ["accepts with no", { action: "accept", content: { approve: false } }],
    ["accepts with a string for yes", { action: "accept", content: { approve: "true" } }],
  ] as Array<[string, Answer]>)("a person who %s: approval_denied (declined), nothing written", async (_n, answer) => {
    const s = await httpServed();
    const { client, asked } = await modernClient(s.url, () => answer);
    const before = s.t.kernelStateHash();
    const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
    const r = result.structuredContent as any;
    expect(asked).toHaveLength(1);
    expect([result.isError, r.error.code, r.error.reason, r.audit.approval]).toEqual([
      true,
      "mnote_tool_approval_denied",
      "declined",
      { decision: "denied", level: "ask" },
    ]);
    expect(s.t.kernelStateHash()).toBe(before);
    expect(s.t.count("command_log")).toBe(0);
    await client.close();
    await s.close();
  });

  it("the round carries no token; a replayed requestState, other arguments or an altered one write nothing", async () => {
    const s = await httpServed();
    const before = s.t.kernelStateHash();
    const first = await rawCall(s.url, { name: "mnote_page_save", arguments: REPLACE });
    expect(first.status).toBe(200);
    const round = first.json.result;
    expect(round.resultType).toBe("input_required");
    expect(round.inputRequests.approve).toMatchObject({
      method: "elicitation/create",
      params: { requestedSchema: { properties: { approve: { type: "boolean" } }, required: ["approve"] } },
    });
    // the token is nowhere in what the client (and so any model) receives
    expect(first.text).not.toContain(TOKEN_PREFIX);
    expect(first.text).not.toContain('"token"');
    expect(s.t.kernelStateHash()).toBe(before);

    const yes = { approve: { action: "accept", content: { approve: true } } };
    const retry = (extra: Record<string, unknown>, args: object = REPLACE) =>
      rawCall(s.url, { name: "mnote_page_save", arguments: args, ...extra });
    // other arguments under the same approval: refused, nothing written
    const other = await retry(
      { inputResponses: yes, requestState: round.requestState },
      { ...REPLACE, content: [{ type: "paragraph", text: "Something else." }] },
    );
    expect(other.json.result.structuredContent.error).toMatchObject({
      code: "mnote_tool_approval_invalid",
      reason: "other_args",
    });
    expect(s.t.kernelStateHash()).toBe(before);
    // an altered requestState is refused by the SDK's verify hook before the handler runs
    const altered = await retry({ inputResponses: yes, requestState: round.requestState.slice(0, -2) + "AA" });
    expect(altered.json.error.code).toBe(-32602);
    expect(s.t.kernelStateHash()).toBe(before);
    // yes writes once
    const done = await retry({ inputResponses: yes, requestState: round.requestState });
    expect(done.json.result.structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
    expect(done.text).not.toContain(TOKEN_PREFIX);
    expect(s.t.count("command_log")).toBe(1);
    const written = s.t.kernelStateHash();
    // the same requestState again: the token's nonce is used, nothing more is written
    const replayed = await retry({ inputResponses: yes, requestState: round.requestState });
    expect(replayed.json.result.structuredContent.error).toMatchObject({
      code: "mnote_tool_approval_invalid",
      reason: "replayed",
    });
    expect([s.t.count("command_log"), s.t.kernelStateHash()]).toEqual([1, written]);
    await s.close();
  });

  it("a retry with the requestState but no answer asks again, without using the approval up (SEP-2322)", async () => {
    const s = await httpServed();
    const before = s.t.kernelStateHash();
    const round = (await rawCall(s.url, { name: "mnote_page_save", arguments: REPLACE })).json.result;
    const retry = (extra: Record<string, unknown>) =>
      rawCall(s.url, { name: "mnote_page_save", arguments: REPLACE, ...extra });
    for (const inputResponses of [undefined, {}]) {
      const again = await retry({ requestState: round.requestState, ...(inputResponses ? { inputResponses } : {}) });
      expect(again.json.result.resultType).toBe("input_required");
      expect(again.json.result.inputRequests.approve.params.message).toBe(round.inputRequests.approve.params.message);
      expect(again.text).not.toContain(TOKEN_PREFIX);
      expect(s.t.kernelStateHash()).toBe(before);
    }
    // nothing was used up: the record is still pending, and the yes that follows writes once
    const yes = { approve: { action: "accept", content: { approve: true } } };
    const done = await retry({ inputResponses: yes, requestState: round.requestState });
    expect(done.json.result.structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
    expect(s.t.count("command_log")).toBe(1);
    await s.close();
  });

  it("a client without elicitation is told so (-32021), and nothing is written", async () => {
    const s = await httpServed();
    const before = s.t.kernelStateHash();
    const { client } = await modernClient(s.url);
    const error = await client.callTool({ name: "mnote_page_save", arguments: REPLACE }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32021);
    expect(String((error as ProtocolError).message)).toMatch(/elicitation/i);
    expect(s.t.kernelStateHash()).toBe(before);
    await client.close();
    await s.close();
  });

  it("a 2025-11-25 client over stateless HTTP cannot be asked: a clear error result, nothing written", async () => {
    const s = await httpServed();
    const before = s.t.kernelStateHash();
    const client = new V1Client({ name: "v1", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { approve: true } }));
    await client.connect(
      new V1Http(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).toMatch(/elicitation/i);
    expect(JSON.stringify(result)).not.toContain(TOKEN_PREFIX);
    expect(s.t.kernelStateHash()).toBe(before);
    await client.close();
    await s.close();
  });

  it("deny holds: nobody is asked, nothing written; annotations stay the contract's", async () => {
    const s = await httpServed({ tools: { "mnote.page.save": "deny" } });
    const { client, asked } = await modernClient(s.url, () => ({ action: "accept", content: { approve: true } }));
    const before = s.t.kernelStateHash();
    const r = (await client.callTool({ name: "mnote_page_save", arguments: { ...REPLACE, mode: "append" } }))
      .structuredContent as any;
    expect([r.error.code, r.error.reason, asked]).toEqual(["mnote_tool_approval_denied", "policy", []]);
    expect(s.t.kernelStateHash()).toBe(before);
    const listed = (await client.listTools()).tools.find((x) => x.name === "mnote_page_save")!;
    expect(listed.annotations).toMatchObject({
      destructiveHint: tools["mnote.page.save"].semantics.destructive,
      idempotentHint: tools["mnote.page.save"].semantics.idempotent,
      readOnlyHint: false,
    });
    await client.close();
    await s.close();
  });
});

describe("approval over MCP, over stdio (`mnote-tools mcp` with the contract's levels)", () => {
  const logged = (db: string) => {
    const d = new Database(db, { readonly: true });
    try {
      return (d.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n;
    } finally {
      d.close();
    }
  };
  const args = (p: { db: string; state: string }) => [
    cliPath,
    "mcp",
    "--session",
    "s_1",
    "--db",
    p.db,
    "--state",
    p.state,
  ];

  it.each([
    ["yes", { action: "accept", content: { approve: true } }, 1],
    ["no", { action: "decline" }, 0],
  ] as Array<[string, Answer, number]>)("the v2 client (2026-07-28) answering %s", async (_n, answer, writes) => {
    const p = seededProject([{ session: "s_1", actor: "user_1" }]);
    const asked: string[] = [];
    const client = new Client(
      { name: "approval-test", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push((request.params as { message: string }).message);
      return answer;
    });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: args(p), stderr: "pipe" }));
    try {
      const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
      expect([asked.length, result.isError, logged(p.db)]).toEqual([1, writes === 0, writes]);
      expect(JSON.stringify(result)).not.toContain(TOKEN_PREFIX);
    } finally {
      await client.close();
    }
  });

  it("a 2025-11-25 client with elicitation is asked through the SDK's legacy shim; yes writes once", async () => {
    const p = seededProject([{ session: "s_1", actor: "user_1" }]);
    const client = new V1Client({ name: "v1", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push((request.params as { message: string }).message);
      return { action: "accept", content: { approve: true } };
    });
    await client.connect(new V1Stdio({ command: process.execPath, args: args(p), stderr: "pipe" }));
    try {
      const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
      expect([asked.length, result.isError, (result.structuredContent as any).ok, logged(p.db)]).toEqual([
        1,
        false,
        true,
        1,
      ]);
      expect(asked[0]).toContain("替换「项目计划」的全部内容"); // the person's preview, in the session's locale
    } finally {
      await client.close();
    }
  });

  it("a 2025-11-25 client without elicitation: a clear error result, nothing written", async () => {
    const p = seededProject([{ session: "s_1", actor: "user_1" }]);
    const client = new V1Client({ name: "v1", version: "1" });
    await client.connect(new V1Stdio({ command: process.execPath, args: args(p), stderr: "pipe" }));
    try {
      const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).toMatch(/elicitation/i);
      expect(JSON.stringify(result)).not.toContain(TOKEN_PREFIX);
      expect(logged(p.db)).toBe(0);
    } finally {
      await client.close();
    }
  });
});
