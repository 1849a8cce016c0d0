/**
 * Approval in the generated Hermes plugin outside Hermes (the project's loader, test/hermes/
 * harness.py): there is no tools/approval.py to ask a person with, which is exactly a host with
 * no consent function. An approval_required answer is then "nobody could be asked", told to the
 * runtime (logged, the token used up) and nothing is written; a call the policy allows goes through; a call the policy denies is denied. The path
 * where a person answers runs in the real Hermes (test/hermes/real-hermes.test.ts).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";
import { hashDatabaseFile } from "../support/runtime";

const harness = join(repoRoot, "test", "hermes", "harness.py");
const pluginDir = join(generatedDir, "hermes-plugin", "mnote");
const S = { session_id: "s_owner", task_id: "task_1" };

function runHarness(steps: unknown[], url: string) {
  const file = join(tempDir("mnote-hermes-approval-"), "steps.json");
  writeFileSync(file, JSON.stringify(steps));
  const run = spawnSync("python3", [harness, pluginDir, file], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, MNOTE_TOOLS_URL: url, MNOTE_TOOLS_TOKEN: "tok" },
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`harness failed: ${run.stderr}`);
  return JSON.parse(run.stdout).results as Array<{ name: string; response: any; sent: number }>;
}

describe("approval in the Hermes plugin without a consent function", () => {
  it("approval_required with nobody to ask: told to the runtime and logged, nothing written; allow goes through; deny is denied", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const policy = join(p.dir, "policy.json");
    writeFileSync(policy, JSON.stringify({ tools: { "mnote.artifact.create_ai_note": "deny" } }));
    const server = await start(
      ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", policy],
      { env: { MNOTE_APPROVAL_POLICY: undefined } },
    );
    try {
      const before = hashDatabaseFile(p.db);
      const [replace, note] = runHarness(
        [
          {
            name: "replace",
            tool: "mnote_page_save",
            args: { content: [{ type: "paragraph", text: "Rewrite" }], mode: "replace" },
            ...S,
            tool_call_id: "call_replace",
          },
          {
            name: "note",
            tool: "mnote_artifact_create_ai_note",
            args: { content: "A note" },
            ...S,
            tool_call_id: "call_note",
          },
        ],
        server.url,
      );
      // nobody could be asked; the runtime is told (the preview request, then the same call with the
      // token and the answer), so its audit and log hold the decision
      expect([replace!.response.error.code, replace!.response.error.reason, replace!.sent]).toEqual([
        "mnote_tool_approval_denied",
        "no_one_to_ask",
        2,
      ]);
      expect(replace!.response.audit.approval).toEqual({ decision: "denied", level: "ask" });
      expect(replace!.response.error.message).toMatch(/无法询问用户|Nobody could be asked/);
      expect([note!.response.error.code, note!.response.error.reason]).toEqual([
        "mnote_tool_approval_denied",
        "policy",
      ]);
      expect(hashDatabaseFile(p.db)).toBe(before);

      const [append] = runHarness(
        [
          {
            name: "append",
            tool: "mnote_page_save",
            args: { content: [{ type: "paragraph", text: "More" }], mode: "append" },
            ...S,
            tool_call_id: "call_append",
          },
        ],
        server.url,
      );
      expect(append!.response).toMatchObject({ ok: true, result: { revision: 1 } });
    } finally {
      await server.stop();
    }
    // every decision in the runtime's log, with tool, session and reason
    const decisions = server.stderr
      .filter((l) => l.includes('"tool_call"'))
      .map((l) => JSON.parse(l))
      .filter((r) => r.approval)
      .map((r) => [r.toolName, r.sessionId, r.approval.decision, r.reason ?? null]);
    expect(decisions).toEqual([
      ["mnote.page.save", "s_owner", "required", null],
      ["mnote.page.save", "s_owner", "denied", "no_one_to_ask"],
      ["mnote.artifact.create_ai_note", "s_owner", "denied", "policy"],
    ]);
  });
});
