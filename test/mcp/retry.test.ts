/**
 * A model's retry over MCP reuses the key: after a write whose outcome is uncertain (here the
 * runtime commits it and the answer is replaced by outcome_unknown, as when the kernel's answer is
 * lost and it cannot tell), the same tool with the same arguments in the same session carries the
 * first key and replays. After a success the same call is a new write.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import { refusalResponse } from "../../runtime/dispatch/dispatcher";
import { ERR } from "../../generated/registry";
import type { ToolResponse } from "../../generated/types";
import { testRuntime } from "../support/runtime";

async function connected(
  dispatch: (r: unknown) => Promise<ToolResponse>,
  grants: Parameters<typeof createMcpServer>[0]["grants"],
  sessionId: string,
) {
  const server = createMcpServer({ dispatch, grants, sessionId });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "mnote-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

describe("MCP: a model's retry after an uncertain write", () => {
  it("reuses the first key and replays: one note; a call made on purpose after the success is a new note", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const keys: string[] = [];
    let lose = 1;
    const dispatch = async (request: unknown) => {
      keys.push((request as { idempotencyKey: string }).idempotencyKey);
      const response = await t.runtime.dispatcher.dispatch(request);
      if (lose-- > 0)
        return { ...refusalResponse(ERR.outcomeUnknown), toolName: "mnote.artifact.create_ai_note" } as ToolResponse; // committed, answer lost
      return response;
    };
    const client = await connected(dispatch, t.runtime.grants, as.sessionId);
    try {
      const args = { content: "Finding one." };
      const first = (await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: args }))
        .structuredContent as any;
      expect(first.error).toMatchObject({ code: "mnote_tool_outcome_unknown", retryable: true });
      expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
      const retry = (await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: args }))
        .structuredContent as any;
      expect(retry).toMatchObject({ ok: true, audit: { replayed: true } });
      expect(keys[1]).toBe(keys[0]);
      expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
      const onPurpose = (await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: args }))
        .structuredContent as any;
      expect(onPurpose).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(keys[2]).not.toBe(keys[0]);
      expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);
      // other arguments never borrow a remembered key
      lose = 1;
      await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "Finding two." } });
      await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "Finding three." } });
      expect(keys[4]).not.toBe(keys[3]);
    } finally {
      await client.close();
      await t.close();
    }
  });
});
