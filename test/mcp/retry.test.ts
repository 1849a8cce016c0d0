/**
 * A model's retry over MCP after a write whose outcome is uncertain (the kernel committed it, its
 * answer was lost, and the kernel could not tell: outcome_unknown). The retry is a new call with a
 * new key (keyOrigin tool_call); the runtime remembered the first key for that slot in its state
 * store, so the retry replays, even through a new MCP server (nothing is remembered in the server).
 * After a success the same call is a new write.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "../../runtime/transports/mcp-server";
import type { ToolResponse } from "../../generated/types";
import type { GrantStore } from "../../runtime/state/grant-store";
import { isRealWrite, lossyRuntime, LOSSY_SESSION } from "../support/lossy-kernel";

async function connected(dispatch: (r: unknown) => Promise<ToolResponse>, grants: GrantStore) {
  const server = createMcpServer({ dispatch, grants, sessionId: LOSSY_SESSION.sessionId });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "mnote-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

describe("MCP: a model's retry after an uncertain write", () => {
  it("the retry (a new server, a new key) replays: one note; a call made on purpose after the success is a new note", async () => {
    let writes = 0;
    const t = await lossyRuntime((command, payload) => {
      if (command === "command.status") return "fail"; // the kernel cannot tell
      return isRealWrite(payload) && writes++ === 0 ? "lose" : "pass";
    });
    const keys: Array<{ key: string; origin: string }> = [];
    const dispatch = (request: unknown) => {
      const r = request as { idempotencyKey: string; keyOrigin: string };
      keys.push({ key: r.idempotencyKey, origin: r.keyOrigin });
      return t.dispatcher.dispatch(request);
    };
    const args = { content: "Finding one." };
    const call = async (client: Client, a: Record<string, unknown> = args) =>
      (await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: a })).structuredContent as any;

    const first = await connected(dispatch, t.grants);
    expect(await call(first)).toMatchObject({
      ok: false,
      toolName: "mnote_artifact_create_ai_note",
      error: { code: "mnote_tool_outcome_unknown", retryable: true },
    });
    await first.close();
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1); // committed; the answer was lost

    const second = await connected(dispatch, t.grants); // a restarted server remembers nothing itself
    try {
      const retry = await call(second);
      expect(retry).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
      expect(keys[1]!.key).not.toBe(keys[0]!.key); // a new call, a new key ...
      expect(keys.map((k) => k.origin)).toEqual(["tool_call", "tool_call"]); // ... that the runtime reconciled
      expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);

      const onPurpose = await call(second);
      expect(onPurpose).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(onPurpose.result.artifactId).not.toBe(retry.result.artifactId);
      expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);

      // other arguments never borrow a remembered key
      writes = 0;
      expect((await call(second, { content: "Finding two." })).error.code).toBe("mnote_tool_outcome_unknown");
      expect(await call(second, { content: "Finding three." })).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(t.count("artifacts", "type = 'ai_note'")).toBe(4);
    } finally {
      await second.close();
    }
  });
});
