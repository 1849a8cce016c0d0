/**
 * Facts targets and the kernel read from the contract are checked like any contract rule: the
 * agent guide's roles (x-mnote-tool guideRole), named limits (x-mnote-limit) and string cuts
 * (x-mnote-truncate). A missing or inconsistent one stops generation with file:line:col.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readContractDir } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import { ContractError, formatProblem } from "../../codegen/contract-error";
import { contractDir, runCli } from "../support/paths";
import { contractWith } from "../support/fixtures";

const original = (path: string) => readFileSync(join(contractDir, path), "utf8");
const edit = (path: string, from: string, to: string) => {
  const text = original(path);
  if (!text.includes(from)) throw new Error(`fixture: ${from} not in ${path}`);
  return contractWith(path, text.replace(from, to));
};

function problemsOf(dir: string): string[] {
  try {
    buildModel(readContractDir(dir));
  } catch (e) {
    if (e instanceof ContractError) return e.problems.map(formatProblem);
    throw e;
  }
  throw new Error("the contract was accepted");
}

const lineOf = (path: string, needle: string) =>
  original(path)
    .split("\n")
    .findIndex((l) => l.includes(needle)) + 1;

describe("guide roles: the Hermes guide asks the contract which tool plays each role", () => {
  it("a role no tool holds is a contract error at the role list, with line and column, and nothing is generated", () => {
    const dir = edit("tools/artifact.create_summary.tool.json", ',\n    "guideRole": "summary"', "");
    const problems = problemsOf(dir);
    const line = lineOf("meta/keywords.schema.json", '"enum": ["read", "body_write", "summary", "note"]');
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^meta/keywords\\.schema\\.json:${line}:\\d+ at /\\$defs/x-mnote-tool/properties/guideRole/enum: no tool has guideRole "summary"`,
        ),
      ),
    ]);
    const run = runCli(["generate", "--contract", dir, "--out", join(dir, "..", "out"), "--quiet"], {
      cwd: join(dir, ".."),
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('no tool has guideRole "summary"');
  });

  it("a role held by two tools names the later one (in name order) and the role left without a tool", () => {
    const problems = problemsOf(
      edit("tools/artifact.create_ai_note.tool.json", '"guideRole": "note"', '"guideRole": "summary"'),
    );
    const line = lineOf("tools/artifact.create_summary.tool.json", '"guideRole"');
    expect(problems).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^tools/artifact\\.create_summary\\.tool\\.json:${line}:\\d+ at /x-mnote-tool/guideRole: guideRole "summary" is already mnote\\.artifact\\.create_ai_note's`,
        ),
      ),
    );
    expect(problems).toContainEqual(expect.stringContaining('no tool has guideRole "note"'));
  });

  it("an unknown role is refused by the meta-schema", () => {
    const problems = problemsOf(edit("tools/page.get.tool.json", '"guideRole": "read"', '"guideRole": "reader"'));
    expect(problems.join("\n")).toMatch(
      /tools\/page\.get\.tool\.json:\d+:\d+ at \/x-mnote-tool\/guideRole: must be equal to one of the allowed values/,
    );
  });

  it("the generated guide names the tools the contract assigns, whatever their names", () => {
    const skill = readFileSync(join(contractDir, "..", "generated", "hermes-plugin", "mnote", "SKILL.md"), "utf8");
    expect(skill).toContain("Call `mnote_page_get` first");
    expect(skill).toContain("`mnote_page_save` appends by default");
    expect(skill).toContain("`mnote_artifact_create_summary` keeps **one** summary");
    expect(skill).toContain("`mnote_artifact_create_ai_note` creates a **new, separate** note");
  });
});

describe("named limits and cuts", () => {
  it("a limit on a schema with no maximum names the problem", () => {
    const problems = problemsOf(edit("tools/page.get.tool.json", '"maxItems": 2000,', ""));
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^tools\/page\.get\.tool\.json:\d+:\d+ at \/\$defs\/Result\/properties\/blocks\/x-mnote-limit: limit "pageBlocks" names no number/,
      ),
    );
  });

  it("a cut whose maxLength does not hold the cut text plus its marker names the numbers", () => {
    const problems = problemsOf(edit("tools/page.get.tool.json", '"maxLength": 203,', '"maxLength": 200,'));
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^tools\/page\.get\.tool\.json:\d+:\d+ at \/\$defs\/Result\/properties\/bodySummary\/x-mnote-truncate: maxLength must be 203/,
      ),
    );
  });
});

describe("message placeholders: a catalog message names the error's own fields", () => {
  it("a placeholder that names no field of ToolError is a contract error at the message, with line and column", () => {
    const dir = edit(
      "catalog/errors.schema.json",
      '"en": "Too many calls of this tool in this session; wait {retryAfterSeconds} seconds, do not loop"',
      '"en": "Too many calls of this tool in this session; wait {retryAfter} seconds, do not loop"',
    );
    const problems = problemsOf(dir);
    expect(problems).toEqual([
      expect.stringMatching(
        /^catalog\/errors\.schema\.json:\d+:\d+ at \/\$defs\/ErrorCode\/oneOf\/\d+\/x-mnote-error\/reasons\/session\/en: \{retryAfter\} names no field of the error \(ToolError's string or number fields: .*retryAfterSeconds/,
      ),
    ]);
  });

  it("the rate-limited messages name error.retryAfterSeconds, and the registry states the longest wait", () => {
    const { errorCatalog, ERR, limits } = jest.requireActual("../../generated/registry");
    const texts = [
      ...Object.values(errorCatalog[ERR.rateLimited].messages),
      ...Object.values(errorCatalog[ERR.rateLimited].reasons).flatMap((m) => Object.values(m as object)),
    ] as string[];
    for (const text of texts) expect(text).toContain("{retryAfterSeconds}");
    expect(limits.retryAfterSeconds).toBe(86400);
  });
});
