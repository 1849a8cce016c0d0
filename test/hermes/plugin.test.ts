/**
 * The generated Hermes plugin, loaded and called from python3 the way Hermes loads and calls
 * plugins (scripts/hermes/hermes_loader.py), against a live `mnote-tools serve` on loopback and
 * through the CLI adapter. Every answer must be a string holding a valid response envelope.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliPath, generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";
import {
  contract,
  errorCatalog,
  tools as registry,
  toolByProviderName,
  validateModelResponse,
} from "../../generated/registry";
import { providerTools } from "../../generated/providers";
import { withNullOptionals } from "../support/model-calls";
import { toolCallKey } from "../../runtime/transports/host-ids";
import { allowAllPolicyFile } from "../support/approval";

const pluginDir = join(generatedDir, "hermes-plugin", "mnote");
const harness = join(repoRoot, "test", "hermes", "harness.py");

interface Step {
  name: string;
  tool: string;
  args?: Record<string, unknown>;
  session_id?: string;
  task_id?: string;
  tool_call_id?: string;
  fire_hook?: boolean;
  env?: Record<string, string | null>;
}

function runHarness(steps: Step[], env: NodeJS.ProcessEnv) {
  const file = join(tempDir("mnote-hermes-"), "steps.json");
  writeFileSync(file, JSON.stringify(steps));
  const run = spawnSync("python3", [harness, pluginDir, file], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env },
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`harness failed: ${run.stderr}`);
  const report = JSON.parse(run.stdout);
  for (const r of report.results) {
    expect([r.name, r.is_string, r.raised]).toEqual([r.name, true, null]);
    // what the model reads: the envelope's model view (toolName is the provider name)
    const tool = toolByProviderName(steps.find((s) => s.name === r.name)!.tool)!;
    expect([r.name, validateModelResponse(tool, r.response)]).toEqual([r.name, true]);
  }
  return report as {
    manifest: any;
    tools: any[];
    hooks: string[];
    skills: Record<string, string>;
    check_fn: Record<string, boolean>;
    problems: string[];
    results: Array<{ name: string; response: any; request: any }>;
  };
}

const byName = (report: ReturnType<typeof runHarness>, name: string) => report.results.find((r) => r.name === name)!;

/** The agent's session, as Hermes numbers things. */
const S = { session_id: "s_owner", task_id: "task_42" };

function agentSteps(): Step[] {
  return [
    { name: "get", tool: "mnote_page_get", args: { includeBlocks: true }, ...S, tool_call_id: "call_get" },
    {
      name: "save-dry",
      tool: "mnote_page_save",
      args: { content: [{ type: "paragraph", text: "Draft" }], baseRevision: 0, dryRun: true },
      ...S,
      tool_call_id: "call_save_dry",
    },
    {
      name: "save",
      tool: "mnote_page_save",
      args: { content: [{ type: "paragraph", text: "Draft" }], baseRevision: 0 },
      ...S,
      tool_call_id: "call_save",
    },
    {
      name: "save-retry",
      tool: "mnote_page_save",
      args: { content: [{ type: "paragraph", text: "Draft" }], baseRevision: 0 },
      ...S,
      tool_call_id: "call_save",
    },
    {
      name: "save-stale",
      tool: "mnote_page_save",
      args: { content: [{ type: "paragraph", text: "Late" }], baseRevision: 0 },
      ...S,
      tool_call_id: "call_save_2",
    },
    {
      name: "title",
      tool: "mnote_page_update_title",
      args: { title: "项目计划 v2" },
      ...S,
      tool_call_id: "call_title",
    },
    {
      name: "options-unwired",
      tool: "mnote_page_update_options",
      args: { options: { showToc: true } },
      ...S,
      tool_call_id: "call_opts",
    },
    {
      name: "summary-1",
      tool: "mnote_artifact_create_summary",
      args: { summary: "A plan." },
      ...S,
      tool_call_id: "call_sum_1",
    },
    {
      name: "summary-2",
      tool: "mnote_artifact_create_summary",
      args: { summary: "A plan, updated." },
      ...S,
      tool_call_id: "call_sum_2",
    },
    {
      name: "note-1",
      tool: "mnote_artifact_create_ai_note",
      args: { content: "Finding one." },
      ...S,
      tool_call_id: "call_note_1",
    },
    {
      name: "note-2",
      tool: "mnote_artifact_create_ai_note",
      args: { content: "Finding two." },
      ...S,
      tool_call_id: "call_note_2",
    },
    {
      name: "reader-save",
      tool: "mnote_page_save",
      args: { content: [{ type: "paragraph", text: "x" }] },
      session_id: "s_reader",
      task_id: "task_7",
      tool_call_id: "call_r",
    },
    {
      name: "outsider-get",
      tool: "mnote_page_get",
      args: {},
      session_id: "s_outsider",
      task_id: "task_8",
      tool_call_id: "call_o",
    },
    {
      name: "model-claims-identity",
      tool: "mnote_page_get",
      args: { actorId: "user_3", workspaceId: "ws_2" },
      ...S,
      tool_call_id: "call_claim",
    },
    { name: "no-hook", tool: "mnote_page_get", args: {}, ...S, fire_hook: false },
    {
      name: "unknown-session",
      tool: "mnote_page_get",
      args: {},
      session_id: "s_nobody",
      task_id: "t",
      tool_call_id: "call_u",
    },
  ];
}

function checkAgentRun(report: ReturnType<typeof runHarness>) {
  const get = byName(report, "get");
  expect(get.response).toMatchObject({
    ok: true,
    toolName: "mnote_page_get",
    toolCallId: "call_get",
    result: { title: "项目计划", revision: 0 },
  });
  expect(get.request).toMatchObject({
    toolName: "mnote.page.get",
    sessionId: "s_owner",
    runId: "task_42",
    toolCallId: "call_get",
    actorId: "user_1",
    workspaceId: "ws_1",
    documentId: "doc_1",
    traceId: "trace_panel_1",
  });
  expect(get.request.idempotencyKey).toBeUndefined();
  expect(byName(report, "save-dry").response).toMatchObject({
    ok: true,
    result: { dryRun: true },
    audit: { effect: "dry_run" },
  });
  expect(byName(report, "save-dry").request).toMatchObject({
    dryRun: true,
    args: { content: [{ type: "paragraph", text: "Draft" }], baseRevision: 0 },
  });
  expect(byName(report, "save-dry").request.args.dryRun).toBeUndefined();
  const save = byName(report, "save");
  const retry = byName(report, "save-retry");
  expect(save.response).toMatchObject({
    ok: true,
    result: { revision: 1 },
    audit: { effect: "write", replayed: false },
  });
  expect(retry.response).toMatchObject({
    ok: true,
    result: { revision: 1 },
    audit: { effect: "write", replayed: true, commandId: save.response.audit.commandId },
  });
  expect(retry.request.idempotencyKey).toBe(save.request.idempotencyKey);
  // from the exact session and call ids (runtime/transports/host-ids.ts), and said so
  expect(save.request).toMatchObject({ idempotencyKey: toolCallKey("s_owner", "call_save"), keyOrigin: "tool_call" });
  expect(byName(report, "save-stale").response.error).toMatchObject({ code: "mnote_tool_conflict" });
  expect(byName(report, "title").response).toMatchObject({ ok: true, result: { revision: 2 } });
  expect(byName(report, "options-unwired").response.error).toMatchObject({
    code: "mnote_tool_unsupported_option",
    field: "showToc",
  });
  const [s1, s2] = [byName(report, "summary-1").response, byName(report, "summary-2").response];
  expect(s1.result).toMatchObject({ created: true, edgeCreated: true });
  expect(s2.result).toMatchObject({ created: false, edgeCreated: false, artifactId: s1.result.artifactId });
  const [n1, n2] = [byName(report, "note-1").response, byName(report, "note-2").response];
  expect(n1.result.artifactId).not.toBe(n2.result.artifactId);
  expect(byName(report, "reader-save").response.error).toMatchObject({
    code: "mnote_tool_permission_denied",
    message: "无页面写权限",
  });
  const outsider = byName(report, "outsider-get").response;
  expect(outsider.error).toMatchObject({ code: "mnote_tool_permission_denied", reason: "page_read" });
  expect(JSON.stringify(outsider)).not.toContain("薪酬");
  const claim = byName(report, "model-claims-identity");
  expect(claim.request).toMatchObject({ actorId: "user_1", workspaceId: "ws_1" });
  expect(claim.response.error).toMatchObject({ code: "mnote_tool_invalid_input", pointer: "/args/actorId" });
  expect(byName(report, "no-hook").request.toolCallId).toMatch(/^gen_[0-9a-f]{32}$/);
  expect(byName(report, "unknown-session").response.error).toMatchObject({
    code: "mnote_tool_not_authenticated",
    reason: "session_unknown",
  });
}

const grants = [
  { session: "s_owner", actor: "user_1", trace: "trace_panel_1" },
  { session: "s_reader", actor: "user_2" },
  { session: "s_outsider", actor: "user_2", document: "doc_secret" },
];

describe("the generated Hermes plugin, as Hermes loads it", () => {
  it("registers every tool with a provider-safe name, a well-formed schema, the hook and the skill", () => {
    const report = runHarness([], { MNOTE_TOOLS_URL: "http://127.0.0.1:9", MNOTE_TOOLS_TOKEN: "t" });
    expect(report.problems).toEqual([]);
    expect(report.manifest).toMatchObject({ name: "mnote", version: contract.version });
    expect(report.manifest.provides_tools.sort()).toEqual(
      Object.values(registry)
        .map((t) => t.providerName)
        .sort(),
    );
    expect(report.manifest.requires_env.map((e: { name: string }) => e.name)).toEqual([
      "MNOTE_TOOLS_URL",
      "MNOTE_TOOLS_TOKEN",
    ]);
    for (const tool of report.tools) {
      const descriptor = toolByProviderName(tool.name)!;
      // Hermes registers the portable variant (it lowers further itself for its Gemini adapter)
      const portable = providerTools.portable.find((t) => t.name === tool.name)!;
      expect(tool.schema).toEqual({
        name: descriptor.providerName,
        description: descriptor.description,
        parameters: portable.parameters,
      });
      expect(tool.toolset).toBe("mnote");
    }
    expect(report.hooks).toEqual(["post_tool_call", "pre_tool_call"]);
    expect(report.skills.mnote).toMatch(/SKILL\.md$/);
    expect(Object.values(report.check_fn).every(Boolean)).toBe(true);
  });

  it("drives all six tools against a live serve over HTTP", async () => {
    const p = seededProject(grants);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "plugin-token"]);
    const report = runHarness(agentSteps(), { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "plugin-token" });
    checkAgentRun(report);
    await server.stop();
  });

  it("drives all six tools through the CLI adapter (MNOTE_TOOLS_CLI)", () => {
    const p = seededProject(grants);
    const report = runHarness(agentSteps(), {
      MNOTE_TOOLS_CLI: `${process.execPath} ${cliPath}`,
      // the adapter runs `mnote-tools call` in this environment only: the suites' allow-all policy, named
      MNOTE_APPROVAL_POLICY: allowAllPolicyFile(),
      MNOTE_TOOLS_DB: p.db,
      MNOTE_TOOLS_STATE: p.state,
    });
    checkAgentRun(report);
  });

  it("never raises: runtime down, wrong token, not configured", () => {
    const steps: Step[] = [
      { name: "down", tool: "mnote_page_save", args: { content: [] }, ...S, tool_call_id: "c1" },
      {
        name: "bad-cli",
        tool: "mnote_page_get",
        args: {},
        ...S,
        tool_call_id: "c2",
        env: {
          MNOTE_TOOLS_URL: null,
          MNOTE_TOOLS_CLI: "/nonexistent/mnote-cli",
          MNOTE_TOOLS_STATE: join(tempDir("mnote-x-"), "runtime.db"),
          MNOTE_TOOLS_DB: join(tempDir("mnote-x-"), "kernel.db"),
        },
      },
      {
        name: "unconfigured",
        tool: "mnote_page_get",
        args: {},
        ...S,
        tool_call_id: "c3",
        env: { MNOTE_TOOLS_CLI: null },
      },
      {
        name: "not-a-dict",
        tool: "mnote_page_get",
        args: "oops" as never,
        ...S,
        env: { MNOTE_TOOLS_URL: "http://127.0.0.1:9", MNOTE_TOOLS_TOKEN: "t" },
      },
      { name: "no-session", tool: "mnote_page_get", args: {}, task_id: "t" },
    ];
    const report = runHarness(steps, {
      MNOTE_TOOLS_URL: "http://127.0.0.1:9",
      MNOTE_TOOLS_TOKEN: "t",
      MNOTE_TOOLS_TIMEOUT: "3",
      MNOTE_TOOLS_RETRY_SECONDS: "2",
    });
    expect(byName(report, "down").response.error).toMatchObject({ code: "mnote_tool_unavailable", retryable: true });
    expect(byName(report, "bad-cli").response.error).toMatchObject({ code: "mnote_tool_unavailable", retryable: true });
    const unconfigured = byName(report, "unconfigured").response.error;
    expect(unconfigured).toMatchObject({ code: "mnote_tool_not_configured", retryable: false });
    expect(unconfigured.message).toContain("MNOTE_TOOLS_URL");
    // arguments that are not an object are refused before anything else (never read as {})
    expect(byName(report, "not-a-dict").response.error).toMatchObject({
      code: "mnote_tool_invalid_input",
      pointer: "/args",
      rule: { keyword: "type", limit: "object" },
    });
    const noSession = byName(report, "no-session").response.error;
    expect(noSession).toMatchObject({ code: "mnote_tool_not_authenticated", reason: "no_session" });
    // the plugin's own reasons are the catalog's: their message, not the code's generic one
    expect(Object.values(errorCatalog.mnote_tool_not_authenticated.reasons.no_session)).toContain(noSession.message);
  });

  it("regression: loading the plugin left __pycache__ in generated/ (the drift check then failed); it no longer does", () => {
    runHarness([], {});
    expect(existsSync(join(pluginDir, "__pycache__"))).toBe(false);
  });

  it("check_fn hides the tools when nothing is configured", () => {
    const report = runHarness([], {});
    expect(Object.values(report.check_fn).some(Boolean)).toBe(false);
  });

  it("accepts what models send: null for every optional field, and every page option filled", async () => {
    const p = seededProject(grants);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "plugin-token"]);
    const steps: Step[] = Object.values(registry).map((t) => ({
      name: t.name,
      tool: t.providerName,
      args: withNullOptionals(t.name),
      ...S,
      tool_call_id: `call_null_${t.providerName}`,
    }));
    // a model that read pageOptions and sends all four back, changing one: the unwired ones at what page.get reported
    steps.push({
      name: "all-options",
      tool: "mnote_page_update_options",
      args: {
        options: { wideLayout: false, smallText: true, showToc: false, protectEditing: false },
        baseRevision: null,
        dryRun: null,
      },
      ...S,
      tool_call_id: "call_all_options",
    });
    steps.push({
      name: "read-back",
      tool: "mnote_page_get",
      args: { includeBody: null, includeOptions: null, includeBlocks: null },
      ...S,
      tool_call_id: "call_read_back",
    });
    steps.push({
      name: "really-unwired",
      tool: "mnote_page_update_options",
      args: { options: { showToc: true, wideLayout: null } },
      ...S,
      tool_call_id: "call_toc",
    });
    const report = runHarness(steps, { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "plugin-token" });
    for (const t of Object.values(registry)) {
      const r = byName(report, t.name);
      expect([t.name, r.response.ok, r.response.error]).toEqual([t.name, true, null]);
      expect(JSON.stringify(r.request.args)).not.toContain("null");
    }
    const all = byName(report, "all-options");
    expect(all.response).toMatchObject({ ok: true, audit: { effect: "write" } });
    expect(all.request.args).toEqual({ options: { wideLayout: false, smallText: true } });
    expect(all.request.dryRun).toBe(false);
    const readBack = byName(report, "read-back").response.result;
    expect(readBack.pageOptions).toMatchObject({ smallText: true, wideLayout: false });
    expect(readBack.blocks.map((b: { text: string }) => b.text)).toContain("a paragraph as models send it");
    // a value that is a real change of an unwired option is still refused, and nothing is written
    expect(byName(report, "really-unwired").response.error).toMatchObject({
      code: "mnote_tool_unsupported_option",
      field: "showToc",
    });
    expect(byName(report, "really-unwired").request.args).toEqual({ options: { showToc: true } });
    await server.stop();
  });

  it("a wrong token is answered with a failure envelope, not an exception", async () => {
    const p = seededProject(grants);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "right"]);
    const report = runHarness([{ name: "wrong-token", tool: "mnote_page_get", args: {}, ...S, tool_call_id: "c" }], {
      MNOTE_TOOLS_URL: server.url,
      MNOTE_TOOLS_TOKEN: "wrong",
    });
    const rejected = byName(report, "wrong-token").response.error;
    expect(rejected).toMatchObject({ code: "mnote_tool_not_authenticated", reason: "token_rejected" });
    expect(Object.values(errorCatalog.mnote_tool_not_authenticated.reasons.token_rejected)).toContain(rejected.message);
    await server.stop();
  });
});
