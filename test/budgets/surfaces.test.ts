/**
 * Every agent surface answers a used-up budget the same way, through real processes with budgets
 * on and a host policy lowering the note budget to 3 per session: the Hermes plugin (over HTTP to
 * `serve`) hands the model the envelope with the code and the wait; the MCP server answers a tool
 * result holding the error envelope (never a protocol error); a framework's model call gets 429
 * with Retry-After. Each time the kernel holds exactly the budget's notes.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { allowEveryTool } from "../../runtime/approval/policy";
import { MODEL_CALL_PATH } from "../../generated/frameworks/connection";
import { generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";

const NOTE = "mnote.artifact.create_ai_note";
const PROVIDER = "mnote_artifact_create_ai_note";
const BUDGET = 3;
const CALLS = 8;
const ON = { MNOTE_BUDGETS: undefined, MNOTE_APPROVAL_POLICY: undefined };

function project() {
  const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
  const policy = join(p.dir, "budget-policy.json");
  writeFileSync(policy, JSON.stringify({ ...allowEveryTool(), budgets: { [NOTE]: { perSession: BUDGET } } }));
  return { ...p, policy };
}

function noteCount(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT count(*) AS n FROM artifacts WHERE type = 'ai_note'").get() as { n: number }).n;
  } finally {
    d.close();
  }
}

function expectRefusals(envelopes: any[], toolName: string) {
  expect(envelopes.filter((e) => e.ok === true)).toHaveLength(BUDGET);
  for (const e of envelopes.slice(BUDGET)) {
    expect(e).toMatchObject({
      ok: false,
      toolName,
      error: { code: "mnote_tool_rate_limited", retryable: true, reason: "session" },
    });
    expect(e.error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(e.error.message).toContain(String(e.error.retryAfterSeconds));
  }
}

describe("a used-up budget on every agent surface", () => {
  it("the Hermes plugin, over HTTP to serve: the model reads the code and the wait", async () => {
    const p = project();
    const server = await start(
      ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", p.policy],
      { env: ON },
    );
    const steps = Array.from({ length: CALLS }, (_, i) => ({
      name: `note-${i}`,
      tool: PROVIDER,
      args: { content: `plugin loop ${i}` },
      session_id: "s_owner",
      task_id: "task_1",
      tool_call_id: `call_${i}`,
    }));
    const file = join(tempDir("mnote-hermes-"), "steps.json");
    writeFileSync(file, JSON.stringify(steps));
    const run = spawnSync(
      "python3",
      [join(repoRoot, "test", "hermes", "harness.py"), join(generatedDir, "hermes-plugin", "mnote"), file],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH, MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" },
        timeout: 120_000,
      },
    );
    await server.stop();
    expect(run.stderr.slice(-2000)).not.toContain("Traceback");
    expect(run.status).toBe(0);
    const results = (JSON.parse(run.stdout) as { results: Array<{ response: any; is_string: boolean }> }).results;
    expect(results.map((r) => r.is_string)).toEqual(Array(CALLS).fill(true));
    expectRefusals(
      results.map((r) => r.response),
      PROVIDER,
    );
    expect(noteCount(p.db)).toBe(BUDGET);
  });

  it("the MCP server: a tool result with the error envelope, never a protocol error", async () => {
    const p = project();
    const server = await start(
      [
        ...["mcp", "--http", "--port", "0", "--token", "t", "--session", "s_owner"],
        ...["--db", p.db, "--state", p.state, "--approval-policy", p.policy],
      ],
      { env: ON },
    );
    const client = new Client({ name: "test", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { Authorization: "Bearer t" } },
      }),
    );
    const envelopes = [];
    try {
      for (let i = 0; i < CALLS; i++) {
        const r = await client.callTool({ name: PROVIDER, arguments: { content: `mcp loop ${i}` } });
        expect(r.isError ?? false).toBe(i >= BUDGET);
        envelopes.push(r.structuredContent);
      }
    } finally {
      await client.close();
      await server.stop();
    }
    expectRefusals(envelopes, PROVIDER);
    expect(noteCount(p.db)).toBe(BUDGET);
  });

  it("a framework's model call through serve: 429 with Retry-After, the same envelope", async () => {
    const p = project();
    const server = await start(
      ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", p.policy],
      { env: ON },
    );
    const answers = [];
    try {
      for (let i = 0; i < CALLS; i++) {
        const res = await fetch(`${server.url}${MODEL_CALL_PATH}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer tok" },
          body: JSON.stringify({
            sessionId: "s_owner",
            toolName: PROVIDER,
            toolCallId: `fw_call_${i}`,
            arguments: { content: `framework loop ${i}` },
          }),
        });
        answers.push({
          status: res.status,
          retryAfter: res.headers.get("retry-after"),
          body: (await res.json()) as any,
        });
      }
    } finally {
      await server.stop();
    }
    expect(answers.map((a) => a.status)).toEqual([...Array(BUDGET).fill(200), ...Array(CALLS - BUDGET).fill(429)]);
    for (const a of answers.slice(BUDGET)) expect(a.retryAfter).toBe(String(a.body.error.retryAfterSeconds));
    expectRefusals(
      answers.map((a) => a.body),
      answers[0]!.body.toolName,
    );
    expect(noteCount(p.db)).toBe(BUDGET);
  });
});
