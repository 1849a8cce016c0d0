/**
 * Issue 28 item 6: an MCP client that declared only URL-mode elicitation cannot show the yes/no
 * form, so nobody can be asked there. Before, the server answered "declined" as if a person had
 * said no; now the client gets the approval_required result (preview, summary, token) like a
 * client without elicitation, is never sent a form, and the kernel is untouched.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { testRuntime } from "../support/runtime";

const REPLACE = { content: [{ type: "paragraph", text: "Rewritten." }], mode: "replace" };

it.each([
  ["only URL mode", { url: {} }, "mnote_tool_approval_required", 0],
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
    const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
    expect([r.error.code, asked]).toEqual([code, forms]);
    if (forms === 0) expect(r.error.approval.summary).toContain("「项目计划」");
    expect(t.kernelStateHash()).toBe(before);
  } finally {
    await client.close();
    await t.close();
  }
});
