/**
 * `mnote-tools mcp` with the MCP SDK's own clients: the v2 client speaking 2026-07-28 (pinned: no
 * initialize, every request carries its version and capabilities) and the v1 client speaking
 * 2025-11-25 (the SDK's legacy path), over stdio (the client starts the server) and over
 * Streamable HTTP. List the tools, call each, check results and errors; the clients themselves
 * validate structuredContent against each tool's outputSchema.
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { cliPath } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { toolList, toolByName, toolByProviderName, validateModelResponse } from "../../generated/registry";
import { sampleArgs } from "../support/requests";
import Database from "better-sqlite3";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";

/** What a user can see of the kernel: pages, blocks, artifacts and edges (not the audit log). */
function visibleState(db: string): string {
  const d = new Database(db, { readonly: true });
  try {
    return JSON.stringify([
      d.prepare("SELECT id, title, revision, options_json FROM pages ORDER BY id").all(),
      d
        .prepare(
          "SELECT page_id, position, id, type, text, level, checked, language FROM blocks ORDER BY page_id, position",
        )
        .all(),
      d.prepare("SELECT id, type, title, content FROM artifacts ORDER BY id").all(),
      d.prepare("SELECT id, from_id, to_id FROM edges ORDER BY id").all(),
    ]);
  } finally {
    d.close();
  }
}
const logged = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n;
  } finally {
    d.close();
  }
};
import { providerTools } from "../../generated/providers";
import { withNullOptionals } from "../support/model-calls";
import { allowAllPolicyFile } from "../support/approval";

const grants = [
  { session: "s_owner", actor: "user_1", trace: "trace_mcp" },
  { session: "s_reader", actor: "user_2" },
];

const fresh = (name: string) => {
  const { baseRevision: _b, ...args } = sampleArgs[name]!;
  return args;
};

/** Dotted tool names in a text: none may reach anything the model reads. */
const dotted = (text: string) => toolList.filter((t) => text.includes(t.name)).map((t) => t.name);

/** Either SDK's client: the calls the tests make have the same shape in both. */
type AnyClient = Pick<Client, "listTools" | "callTool" | "close">;

const MODERN = "2026-07-28";
/** The v2 client pinned to 2026-07-28: connect() fails against a server that cannot speak it. */
const modernClient = () =>
  new Client({ name: "mnote-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
const legacyClient = () => new V1Client({ name: "mnote-test", version: "1.0.0" });

const ajv = () => addFormats(new Ajv2020({ strict: false }));

async function exercise(client: AnyClient) {
  const { tools } = await client.listTools();
  expect(dotted(JSON.stringify(tools))).toEqual([]);
  const outputValidators = new Map(tools.map((t) => [t.name, ajv().compile(t.outputSchema as object)]));
  // deterministic: sorted by name, every time
  expect(tools.map((t) => t.name)).toEqual(toolList.map((t) => t.providerName).sort());
  for (const t of tools) {
    const descriptor = toolByProviderName(t.name)!;
    // the portable variant by default (docs/PROVIDERS.md)
    expect(t.inputSchema).toEqual(providerTools.portable.find((p) => p.name === t.name)!.parameters);
    expect(t.outputSchema).toMatchObject({ type: "object" });
    expect(t.annotations).toMatchObject({
      readOnlyHint: descriptor.effect === "read",
      destructiveHint: descriptor.effect === "write" && descriptor.semantics.destructive,
      idempotentHint: descriptor.semantics.idempotent,
      openWorldHint: false,
    });
  }
  for (const tool of toolList) {
    const result = await client.callTool({ name: tool.providerName, arguments: fresh(tool.name) });
    const envelope = result.structuredContent as any;
    // what the model reads names the tool as the model calls it (the model view of the envelope)
    expect([tool.name, result.isError, envelope.ok, envelope.toolName, validateModelResponse(tool, envelope)]).toEqual([
      tool.name,
      false,
      true,
      tool.providerName,
      true,
    ]);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(envelope);
    expect([tool.name, outputValidators.get(tool.providerName)!(envelope), dotted(JSON.stringify(result))]).toEqual([
      tool.name,
      true,
      [],
    ]);
    expect(envelope.traceId).toBe("trace_mcp");
  }
  const dry = (
    await client.callTool({
      name: "mnote_page_save",
      arguments: { content: [{ type: "paragraph", text: "x" }], dryRun: true },
    })
  ).structuredContent as any;
  expect(dry).toMatchObject({ ok: true, audit: { effect: "dry_run" }, result: { dryRun: true } });
  const stale = await client.callTool({ name: "mnote_page_update_title", arguments: { title: "t", baseRevision: 0 } });
  expect(stale.isError).toBe(true);
  // failures too: the outputSchema holds them, and they name the tool as the model calls it
  expect([
    outputValidators.get("mnote_page_update_title")!(stale.structuredContent),
    dotted(JSON.stringify(stale)),
  ]).toEqual([true, []]);
  expect((stale.structuredContent as any).error.code).toBe("mnote_tool_conflict");
  const invalid = await client.callTool({ name: "mnote_page_update_title", arguments: { title: "" } });
  expect((invalid.structuredContent as any).error).toMatchObject({
    code: "mnote_tool_invalid_input",
    pointer: "/args/title",
  });
  const meta = { "mnote/idempotencyKey": "client-key-1" };
  const first = (
    await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "kept" }, _meta: meta })
  ).structuredContent as any;
  const again = (
    await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "kept" }, _meta: meta })
  ).structuredContent as any;
  expect(again.audit).toMatchObject({ commandId: first.audit.commandId, replayed: true });
}

describe("mnote-tools mcp", () => {
  const stdioArgs = (p: { db: string; state: string }, ...more: string[]) => [
    cliPath,
    "mcp",
    "--approval-policy",
    allowAllPolicyFile(),
    "--session",
    "s_owner",
    "--db",
    p.db,
    "--state",
    p.state,
    ...more,
  ];

  it("over stdio, with the v2 SDK's Client speaking 2026-07-28", async () => {
    const p = seededProject(grants);
    const client = modernClient();
    await client.connect(new StdioClientTransport({ command: process.execPath, args: stdioArgs(p), stderr: "pipe" }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it("over stdio, a 2025-11-25 client (the v1 SDK's Client) is still served", async () => {
    const p = seededProject(grants);
    const client = legacyClient();
    await client.connect(new V1Stdio({ command: process.execPath, args: stdioArgs(p), stderr: "pipe" }));
    try {
      expect(client.getServerVersion()?.name).toBe("mnote-page-ai-tools");
      await exercise(client as unknown as AnyClient);
    } finally {
      await client.close();
    }
  });

  it("accepts what models send (null for every optional field, every option filled), and lists the variant asked for", async () => {
    const p = seededProject(grants);
    const client = modernClient();
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: stdioArgs(p, "--provider", "openai-strict"),
        stderr: "pipe",
      }),
    );
    try {
      const { tools } = await client.listTools();
      for (const t of tools)
        expect(t.inputSchema).toEqual(providerTools["openai-strict"].find((d) => d.name === t.name)!.parameters);
      for (const tool of toolList) {
        const result = await client.callTool({ name: tool.providerName, arguments: withNullOptionals(tool.name) });
        expect([tool.name, (result.structuredContent as any).error, result.isError]).toEqual([tool.name, null, false]);
      }
      const all = await client.callTool({
        name: "mnote_page_update_options",
        arguments: {
          options: { wideLayout: false, smallText: true, showToc: false, protectEditing: false },
          baseRevision: null,
          dryRun: null,
        },
      });
      expect(all.structuredContent).toMatchObject({ ok: true, audit: { effect: "write" } });
      const page = (
        await client.callTool({
          name: "mnote_page_get",
          arguments: { includeBody: null, includeOptions: null, includeBlocks: null },
        })
      ).structuredContent as any;
      expect(page.result.pageOptions).toMatchObject({ wideLayout: false, smallText: true });
      const toc = await client.callTool({
        name: "mnote_page_update_options",
        arguments: { options: { showToc: true, wideLayout: null, smallText: null, protectEditing: null } },
      });
      expect((toc.structuredContent as any).error).toMatchObject({
        code: "mnote_tool_unsupported_option",
        field: "showToc",
      });
      const after = (await client.callTool({ name: "mnote_page_get", arguments: {} })).structuredContent as any;
      expect(after.result.revision).toBe(page.result.revision);
    } finally {
      await client.close();
    }
  });

  it("over stdio, a reader's session is refused writes with the note's message", async () => {
    const p = seededProject(grants);
    const client = modernClient();
    const args = stdioArgs(p);
    args[args.indexOf("s_owner")] = "s_reader";
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" }));
    try {
      await client.listTools();
      const r = await client.callTool({ name: "mnote_page_save", arguments: { content: [] } });
      expect(r.isError).toBe(true);
      expect((r.structuredContent as any).error).toMatchObject({
        code: "mnote_tool_permission_denied",
        message: "无页面写权限",
      });
      expect((await client.callTool({ name: "mnote_page_get", arguments: {} })).isError).toBe(false);
    } finally {
      await client.close();
    }
  });

  async function httpServer() {
    const p = seededProject(grants);
    return start([
      "mcp",
      "--http",
      "--port",
      "0",
      "--token",
      "mcp-token",
      "--approval-policy",
      allowAllPolicyFile(),
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
    ]);
  }
  const auth = (more: Record<string, string> = {}) => ({
    requestInit: { headers: { Authorization: "Bearer mcp-token", ...more } },
  });

  it("over Streamable HTTP (2026-07-28, stateless), with a token, and a session chosen per request", async () => {
    const server = await httpServer();
    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), auth()));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    await exercise(client);
    await client.close();

    const reader = modernClient();
    await reader.connect(
      new StreamableHTTPClientTransport(new URL(server.url), auth({ "X-Mnote-Session": "s_reader" })),
    );
    await reader.listTools();
    expect(
      ((await reader.callTool({ name: "mnote_page_update_title", arguments: { title: "x" } })).structuredContent as any)
        .error.reason,
    ).toBe("page_write");
    await reader.close();

    const noToken = modernClient();
    await expect(noToken.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow();
    expect(await server.stop()).toBe(0);
  });

  it("over Streamable HTTP, a 2025-11-25 client (the v1 SDK's Client) is still served, statelessly", async () => {
    const server = await httpServer();
    const client = legacyClient();
    const transport = new V1Http(new URL(server.url), auth());
    await client.connect(transport);
    // no session map: the server hands out no Mcp-Session-Id
    expect(transport.sessionId).toBeUndefined();
    await exercise(client as unknown as AnyClient);
    await client.close();
    const noToken = legacyClient();
    await expect(noToken.connect(new V1Http(new URL(server.url)))).rejects.toThrow();
    expect(await server.stop()).toBe(0);
  });

  describe("annotations, keys and unknown tools", () => {
    async function stdioClient(p: { db: string; state: string }) {
      const client = modernClient();
      await client.connect(new StdioClientTransport({ command: process.execPath, args: stdioArgs(p), stderr: "pipe" }));
      return client;
    }

    it("idempotentHint is true exactly for the tools whose identical repeated call changes nothing (checked per tool)", async () => {
      const p = seededProject(grants);
      const client = await stdioClient(p);
      try {
        const { tools } = await client.listTools();
        for (const tool of toolList) {
          const hint = tools.find((t) => t.name === tool.providerName)!.annotations!.idempotentHint;
          const call = async () => {
            const r = await client.callTool({ name: tool.providerName, arguments: fresh(tool.name) });
            expect([tool.name, r.isError]).toEqual([tool.name, false]);
          };
          await call();
          const once = visibleState(p.db);
          await call(); // the same arguments, a new call (a new idempotency key): applied again
          const twice = visibleState(p.db);
          expect([tool.name, hint]).toEqual([tool.name, once === twice]);
        }
      } finally {
        await client.close();
      }
    });

    it("an invalid _meta idempotency key is invalid_input (never replaced by a random key); nothing is written", async () => {
      const p = seededProject(grants);
      const client = await stdioClient(p);
      try {
        const before = [visibleState(p.db), logged(p.db)];
        for (const bad of ["has space", "", 42, { key: "k" }, "x".repeat(300)]) {
          const r = await client.callTool({
            name: "mnote_artifact_create_ai_note",
            arguments: { content: "kept?" },
            _meta: { "mnote/idempotencyKey": bad },
          });
          expect([bad, r.isError]).toEqual([bad, true]);
          const envelope = r.structuredContent as any;
          expect(validateModelResponse(toolByName("mnote.artifact.create_ai_note")!, envelope)).toBe(true);
          expect(envelope).toMatchObject({
            ok: false,
            toolName: "mnote_artifact_create_ai_note",
            error: { code: "mnote_tool_invalid_input", retryable: false, pointer: "/_meta/mnote~1idempotencyKey" },
          });
        }
        expect([visibleState(p.db), logged(p.db)]).toEqual(before);
        // a valid key still replays
        const meta = { "mnote/idempotencyKey": "client-key-2" };
        const first = (
          await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "once" }, _meta: meta })
        ).structuredContent as any;
        const again = (
          await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "once" }, _meta: meta })
        ).structuredContent as any;
        expect(again.audit).toMatchObject({ replayed: true, commandId: first.audit.commandId });
      } finally {
        await client.close();
      }
    });

    it("an unknown tool is a JSON-RPC error -32602, not a tool result", async () => {
      const p = seededProject(grants);
      const client = await stdioClient(p);
      try {
        const error = await client.callTool({ name: "mnote_page_delete", arguments: {} }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).code).toBe(-32602);
        expect((error as ProtocolError).message).toContain("mnote_page_delete");
        // the server keeps serving
        expect((await client.callTool({ name: "mnote_page_get", arguments: {} })).isError).toBe(false);
      } finally {
        await client.close();
      }
    });
  });
});
