/** The README's main job, `npm run demo`, passes end to end (generated/ checked rather than rewritten). */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/paths";

it("npm run demo drives all six tools through the Hermes plugin and exits 0", () => {
  const run = spawnSync(process.execPath, [join(repoRoot, "dist", "scripts", "demo.js")], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, MNOTE_DEMO_GENERATE: "check" },
    timeout: 120_000,
  });
  expect(run.stdout).toContain("DEMO OK: 14 steps through the Hermes plugin, every one as expected.");
  expect(run.stdout).not.toContain("!! unexpected");
  // the approval round: the person sees what would change, says no to a replace, yes to a rename
  expect(run.stdout).toMatch(
    /替换「项目计划」的全部内容：删除 \d+ 段，写入 1 段。\n(.*\n)*  the person answers: decline/,
  );
  expect(run.stdout).toContain("the person answers: accept");
  expect(run.status).toBe(0);
});
