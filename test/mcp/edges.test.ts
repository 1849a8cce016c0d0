/**
 * Issue 18 through MCP, where items 1, 2 and 12 were found, in process (the server on an in-memory
 * transport, fed raw JSON-RPC messages parsed from text, so a "__proto__" member is a member):
 *   1. a "__proto__" member smuggled fields past validation (level 99 on a paragraph; after that
 *      every page.get answered internal), and a top-level one ({"dryRun": true}) was dropped by the
 *      SDK's parse, so the "dry run" wrote;
 *   2. a non-boolean dryRun was a write ("true" read as false);
 *  12. results named tools by their dotted canonical names.
 */
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/server";
import { createMcpServer, mcpToolOf, type McpCaller } from "../../runtime/transports/mcp-server";
import { guardRawToolCalls } from "../../runtime/transports/mcp-guard";
import { testRuntime } from "../support/runtime";

async function rawServer() {
  const t = await testRuntime();
  const as = await t.session({ actorId: "user_1" });
  const caller: McpCaller = { sessionId: as.sessionId, refusals: new Map() };
  const server = createMcpServer(
    { dispatch: (r) => t.runtime.dispatcher.dispatch(r), grants: t.runtime.grants, sessionId: as.sessionId },
    caller,
  );
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  // guarded as serveStdio's transport is (mcp-server.ts)
  await server.connect(guardRawToolCalls(serverSide, mcpToolOf, caller.refusals));
  const answers = new Map<number, (m: any) => void>();
  client.onmessage = (m: any) => answers.get(m.id)?.(m);
  await client.start();
  let id = 0;
  /** One tools/call from JSON text (what a transport hands on after JSON.parse). */
  const call = (name: string, argumentsJson: string): Promise<any> => {
    const n = ++id;
    const answer = new Promise<any>((r) => answers.set(n, r));
    void client.send(
      JSON.parse(
        `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`,
      ) as JSONRPCMessage,
    );
    return answer.then((m) => m.result);
  };
  return { t, call };
}

describe("MCP: hostile arguments are refused before they are acted on", () => {
  it("a top-level __proto__ (which the SDK's parse would drop) and a nested one: invalid_input, nothing written, page.get still works", async () => {
    const { t, call } = await rawServer();
    const before = t.kernelStateHash();
    const dropped = await call("mnote_page_save", '{"__proto__": {"dryRun": true}, "content": [], "mode": "replace"}');
    expect(dropped.structuredContent).toMatchObject({
      ok: false,
      toolName: "mnote_page_save",
      error: {
        code: "mnote_tool_invalid_input",
        pointer: "/args/__proto__",
        rule: { keyword: "additionalProperties" },
      },
    });
    const nested = await call(
      "mnote_page_save",
      '{"content": [{"type": "paragraph", "text": "x", "__proto__": {"level": 99, "id": "bad id!"}}], "mode": "replace"}',
    );
    expect(nested.structuredContent.error).toMatchObject({
      code: "mnote_tool_invalid_input",
      pointer: "/args/content/0/__proto__",
    });
    const constructor = await call(
      "mnote_page_update_options",
      '{"options": {"smallText": true, "constructor": {"x": 1}}}',
    );
    expect(constructor.structuredContent.error).toMatchObject({ pointer: "/args/options/constructor" });
    expect(t.kernelStateHash()).toBe(before);
    const page = await call("mnote_page_get", "{}");
    expect(page.structuredContent).toMatchObject({ ok: true, toolName: "mnote_page_get" });
    await t.close();
  });

  it('a "dry run" with a dryRun that is not a boolean never writes: "true", 1, "yes", {}, [] are invalid_input at /dryRun', async () => {
    const { t, call } = await rawServer();
    const before = t.kernelStateHash();
    for (const dryRun of ['"true"', "1", '"yes"', "{}", "[]"]) {
      const r = await call("mnote_page_save", `{"content": [], "mode": "replace", "dryRun": ${dryRun}}`);
      expect([dryRun, r.isError, r.structuredContent.error]).toMatchObject([
        dryRun,
        true,
        { code: "mnote_tool_invalid_input", pointer: "/dryRun", rule: { keyword: "type", limit: "boolean" } },
      ]);
    }
    expect(t.kernelStateHash()).toBe(before);
    // true and null are what they say: a dry run, and the default (a write)
    expect(
      (await call("mnote_page_save", '{"content": [], "mode": "replace", "dryRun": true}')).structuredContent,
    ).toMatchObject({ ok: true, audit: { effect: "dry_run" } });
    expect(t.kernelStateHash()).toBe(before);
    await t.close();
  });
});
