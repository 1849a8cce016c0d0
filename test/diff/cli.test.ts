/**
 * runDiff, the `mnote-tools diff` verb, in process: output formats, exit codes, and the default
 * base (the newest folder in the releases folder).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDiff, type DiffOptions } from "../../cli/commands/diff";
import { CliExit } from "../../cli/exit";
import { contractWith, contractWithSeventhTool } from "../support/fixtures";
import { contractDir, repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

const SAVE = "tools/page.save.tool.json";
const saveText = readFileSync(join(contractDir, SAVE), "utf8");
const withVersion = (dir: string, version: string) => {
  const manifest = join(dir, "contract.json");
  const json = JSON.parse(readFileSync(manifest, "utf8"));
  json.version = version;
  writeFileSync(manifest, JSON.stringify(json, null, 2));
  return dir;
};
// versions pinned, so the tests hold whatever version contract/ has today
const narrowed = () =>
  withVersion(contractWith(SAVE, saveText.replace('"enum": ["replace", "append"]', '"enum": ["append"]')), "1.0.0");

function releases(...versions: string[]): string {
  const dir = tempDir("mnote-releases-");
  // each release folder holds today's contract under that folder's version
  for (const v of versions) {
    cpSync(contractDir, join(dir, v), { recursive: true });
    withVersion(join(dir, v), v);
  }
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(opts: Partial<DiffOptions> & { contract: string }): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const out = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = jest.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    stderr += args.join(" ") + "\n";
  });
  try {
    await runDiff({ releases: join(repoRoot, "contract-releases"), format: "human", ...opts });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (e instanceof CliExit) return { code: e.code, stdout, stderr };
    throw e;
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe("mnote-tools diff", () => {
  it("exits 1 on a breaking change without a new major, naming the rule, tool, pointer and the version to use", async () => {
    const r = await run({ contract: narrowed(), releases: releases("1.0.0") });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("breaking (1)");
    expect(r.stdout).toContain("request-enum-narrowed  mnote.page.save  /args/properties/mode/enum");
    // The file, line and column in the head contract, then the pointer in that file.
    expect(r.stdout).toMatch(/\[tools\/page\.save\.tool\.json:\d+:\d+#\/\$defs\/Args\/properties\/mode\/enum\]/);
    expect(r.stdout).toContain("FAIL: breaking changes need version 2.0.0");
  });

  it("compares with the newest release when --base is left out", async () => {
    const dir = releases("0.9.0", "1.0.0");
    withVersion(join(dir, "0.9.0"), "0.9.0");
    const r = await run({ contract: contractDir, releases: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/base 1\.0\.0 \(.*1\.0\.0\)/);
    expect(r.stdout).toContain("OK: no changes");
  });

  it("passes a breaking change with a new major version and still lists it", async () => {
    const r = await run({ contract: withVersion(narrowed(), "2.0.0"), releases: releases("1.0.0") });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("request-enum-narrowed");
    expect(r.stdout).toContain("OK: 1 breaking change(s), allowed by the new major version 2.0.0");
  });

  it("writes the report as JSON with --format json", async () => {
    const base = releases("1.0.0");
    const r = await run({ contract: narrowed(), base: join(base, "1.0.0"), format: "json" });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.verdict).toMatchObject({ ok: false, requiredVersion: "2.0.0" });
    expect(report.counts).toEqual({ breaking: 1, warning: 0, safe: 0 });
    expect(report.base).toMatchObject({ version: "1.0.0" });
    expect(report.base.source).toContain("1.0.0");
    expect(report.changes).toEqual([
      expect.objectContaining({
        rule: "request-enum-narrowed",
        level: "breaking",
        subject: "mnote.page.save",
        pointer: "/args/properties/mode/enum",
        file: SAVE,
        filePointer: "/$defs/Args/properties/mode/enum",
        before: ["replace", "append"],
        after: ["append"],
      }),
    ]);
  });

  it("exits 2 without a release to compare with", async () => {
    const r = await run({ contract: contractDir, releases: join(tempDir(), "none") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no released contract in");
  });

  it("exits 2 on an invalid base, saying it is the base", async () => {
    const broken = contractWith(SAVE, saveText.replace('"maxItems": 500', '"maxItmes": 500'));
    const r = await run({ contract: contractDir, base: broken });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^the base contract \(.*\) does not validate: invalid contract: tools\/page\.save\.tool\.json/,
    );
  });

  it("exits 2 on an unknown format", async () => {
    const r = await run({ contract: contractDir, format: "yaml" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--format must be one of human, json, markdown, github, junit, sarif");
  });

  it("the working contract does not break the newest release in contract-releases/ (the CI check)", async () => {
    const r = await run({ contract: contractDir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  describe("for CI", () => {
    const base = () => join(releases("1.0.0"), "1.0.0");
    const saveLines = saveText.split("\n");
    const enumLine = saveLines.findIndex((l) => l.includes('"enum": ["replace", "append"]')) + 1;
    // A member's position is its key's, as `validate` reports it.
    const enumColumn = saveLines[enumLine - 1]!.indexOf('"enum"') + 1;

    it("--format github writes one workflow annotation per change, with file, line and column", async () => {
      const contract = narrowed();
      const r = await run({ contract, base: base(), format: "github" });
      expect(r.code).toBe(1);
      const [annotation, verdict] = r.stdout.trim().split("\n");
      expect(annotation).toMatch(
        new RegExp(
          `^::error file=[^,]*tools/page\\.save\\.tool\\.json,line=${enumLine},col=${enumColumn},title=request-enum-narrowed \\(breaking\\)::mnote\\.page\\.save /args/properties/mode/enum: value\\(s\\) removed: "replace"$`,
        ),
      );
      expect(verdict).toMatch(/^FAIL: breaking changes need version 2\.0\.0/);
    });

    it("--format markdown writes a PR comment with a table per level", async () => {
      const r = await run({ contract: narrowed(), base: base(), format: "markdown" });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("### Contract diff: mnote-page-ai-tools 1.0.0 → 1.0.0");
      expect(r.stdout).toContain("#### breaking (1)");
      expect(r.stdout).toMatch(
        /^\| `request-enum-narrowed` \| callers, plugin code \| mnote\.page\.save \/args\/properties\/mode\/enum \| value\(s\) removed: "replace" \| `.*tools\/page\.save\.tool\.json:\d+:\d+#/m,
      );
    });

    it("--format junit writes a failing test case per breaking change", async () => {
      const r = await run({ contract: narrowed(), base: base(), format: "junit" });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="mnote contract diff" tests="1" failures="1">/,
      );
      expect(r.stdout).toContain(
        `<testcase classname="mnote.page.save" name="request-enum-narrowed /args/properties/mode/enum"`,
      );
      expect(r.stdout).toContain(`line="${enumLine}"`);
      expect(r.stdout).toContain('<failure type="breaking" message="value(s) removed: &quot;replace&quot;">');
    });

    function ignoreFile(entries: unknown[]): string {
      const path = join(tempDir("mnote-ignore-"), "diff-ignore.json");
      writeFileSync(path, JSON.stringify({ ignore: entries }));
      return path;
    }
    const entry = {
      rule: "request-enum-narrowed",
      tool: "mnote.page.save",
      pointer: "/args/properties/mode/enum",
      reason: "mode replace was never shipped",
      expires: "2030-01-01",
    };

    it("an ignore entry that matches keeps the change in the report but out of the verdict", async () => {
      const r = await run({
        contract: narrowed(),
        base: base(),
        ignore: ignoreFile([entry]),
        today: "2029-12-31",
        format: "json",
      });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.counts).toEqual({ breaking: 0, warning: 0, safe: 0 });
      expect(report.changes[0]).toMatchObject({
        rule: "request-enum-narrowed",
        ignored: { reason: entry.reason, expires: "2030-01-01" },
      });
    });

    it("an expired ignore entry fails the run, even though it matches", async () => {
      const r = await run({ contract: narrowed(), base: base(), ignore: ignoreFile([entry]), today: "2030-01-02" });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("expired on 2030-01-01 (mode replace was never shipped)");
    });

    it("an ignore entry that matches nothing is reported as stale", async () => {
      const r = await run({ contract: contractDir, base: base(), ignore: ignoreFile([entry]), today: "2029-01-01" });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("matches no change (stale: remove it)");
    });

    it("refuses a bad ignore file before diffing, with one line naming the file, the entry and the problem (exit 3)", async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ ...entry, reason: " " }, /diff-ignore\.json: ignore\[0\]\.reason: a reason is required$/],
        [{ ...entry, rule: "no-such-rule" }, /diff-ignore\.json: ignore\[0\]\.rule: no rule "no-such-rule"/],
        [
          { ...entry, expires: "next year" },
          /diff-ignore\.json: ignore\[0\]\.expires: "next year" is not a calendar date \(YYYY-MM-DD\)$/,
        ],
        // a day February does not have, in a leap year and in another
        [{ ...entry, expires: "2099-02-30" }, /ignore\[0\]\.expires: "2099-02-30" is not a calendar date/],
        [{ ...entry, expires: "2027-02-29" }, /ignore\[0\]\.expires: "2027-02-29" is not a calendar date/],
        [null, /diff-ignore\.json: ignore\[0\]: must be an object, not null$/],
        [{ ...entry, extra: 1 }, /ignore\[0\]: unknown key "extra"$/],
        [{ ...entry, pointer: "args/mode" }, /ignore\[0\]\.pointer: "args\/mode" is not a JSON pointer$/],
      ];
      for (const [bad, message] of cases) {
        const r = await run({ contract: contractDir, base: base(), ignore: ignoreFile([bad]) });
        expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 3, stdout: "" });
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr.trim()).toMatch(message);
      }
      // 2028 is a leap year: its 29 February is a date.
      const leap = await run({
        contract: contractDir,
        base: base(),
        ignore: ignoreFile([{ ...entry, expires: "2028-02-29" }]),
        today: "2028-01-01",
      });
      expect(leap.code).toBe(0);
    });

    it("refuses an ignore file that is not an object with an ignore list (exit 3)", async () => {
      for (const [text, message] of [
        ["[]", /: must be an object, not \[\]$/],
        ["{}", /: "ignore" is missing$/],
        ['{"ignore": null}', /: ignore: must be an array, not null$/],
        ["{not json", /: not JSON: /],
      ] as const) {
        const path = join(tempDir("mnote-ignore-"), "diff-ignore.json");
        writeFileSync(path, text);
        const r = await run({ contract: contractDir, base: base(), ignore: path });
        expect(r.code).toBe(3);
        expect(r.stderr.trim()).toMatch(message);
        expect(r.stderr).toContain(path);
      }
    });

    it("--fail-on warning fails on warnings; the default passes them", async () => {
      const described = contractWith(
        SAVE,
        saveText.replace(
          '"description": "The blocks to write, in order',
          '"description": "The blocks to send, in order',
        ),
      );
      expect(saveText).toContain('"description": "The blocks to write, in');
      const passes = await run({ contract: described, base: base() });
      expect(passes.code).toBe(0);
      expect(passes.stdout).toContain("warning (1)");
      const fails = await run({ contract: described, base: base(), failOn: "warning" });
      expect(fails.code).toBe(1);
      // one verdict, the one the exit code gives: no "OK" before a failing exit
      expect(fails.stdout).not.toMatch(/^OK/m);
      expect(fails.stdout).toContain("FAIL: 1 warning(s), and --fail-on warning fails on warnings");
      expect(fails.stderr).toBe("");
      const changelog = await run({ contract: described, base: base(), failOn: "warning", changelog: true });
      expect(changelog.code).toBe(1);
      expect(changelog.stderr.trim()).toMatch(/^FAIL: 1 warning\(s\), and --fail-on warning fails on warnings/);
      const json = await run({ contract: described, base: base(), failOn: "warning", format: "json" });
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout).verdict).toMatchObject({ ok: false });
      const bad = await run({ contract: contractDir, base: base(), failOn: "safe" });
      expect(bad.code).toBe(2);
    });

    it("--changelog writes a changelog section instead of the report", async () => {
      const r = await run({ contract: withVersion(narrowed(), "2.0.0"), base: base(), changelog: true });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        [
          "## mnote-page-ai-tools 2.0.0",
          "",
          "Compared with 1.0.0: 1 breaking change(s), allowed by the new major version 2.0.0 (base 1.0.0).",
          "",
          "### Breaking changes",
          "",
          '- **mnote.page.save** `/args/properties/mode/enum`: value(s) removed: "replace" (`request-enum-narrowed`)',
          "",
        ].join("\n"),
      );
      const file = join(tempDir("mnote-changelog-"), "CHANGELOG-section.md");
      await run({ contract: withVersion(narrowed(), "2.0.0"), base: base(), changelog: file });
      expect(readFileSync(file, "utf8")).toBe(r.stdout);
    });
  });

  describe("CI flags that cannot fail silently (issue 34)", () => {
    const base = () => join(repoRoot, "contract-releases", "1.0.0");

    it("an explicitly named --rules or --ignore file that does not exist is a configuration error (exit 3), like --baseline", async () => {
      const missing = join(tempDir("mnote-missing-"), "no-such-file.json");
      for (const flag of ["rules", "ignore", "baseline"] as const) {
        const r = await run({ contract: contractDir, base: base(), [flag]: missing });
        expect({ flag, code: r.code, stdout: r.stdout }).toEqual({ flag, code: 3, stdout: "" });
        expect(r.stderr.trim()).toBe(`${missing}: not found`);
      }
      // the defaults in the releases folder may be missing: they are the defaults
      const empty = tempDir("mnote-releases-");
      cpSync(base(), join(empty, "1.0.0"), { recursive: true });
      expect((await run({ contract: contractDir, base: base(), releases: empty })).code).toBe(0);
    });

    it("--category that leaves wire out still fails on a wire break, and says why", async () => {
      const r = await run({ contract: narrowed(), base: base(), category: "source" });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("request-enum-narrowed  mnote.page.save");
      expect(r.stderr).toContain('except: ["wire"]');
    });

    it("a removed tool and a removed kernel command point at the base's file and line, and say it is the base's", async () => {
      const seventh = withVersion(contractWithSeventhTool(), "1.0.0");
      const head = withVersion(
        contractWith("contract.json", readFileSync(join(contractDir, "contract.json"), "utf8")),
        "1.0.0",
      );
      const r = await run({ contract: head, base: seventh, format: "json" });
      expect(r.code).toBe(1);
      const changes = JSON.parse(r.stdout).changes as Array<Record<string, unknown>>;
      const toolText = readFileSync(join(seventh, "tools/page.get_outline.tool.json"), "utf8");
      const commandText = readFileSync(join(seventh, "kernel/page.outline.read.command.json"), "utf8");
      const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;
      expect(changes.find((c) => c.rule === "tool-removed")).toMatchObject({
        file: "tools/page.get_outline.tool.json",
        inBase: true,
        line: lineOf(toolText, '"name": "mnote.page.get_outline"'),
      });
      expect(changes.find((c) => c.rule === "kernel-command-removed")).toMatchObject({
        file: "kernel/page.outline.read.command.json",
        inBase: true,
        line: lineOf(commandText, '"name": "page.outline.read"'),
      });
      const human = await run({ contract: head, base: seventh });
      expect(human.stdout).toMatch(/\[base: tools\/page\.get_outline\.tool\.json:\d+:\d+#\/x-mnote-tool\/name\]/);
    });
  });
});
