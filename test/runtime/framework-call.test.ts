/**
 * The framework call (POST /v1/tools/model-call, and the targets' in-process connection) is checked
 * by the contract's envelope (contract/envelope/framework-call.schema.json, validateFrameworkToolCall)
 * before anything reads it: a call that does not match is invalid_input naming the member, nothing
 * is dispatched and the kernel's tables stay as they were. Own members only: a member inherited from
 * a prototype is not a field, and a member named __proto__ is an unknown member.
 */
import { once } from "node:events";
import { createToolServer } from "../../runtime/transports/tool-server";
import { frameworkCaller } from "../../runtime/transports/framework-call";
import { createLogger } from "../../common/http/logger";
import { MODEL_CALL_PATH } from "../../generated/frameworks/connection";
import { validateFrameworkToolCall } from "../../generated/validators";
import type { ToolResponse } from "../../generated/types";
import { testRuntime, type TestRuntime } from "../support/runtime";

const TOKEN = "tool-token-for-tests";

async function serve(t: TestRuntime): Promise<{ post(body: string): Promise<ToolResponse>; close(): Promise<void> }> {
  const server = createToolServer({
    runtime: t.runtime,
    token: TOKEN,
    maxBytes: 1 << 20,
    log: createLogger({ service: "test", level: "silent" }),
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const url = `http://127.0.0.1:${address.port}${MODEL_CALL_PATH}`;
  return {
    post: async (body) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
      return (await res.json()) as ToolResponse;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function refusal(response: ToolResponse): { code: string; pointer: string | undefined } {
  if (response.ok) throw new Error(`expected a refusal, got ${JSON.stringify(response)}`);
  return { code: response.error.code, pointer: response.error.pointer };
}

describe("the framework call's envelope", () => {
  let t: TestRuntime;
  let sessionId: string;
  const good = () => ({
    sessionId,
    toolName: "mnote_artifact_create_ai_note",
    toolCallId: "c1",
    arguments: { content: "x" },
  });
  beforeEach(async () => {
    t = await testRuntime();
    sessionId = (await t.session({ actorId: "user_1" })).sessionId;
  });
  afterEach(() => t.close());

  it("is the contract's: the generated validator takes a well-formed call and names a wrong member", () => {
    expect(validateFrameworkToolCall(good())).toBe(true);
    expect(validateFrameworkToolCall({ ...good(), runId: "run_1", approval: { token: "0000000000000000.0" } })).toBe(
      true,
    );
    expect(validateFrameworkToolCall({ ...good(), toolCallId: "" })).toBe(false);
    expect(validateFrameworkToolCall.errors?.[0]?.instancePath).toBe("/toolCallId");
  });

  it("over HTTP: an unknown member, a __proto__ member and a bad approval are invalid_input naming the member; nothing written", async () => {
    const server = await serve(t);
    const before = t.kernelStateHash();
    expect(refusal(await server.post(JSON.stringify({ ...good(), extra: 1 })))).toEqual({
      code: "mnote_tool_invalid_input",
      pointer: "/extra",
    });
    // JSON.parse keeps "__proto__" as an own member: not a field of the call, and not a prototype
    const body = JSON.stringify(good()).replace(/^\{/, '{"__proto__":{"toolCallId":"c9"},');
    expect(refusal(await server.post(body))).toEqual({ code: "mnote_tool_invalid_input", pointer: "/__proto__" });
    expect(refusal(await server.post(JSON.stringify({ ...good(), approval: { token: "short" } })))).toEqual({
      code: "mnote_tool_invalid_input",
      pointer: "/approval/token",
    });
    expect(refusal(await server.post(JSON.stringify({ ...good(), sessionId: null })))).toEqual({
      code: "mnote_tool_invalid_input",
      pointer: "/sessionId",
    });
    expect(t.kernelStateHash()).toBe(before);
    await server.close();
  });

  it("in process: members inherited from a prototype are not the call's; absent arguments are none; undefined is absent", async () => {
    const caller = frameworkCaller(t.runtime);
    const before = t.kernelStateHash();
    const inherited = Object.create(good()) as object;
    expect(refusal(await caller.callModelTool(inherited))).toEqual({
      code: "mnote_tool_invalid_input",
      pointer: "/sessionId",
    });
    expect(refusal(await caller.callModelTool("a call"))).toEqual({ code: "mnote_tool_invalid_input", pointer: "" });
    expect(t.kernelStateHash()).toBe(before);
    const read = await caller.callModelTool({
      sessionId,
      toolName: "mnote_page_get",
      toolCallId: "c2",
      runId: undefined,
      approval: undefined,
    });
    expect(read).toMatchObject({ ok: true, toolName: "mnote.page.get" });
  });
});
