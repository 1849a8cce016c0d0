/**
 * Issue 28 item 6: an MCP client that declared only URL-mode elicitation cannot show the yes/no
 * form. Where the server serves no approval page (here: no page configured, as stdio without
 * --approval-page-url), nobody can be asked there: it is told that the form capability is missing
 * (the SDK's capability gate, as for a client without elicitation: docs/MCP.md), is never sent a
 * form, never sees the token, and the kernel is untouched. A client that can show the form and
 * declines gets approval_denied. Where a page is served, the URL-only client is sent to it
 * instead (issue 41: test/approval/mcp-page.test.ts).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { testRuntime } from "../support/runtime";

const REPLACE = { content: [{ type: "paragraph", text: "Rewritten." }], mode: "replace" };

it.each([
  ["only URL mode", { url: {} }, undefined, 0],
  ["form mode", { form: {} }, "mnote_tool_approval_denied", 1],
  ["no mode named (form, as before URL mode existed)", {}, "mnote_tool_approval_denied", 1],
])("a client whose elicitation declares %s", async (_what, elicitation, code, forms) => {
  const t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
  const as = await t.session({ actorId: "user_1" });
  const server = createMcpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: as.sessionId,
  });
  const client = new Client({ name: "url-only", version: "1.0.0" }, { capabilities: { elicitation } });
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: "decline" };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const before = t.kernelStateHash();
    const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
    expect(asked).toBe(forms);
    expect(result.isError).toBe(true);
    if (code === undefined) {
      // nobody could be asked: a clear error about the capability, never "declined", never the token
      const text = JSON.stringify(result);
      expect(text).toMatch(/elicitation/i);
      expect(text).not.toContain("declined");
      expect(text).not.toContain("token");
    } else expect((result.structuredContent as any).error.code).toBe(code);
    expect(t.kernelStateHash()).toBe(before);
  } finally {
    await client.close();
    await t.close();
  }
});
