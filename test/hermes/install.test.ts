/** `mnote-tools hermes install`: the plugin lands in $HERMES_HOME/plugins/mnote, loadable, with the config lines printed. */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliPath, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";

it("copies the generated plugin into the Hermes home and prints how to enable it", () => {
  const home = tempDir("hermes-home-");
  const run = runCli(["hermes", "install", "--hermes-home", home]);
  expect(run.status).toBe(0);
  const target = join(home, "plugins", "mnote");
  expect(readdirSync(target).sort()).toEqual([
    ".mnote-install.json",
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

describe("a plugin folder install did not write, or one edited since, is not replaced silently (issue 47)", () => {
  it("refuses (exit 3, one line, nothing changed); --force keeps it as a backup outside plugins/ and says where", () => {
    const home = tempDir("hermes-home-");
    const target = join(home, "plugins", "mnote");
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "mine.py"), "# someone's own plugin\n");
    const refused = runCli(["hermes", "install", "--hermes-home", home]);
    expect(refused.status).toBe(3);
    expect(refused.stderr.trim().split("\n")).toEqual([
      expect.stringContaining("was not written by mnote-tools hermes install: nothing was replaced"),
    ]);
    expect(readdirSync(target)).toEqual(["mine.py"]);
    const forced = runCli(["hermes", "install", "--hermes-home", home, "--force"]);
    expect(forced.status).toBe(0);
    const backups = readdirSync(home).filter((n) => n.startsWith("mnote-plugin-backup-"));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(home, backups[0]!, "mine.py"), "utf8")).toBe("# someone's own plugin\n");
    expect(forced.stdout).toContain(`kept the plugin folder that was there in ${join(home, backups[0]!)}`);
    expect(existsSync(join(target, "plugin.yaml"))).toBe(true);
  });

  it("an installed plugin edited since is refused; Python's caches do not count as edits", () => {
    const home = tempDir("hermes-home-");
    const target = join(home, "plugins", "mnote");
    expect(runCli(["hermes", "install", "--hermes-home", home]).status).toBe(0);
    mkdirSync(join(target, "__pycache__"));
    writeFileSync(join(target, "__pycache__", "x.pyc"), "");
    expect(runCli(["hermes", "install", "--hermes-home", home]).status).toBe(0);
    appendFileSync(join(target, "SKILL.md"), "\nmy own note\n");
    const refused = runCli(["hermes", "install", "--hermes-home", home]);
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain("it was edited since it was installed (SKILL.md)");
    expect(readFileSync(join(target, "SKILL.md"), "utf8")).toContain("my own note");
  });
});
