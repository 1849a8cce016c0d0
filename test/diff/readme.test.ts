/** Every `mnote-tools diff` command in README.md works as written (exit 0 on the committed contract). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, runCli } from "../support/paths";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const commands = [...readme.matchAll(/^npx mnote-tools (diff[^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1]!.trim());

describe("README diff commands", () => {
  it("lists several", () => {
    expect(commands.length).toBeGreaterThanOrEqual(5);
  });

  it.each(commands.map((c) => [c]))("%s", (command) => {
    const run = runCli(command.split(/\s+/));
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(0);
  });
});
