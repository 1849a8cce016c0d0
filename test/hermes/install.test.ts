/** `mnote-tools hermes install`: the plugin lands in $HERMES_HOME/plugins/mnote, loadable, with the config lines printed. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cliPath, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";

it("copies the generated plugin into the Hermes home and prints how to enable it", () => {
  const home = tempDir("hermes-home-");
  const run = runCli(["hermes", "install", "--hermes-home", home]);
  expect(run.status).toBe(0);
  const target = join(home, "plugins", "mnote");
  expect(readdirSync(target).sort()).toEqual([
    "SKILL.md",
    "__init__.py",
    "gate.py",
    "plugin.yaml",
    "raise.json",
    "raise_args.py",
    "tools.json",
  ]);
  expect(run.stdout).toContain("plugins:\n    enabled: [mnote]");
  expect(run.stdout).toContain("MNOTE_TOOLS_URL=");
  // installing again replaces the old copy
  expect(runCli(["hermes", "install", "--hermes-home", home]).status).toBe(0);
  expect(existsSync(join(target, "__pycache__"))).toBe(false);
});

it("prints the exact environment lines: URL and token, or the CLI adapter with absolute state and db paths", () => {
  const home = tempDir("hermes-home-");
  const dir = tempDir("mnote-paths-");
  const run = runCli([
    "hermes",
    "install",
    "--hermes-home",
    home,
    "--url",
    "http://127.0.0.1:9911",
    "--token",
    "tok-123",
    "--state",
    join(dir, "runtime.db"),
    "--db",
    join(dir, "kernel.db"),
  ]);
  expect(run.status).toBe(0);
  const lines = run.stdout.split("\n").map((l) => l.trim());
  expect(lines).toContain("MNOTE_TOOLS_URL=http://127.0.0.1:9911");
  expect(lines).toContain("MNOTE_TOOLS_TOKEN=tok-123");
  expect(lines).toContain(`MNOTE_TOOLS_CLI="${process.execPath} ${cliPath}"`);
  expect(lines).toContain(`MNOTE_TOOLS_STATE=${join(dir, "runtime.db")}`);
  expect(lines).toContain(`MNOTE_TOOLS_DB=${join(dir, "kernel.db")}`);
  expect(run.stdout).toContain(join(home, ".env"));
});
