/**
 * Issue 11, item 7, through the Hermes plugin: an over-long title answers with the rule and the
 * limit, in the session's language (zh-CN by default, en when the grant says so), so the model
 * knows what to change in its next call.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedDir, repoRoot, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";
import { toolByName, validateModelResponse } from "../../generated/registry";

const pluginDir = join(generatedDir, "hermes-plugin", "mnote");
const harness = join(repoRoot, "test", "hermes", "harness.py");

it("an over-long title through the plugin: the rule and the limit, in zh-CN and en", async () => {
  const p = seededProject([{ session: "s_zh", actor: "user_1" }]);
  const en = runCli([
    "session",
    "grant",
    "--state",
    p.state,
    "--session",
    "s_en",
    "--workspace",
    "ws_1",
    "--document",
    "doc_1",
    "--actor",
    "user_1",
    "--scope",
    "page.read,page.write",
    "--locale",
    "en",
  ]);
  expect(en.stderr).toBe("");
  const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "plugin-token"]);
  try {
    const steps = ["s_zh", "s_en"].map((session) => ({
      name: session,
      tool: "mnote_page_update_title",
      args: { title: "t".repeat(501) },
      session_id: session,
      task_id: "task",
      tool_call_id: `call_${session}`,
    }));
    const file = join(tempDir("mnote-hermes-"), "steps.json");
    writeFileSync(file, JSON.stringify(steps));
    const run = spawnSync("python3", [harness, pluginDir, file], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "plugin-token" },
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const results = JSON.parse(run.stdout).results as Array<{ name: string; response: any }>;
    const rule = { keyword: "maxLength", limit: 500, pointer: "/args/title" };
    const byName = (name: string) => results.find((r) => r.name === name)!.response;
    const tool = toolByName("mnote.page.update_title")!;
    for (const r of results) expect(validateModelResponse(tool, r.response)).toBe(true);
    expect(byName("s_zh").error).toMatchObject({
      code: "mnote_tool_invalid_input",
      message: "title：最多 500 个字符",
      rule,
    });
    expect(byName("s_en").error).toMatchObject({
      code: "mnote_tool_invalid_input",
      message: "title: at most 500 characters",
      rule,
    });
  } finally {
    await server.stop();
  }
});
