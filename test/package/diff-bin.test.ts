/**
 * mnote-diff (diff/bin.ts) from the repository's build, beside `mnote-tools diff`: one table of
 * options (diff/options.ts) and one set of exit codes (diff/command.ts, cli/exit.ts) for both front
 * doors, and the arguments parseArgs reads as commander does. The packed bin, installed alone, is
 * test/package/cli-packages.test.ts's.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { DIFF_EXIT } from "../../diff/command";
import { DIFF_OPTIONS } from "../../diff/options";
import { EXIT } from "../../cli/exit";
import type { Command } from "commander";
import { repoRoot, runCli } from "../support/paths";

const bin = join(repoRoot, "dist", "diff", "bin.js");
const diffBin = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, encoding: "utf8" });

describe("mnote-diff and mnote-tools diff", () => {
  it("share the exit codes of the CLI", () => {
    expect(DIFF_EXIT).toEqual({
      ok: EXIT.ok,
      findings: EXIT.findings,
      usage: EXIT.usage,
      environment: EXIT.environment,
    });
  });

  it("share one table of options: commander's diff command has exactly its flags and defaults", () => {
    // from the build: the program reads its version relative to dist/
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { programFor } = require(join(repoRoot, "dist", "cli", "main.js")) as {
      programFor(argv: string[]): Command;
    };
    const diff = programFor(["node", "mnote-tools", "diff"]).commands.find((c) => c.name() === "diff")!;
    const commander = diff.options.map((o) => [o.long, o.defaultValue]);
    expect(commander).toEqual(DIFF_OPTIONS.map((o) => [o.flag, o.default]));
  });

  it("mnote-diff --help lists every option; an unknown one or a positional argument is usage (2)", () => {
    const help = diffBin(["--help"]);
    expect(help.status).toBe(0);
    for (const o of DIFF_OPTIONS) expect(help.stdout).toContain(o.flag);
    expect(diffBin(["--nope"]).status).toBe(2);
    expect(diffBin(["contract"]).status).toBe(2);
    expect(runCli(["diff", "--nope"]).status).toBe(2);
  });

  it.each([
    ["--changelog before another flag (no file: printed)", ["--changelog", "--format", "json"]],
    ["--changelog last", ["--format", "json", "--changelog"]],
    ["--fail-on=warning, the = form", ["--fail-on=warning", "--format", "markdown"]],
    ["--category source", ["--category", "source"]],
  ])("%s: the same stdout and exit code as mnote-tools diff", (_, args) => {
    const tools = runCli(["diff", ...args]);
    const alone = diffBin(args);
    expect({ code: alone.status, stdout: alone.stdout }).toEqual({ code: tools.status, stdout: tools.stdout });
    expect(alone.stdout.length).toBeGreaterThan(0);
  });
});
