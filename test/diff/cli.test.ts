/**
 * runDiff, the `mnote-tools diff` verb, in process: output formats, exit codes, and the default
 * base (the newest folder in the releases folder).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runDiff, type DiffOptions } from "../../cli/commands/diff";
import { CliExit } from "../../cli/exit";
import { contractWith } from "../support/fixtures";
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
const narrowed = () => withVersion(contractWith(SAVE, saveText.replace('"enum": ["replace", "append"]', '"enum": ["append"]')), "1.0.0");

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
    expect(r.stdout).toContain("[tools/page.save.tool.json#/$defs/Args/properties/mode/enum]");
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
    expect(r.stderr).toMatch(/^the base contract \(.*\) does not validate: invalid contract: tools\/page\.save\.tool\.json/);
  });

  it("exits 2 on an unknown format", async () => {
    const r = await run({ contract: contractDir, format: "yaml" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--format must be human or json");
  });

  it("the working contract does not break the newest release in contract-releases/ (the CI check)", async () => {
    const r = await run({ contract: contractDir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});
