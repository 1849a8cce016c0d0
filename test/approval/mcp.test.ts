/**
 * Approval over MCP, in process with the SDK's Client on an in-memory transport and the contract's
 * levels: a client with elicitation is asked (one screen: what would change) and the write happens
 * only on an explicit yes, exactly once; no, cancel and a failing client write nothing; a client
 * without elicitation gets the preview and token as the tool result and approves with
 * _meta["mnote/approval"]; deny holds; the tools' annotations stay derived from the contract.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import { approvalPolicyFrom, EMPTY_POLICY } from "../../runtime/approval/policy";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { tools } from "../../generated/registry";

const REPLACE = { content: [{ type: "paragraph", text: "Rewritten." }], mode: "replace" };

async function connected(options: {
  elicit?: (message: string) => ElicitResult | Promise<ElicitResult>;
  policy?: unknown;
}): Promise<{ t: TestRuntime; client: Client; asked: string[] }> {
  const t = await testRuntime({
    approval: { policy: options.policy === undefined ? EMPTY_POLICY : approvalPolicyFrom(options.policy) },
  });
  const as = await t.session({ actorId: "user_1" });
  const server = createMcpServer({
    dispatch: (r) => t.runtime.dispatcher.dispatch(r),
    grants: t.runtime.grants,
    sessionId: as.sessionId,
  });
  const client = new Client(
    { name: "approval-test", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const asked: string[] = [];
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      return elicit(message);
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { t, client, asked };
}

function body(t: TestRuntime): string[] {
  return (
    t.kernel.db.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1' ORDER BY position").all() as Array<{
      text: string;
    }>
  ).map((r) => r.text);
}

describe("approval over MCP", () => {
  it("with elicitation: the person sees what would change; yes writes exactly once", async () => {
    const { t, client, asked } = await connected({ elicit: () => ({ action: "accept", content: { approve: true } }) });
    const before = body(t).length;
    const r = (await client.callTool({ name: "mnote_page_save", arguments: REPLACE })).structuredContent as any;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`删除 ${before} 段，写入 1 段`); // the challenge's summary, in the session's locale
    expect(asked[0]).toContain("「项目计划」"); // the page by its title, not its revision
    expect([r.ok, r.toolName, r.audit.approval]).toEqual([
      true,
      "mnote_page_save",
      { decision: "approved", level: "ask", approvedBy: "user_1" },
    ]);
    expect(body(t)).toEqual(["Rewritten."]);
    expect(t.count("command_log")).toBe(1);
    await client.close();
    await t.close();
  });

  it.each([
    ["declines", () => ({ action: "decline" }) as ElicitResult],
    ["cancels", () => ({ action: "cancel" }) as ElicitResult],
    ["accepts with no", () => ({ action: "accept", content: { approve: false } }) as ElicitResult],
    [
      "fails",
      () => {
        throw new Error("the client's window closed");
      },
    ],
  ])("with elicitation: a person who %s gets approval_denied (declined), nothing written", async (_name, elicit) => {
    const { t, client, asked } = await connected({ elicit });
    const before = t.kernelStateHash();
    const result = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
    const r = result.structuredContent as any;
    expect(asked).toHaveLength(1);
    expect([result.isError, r.error.code, r.error.reason, r.audit.approval]).toEqual([
      true,
      "mnote_tool_approval_denied",
      "declined",
      { decision: "denied", level: "ask" },
    ]);
    expect(t.kernelStateHash()).toBe(before);
    await client.close();
    await t.close();
  });

  it("without elicitation: the preview and token are the result; the client approves with _meta", async () => {
    const { t, client } = await connected({});
    const before = t.kernelStateHash();
    const first = await client.callTool({ name: "mnote_page_save", arguments: REPLACE });
    const r = first.structuredContent as any;
    expect([first.isError, r.error.code]).toEqual([true, "mnote_tool_approval_required"]);
    expect(r.error.approval.preview.ops[0].op).toBe("replace");
    expect(t.kernelStateHash()).toBe(before);
    // the model cannot carry the token: it is not one of the tool's arguments
    const smuggled = (
      await client.callTool({
        name: "mnote_page_save",
        arguments: { ...REPLACE, approval: { token: r.error.approval.token } },
      })
    ).structuredContent as any;
    expect(smuggled.error.code).toBe("mnote_tool_invalid_input");
    expect(t.kernelStateHash()).toBe(before);
    // the client can
    const token = r.error.approval.token;
    const done = (
      await client.callTool({
        name: "mnote_page_save",
        arguments: REPLACE,
        _meta: { "mnote/approval": { token, approvedBy: "lin" } },
      })
    ).structuredContent as any;
    expect([done.ok, done.audit.approval.approvedBy]).toEqual([true, "lin"]);
    expect(t.count("command_log")).toBe(1);
    const bad = (
      await client.callTool({ name: "mnote_page_save", arguments: REPLACE, _meta: { "mnote/approval": { token: 42 } } })
    ).structuredContent as any;
    expect([bad.error.code, bad.error.pointer]).toEqual(["mnote_tool_invalid_input", "/_meta/mnote~1approval"]);
    await client.close();
    await t.close();
  });

  it("deny holds over MCP: nobody is asked, nothing written; annotations stay the contract's", async () => {
    const { t, client, asked } = await connected({
      elicit: () => ({ action: "accept", content: { approve: true } }),
      policy: { tools: { "mnote.page.save": "deny" } },
    });
    const before = t.kernelStateHash();
    const r = (await client.callTool({ name: "mnote_page_save", arguments: { ...REPLACE, mode: "append" } }))
      .structuredContent as any;
    expect([r.error.code, r.error.reason, asked]).toEqual(["mnote_tool_approval_denied", "policy", []]);
    expect(t.kernelStateHash()).toBe(before);
    const listed = (await client.listTools()).tools.find((x) => x.name === "mnote_page_save")!;
    expect(listed.annotations).toMatchObject({
      destructiveHint: tools["mnote.page.save"].semantics.destructive,
      idempotentHint: tools["mnote.page.save"].semantics.idempotent,
      readOnlyHint: false,
    });
    await client.close();
    await t.close();
  });
});
