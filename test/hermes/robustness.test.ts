/**
 * The Hermes plugin when things go wrong, loaded by the project's Hermes-like loader
 * (scripts/hermes/hermes_loader.py) against a live runtime: a kernel whose answer is lost, a call
 * Hermes blocks after pre_tool_call, a session re-bound while its grant is cached, a Hermes whose
 * register_skill raises, and a CLI transport without state paths.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { cliPath, generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";
import { faultyKernelProxy } from "../support/kernel-proxy";
import { toolByProviderName, toolList, validateModelResponse } from "../../generated/registry";

const pluginDir = join(generatedDir, "hermes-plugin", "mnote");
const harness = join(repoRoot, "test", "hermes", "harness.py");

interface Step {
  name: string;
  tool?: string;
  args?: Record<string, unknown>;
  session_id?: string;
  task_id?: string;
  tool_call_id?: string;
  blocked?: boolean | "no_post";
  run?: string[];
}

interface Report {
  tools: Array<{ name: string }>;
  hooks: string[];
  skills: Record<string, string>;
  problems: string[];
  results: Array<{ name: string; response: any; request: any; sent: number }>;
}

/** Runs the harness without blocking this process (a fault proxy here must keep answering). */
async function runHarness(steps: Step[], env: NodeJS.ProcessEnv): Promise<Report> {
  const file = join(tempDir("mnote-hermes-"), "steps.json");
  writeFileSync(file, JSON.stringify(steps));
  const child = spawn("python3", [harness, pluginDir, file], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => err.push(d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const status = await new Promise<number | null>((r) => child.on("close", r));
  clearTimeout(timer);
  if (status !== 0) throw new Error(`harness failed: ${Buffer.concat(err).toString("utf8")}`);
  const report = JSON.parse(Buffer.concat(out).toString("utf8")) as Report;
  for (const r of report.results) {
    const tool = toolByProviderName(steps.find((s) => s.name === r.name)!.tool!)!;
    expect([r.name, validateModelResponse(tool, r.response)]).toEqual([r.name, true]);
  }
  return report;
}

const byName = (report: Report, name: string) => report.results.find((r) => r.name === name)!;
const S = { session_id: "s_owner", task_id: "task_1" };
const grants = [{ session: "s_owner", actor: "user_1" }];

function rows(db: string, sql: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare(sql).get() as { n: number }).n;
  } finally {
    d.close();
  }
}
const aiNotes = (db: string) => rows(db, "SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'");

describe("retries that cannot write twice (through the plugin, a kernel whose answer is lost)", () => {
  /**
   * A kernel behind a proxy that holds back the answer to the first AI-note write (the kernel
   * commits it; the runtime gives up after 500 ms) and answers no command.status (so the runtime
   * cannot tell and says outcome_unknown).
   */
  async function lossyStack() {
    const p = seededProject(grants);
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
    let writes = 0;
    const proxy = await faultyKernelProxy(
      kernel.url,
      (command) => {
        if (command === "command.status") return "fail";
        if (command === "artifact.aiNote.create") return writes++ === 0 ? "delay" : "pass";
        return "pass";
      },
      15_000,
    );
    const server = await start([
      "serve",
      "--kernel-url",
      proxy.url,
      "--kernel-token",
      "ktok",
      "--kernel-timeout",
      "500",
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
    ]);
    return {
      p,
      seen: () => proxy.seen,
      env: { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" },
      async stop() {
        await server.stop();
        await proxy.close();
        await kernel.stop();
      },
    };
  }

  it("the model's retry (a new tool call id, the same args) is given the first key by the runtime and replays: exactly one note; a note made on purpose afterwards is a new one", async () => {
    const stack = await lossyStack();
    try {
      const note = { content: "Finding: step two depends on step one." };
      const report = await runHarness(
        [
          { name: "first", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_note_a" },
          { name: "model-retry", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_note_b" },
          { name: "on-purpose", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_note_c" },
        ],
        { ...stack.env, MNOTE_TOOLS_RETRIES: "0" },
      );
      const [first, retry, again] = ["first", "model-retry", "on-purpose"].map((n) => byName(report, n));
      expect(first!.response.error).toMatchObject({ code: "mnote_tool_outcome_unknown", retryable: true });
      expect(first!.response.error.message).toMatch(/相同参数重试同一调用.*不会重复写入/);
      expect(retry!.request.toolCallId).toBe("call_note_b");
      // a new call; the plugin kept the first key, its answer being retryable (outcome_unknown), and
      // the runtime remembers the uncertain write's key for this slot too (issue 27)
      expect(retry!.request).toMatchObject({ keyOrigin: "tool_call" });
      expect(retry!.request.idempotencyKey).toBe(first!.request.idempotencyKey);
      expect(retry!.response).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
      expect(again!.request.idempotencyKey).not.toBe(first!.request.idempotencyKey);
      expect(again!.response).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(again!.response.result.artifactId).not.toBe(retry!.response.result.artifactId);
      expect(aiNotes(stack.p.db)).toBe(2); // the lost one (replayed once) and the one made on purpose
    } finally {
      await stack.stop();
    }
  });

  it("the plugin retries by itself with the same key: the model sees the write once, and one note exists", async () => {
    const stack = await lossyStack();
    try {
      const report = await runHarness(
        [
          {
            name: "note",
            tool: "mnote_artifact_create_ai_note",
            args: { content: "Kept once." },
            ...S,
            tool_call_id: "call_once",
          },
        ],
        {
          ...stack.env,
          MNOTE_TOOLS_RETRIES: "3",
          MNOTE_TOOLS_RETRY_SECONDS: "60",
        },
      );
      expect(byName(report, "note").response).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } });
      expect(byName(report, "note").sent).toBeGreaterThan(1); // the first answer was outcome_unknown; the plugin sent the same request again
      expect(aiNotes(stack.p.db)).toBe(1);
    } finally {
      await stack.stop();
    }
  });
});

describe("Hermes plugin robustness", () => {
  it("register() never raises: with register_skill raising (no agent.skill_utils) the six tools and the hooks are registered, the skill skipped", async () => {
    const report = await runHarness([], {
      MNOTE_TOOLS_URL: "http://127.0.0.1:9",
      MNOTE_TOOLS_TOKEN: "t",
      HARNESS_REGISTER_SKILL_RAISES: "1",
    });
    expect(report.tools.map((t) => t.name).sort()).toEqual(toolList.map((t) => t.providerName).sort());
    expect(report.tools).toHaveLength(6);
    expect(report.hooks).toEqual(["post_tool_call", "pre_tool_call"]);
    expect(report.skills).toEqual({});
    expect(report.problems).toEqual([]);
  });

  it("a call blocked after pre_tool_call never lends its id to another call", async () => {
    const p = seededProject(grants);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const report = await runHarness(
        [
          {
            name: "blocked-1",
            tool: "mnote_page_update_title",
            args: { title: "Blocked" },
            ...S,
            tool_call_id: "call_blocked_1",
            blocked: true,
          },
          {
            name: "other-args",
            tool: "mnote_page_update_title",
            args: { title: "Allowed" },
            ...S,
            tool_call_id: "call_allowed",
          },
          {
            name: "blocked-2",
            tool: "mnote_page_update_title",
            args: { title: "Again" },
            ...S,
            tool_call_id: "call_blocked_2",
            blocked: "no_post",
          },
          {
            name: "same-args",
            tool: "mnote_page_update_title",
            args: { title: "Again" },
            ...S,
            tool_call_id: "call_again",
          },
          {
            name: "blocked-3",
            tool: "mnote_page_update_title",
            args: { title: "Third" },
            ...S,
            tool_call_id: "call_blocked_3",
            blocked: "no_post",
          },
          {
            name: "other-task",
            tool: "mnote_page_update_title",
            args: { title: "Third" },
            session_id: "s_owner",
            task_id: "task_2",
            tool_call_id: "call_task_2",
          },
        ],
        { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" },
      );
      expect(byName(report, "other-args").request.toolCallId).toBe("call_allowed");
      expect(byName(report, "same-args").request.toolCallId).toBe("call_again");
      expect(byName(report, "other-task").request.toolCallId).toBe("call_task_2");
      for (const n of ["other-args", "same-args", "other-task"]) expect(byName(report, n).response.ok).toBe(true);
      // three writes, three keys
      expect(new Set(report.results.map((r) => r.request.idempotencyKey)).size).toBe(3);
    } finally {
      await server.stop();
    }
  });

  it("a cached grant is fetched again once on session_mismatch: a session the app re-bound to another page works at once", async () => {
    const p = seededProject(grants);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    const rebind = [
      process.execPath,
      cliPath,
      "session",
      "grant",
      "--state",
      p.state,
      "--session",
      "s_owner",
      "--workspace",
      "ws_1",
      "--document",
      "doc_secret",
      "--actor",
      "user_1",
      "--scope",
      "page.read,page.write,artifact.write",
    ];
    try {
      const report = await runHarness(
        [
          { name: "before", tool: "mnote_page_get", args: { includeBlocks: false }, ...S, tool_call_id: "call_1" },
          { name: "rebind", run: rebind },
          { name: "after", tool: "mnote_page_get", args: { includeBlocks: false }, ...S, tool_call_id: "call_2" },
        ],
        { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" },
      );
      expect(byName(report, "before").response).toMatchObject({ ok: true, result: { documentId: "doc_1" } });
      expect(byName(report, "after").response).toMatchObject({ ok: true, result: { documentId: "doc_secret" } });
      expect(byName(report, "after").request.documentId).toBe("doc_secret");
    } finally {
      await server.stop();
    }
  });

  it("the CLI transport refuses to guess state paths: a clear configuration error, nothing sent", async () => {
    const p = seededProject(grants);
    const cli = `${process.execPath} ${cliPath}`;
    const report = await runHarness(
      [{ name: "no-state", tool: "mnote_page_get", args: {}, ...S, tool_call_id: "c1" }],
      {
        MNOTE_TOOLS_CLI: cli,
        MNOTE_TOOLS_DB: p.db,
        MNOTE_TOOLS_LOCALE: "en",
      },
    );
    const error = byName(report, "no-state").response.error;
    expect(error).toMatchObject({ code: "mnote_tool_not_configured", retryable: false, reason: "state_paths" });
    expect(error.message).toContain("MNOTE_TOOLS_STATE");
    expect(byName(report, "no-state").request).toBeNull();
    const relative = await runHarness(
      [{ name: "relative", tool: "mnote_page_get", args: {}, ...S, tool_call_id: "c2" }],
      {
        MNOTE_TOOLS_CLI: cli,
        MNOTE_TOOLS_DB: p.db,
        MNOTE_TOOLS_STATE: ".mnote/runtime.db",
      },
    );
    expect(byName(relative, "relative").response.error).toMatchObject({
      code: "mnote_tool_not_configured",
      reason: "state_paths",
    });
  });
});
