/** A malformed contract stops generation with a message naming the file, the JSON pointer and, where known, line and column. */
import { readFileSync, unlinkSync } from "node:fs";
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

const TOOL = "tools/page.save.tool.json";

describe("contract errors", () => {
  it("a JSON syntax error names the file, line and column", () => {
    const text = original(TOOL).replace('"effect": "write",', '"effect": "write",,');
    const line = text.split("\n").findIndex((l) => l.includes('"effect": "write",,')) + 1;
    const problems = problemsOf(contractWith(TOOL, text));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(`^tools/page\\.save\\.tool\\.json:${line}:\\d+ at \\(root\\): JSON syntax error`),
    );
  });

  it("a duplicate key is a syntax error, not a silent overwrite", () => {
    const problems = problemsOf(edit(TOOL, '"effect": "write",', '"effect": "write", "effect": "read",'));
    expect(problems[0]).toMatch(/tools\/page\.save\.tool\.json:\d+:\d+ .*duplicate key "effect"/);
  });

  it("a descriptor field with a bad value names the pointer and its line", () => {
    const text = original(TOOL);
    const line = text.split("\n").findIndex((l) => l.includes('"effect": "write"')) + 1;
    const problems = problemsOf(contractWith(TOOL, text.replace('"effect": "write"', '"effect": "delete"')));
    expect(problems).toContainEqual(
      expect.stringMatching(new RegExp(`^tools/page\\.save\\.tool\\.json:${line}:\\d+ at /x-mnote-tool/effect: `)),
    );
  });

  it("a missing descriptor field is named", () => {
    const problems = problemsOf(edit(TOOL, '"kernelCommand": "page.body.save",', ""));
    expect(problems.join("\n")).toContain('at /x-mnote-tool/kernelCommand: missing required property "kernelCommand"');
  });

  it("a write tool that does not require an idempotency key is refused", () => {
    const problems = problemsOf(edit(TOOL, '"idempotency": "required"', '"idempotency": "none"'));
    expect(problems.join("\n")).toContain('at /x-mnote-tool/idempotency: must be "required"');
  });

  it("an unknown keyword (a typo) is named with its pointer", () => {
    const problems = problemsOf(edit("model/block.schema.json", '"maxLength": 20000', '"maxLenght": 20000'));
    expect(problems).toEqual([
      expect.stringMatching(
        /^model\/block\.schema\.json:\d+:\d+ at \/\$defs\/BlockText\/maxLenght: unknown keyword "maxLenght"/,
      ),
    ]);
  });

  it("an unknown vendor keyword is refused, and a vendor keyword with a bad value too", () => {
    expect(
      problemsOf(
        edit(
          "model/page-options.schema.json",
          '"x-mnote-runtimeSupport": "planned"',
          '"x-mnote-runtimeSuport": "planned"',
        ),
      ).join("\n"),
    ).toContain(
      'at /$defs/PageOptions/properties/showToc/x-mnote-runtimeSuport: unknown keyword "x-mnote-runtimeSuport" (vendor keywords are x-mnote-*)',
    );
    expect(
      problemsOf(
        edit(
          "model/page-options.schema.json",
          '"x-mnote-runtimeSupport": "planned"',
          '"x-mnote-runtimeSupport": "soon"',
        ),
      ).join("\n"),
    ).toContain(
      "at /$defs/PageOptions/properties/showToc/x-mnote-runtimeSupport: must be equal to one of the allowed values",
    );
  });

  it("keywords json-schema-to-typescript cannot express are refused", () => {
    const problems = problemsOf(
      edit("model/block.schema.json", '"maxLength": 20000', '"maxLength": 20000, "unevaluatedProperties": false'),
    );
    expect(problems.join("\n")).toContain(
      'at /$defs/BlockText/unevaluatedProperties: keyword "unevaluatedProperties" is not allowed',
    );
  });

  it("a $ref to a definition that does not exist is named", () => {
    const problems = problemsOf(edit(TOOL, "#/$defs/ContentBlockInput", "#/$defs/ContentBlockInputs"));
    expect(problems.join("\n")).toMatch(
      /at \/\$defs\/Args\/properties\/content\/items\/\$ref: ".*ContentBlockInputs" points to a definition that does not exist/,
    );
  });

  it("an absolute $ref is refused (the contract resolves offline)", () => {
    const problems = problemsOf(
      edit(TOOL, '"../model/block.schema.json#/$defs/ContentBlockInput"', '"https://example.com/block.json#/$defs/X"'),
    );
    expect(problems.join("\n")).toContain("must be a relative reference");
  });

  it("an $id that does not mirror the path is named", () => {
    const problems = problemsOf(edit(TOOL, 'tools/page.save.tool.json"', 'tools/page_save.tool.json"'));
    expect(problems.join("\n")).toContain('at /$id: must be "https://mnote.dev/contract/tools/page.save.tool.json"');
  });

  it("an unknown capability and an unknown kernel command are named", () => {
    expect(problemsOf(edit(TOOL, '"capability": "page.write"', '"capability": "page.admin"')).join("\n")).toContain(
      'at /x-mnote-tool/capability: unknown capability "page.admin"',
    );
    expect(
      problemsOf(edit(TOOL, '"kernelCommand": "page.body.save"', '"kernelCommand": "page.body.put"')).join("\n"),
    ).toContain('at /x-mnote-tool/kernelCommand: no kernel command "page.body.put"');
  });

  it("an example that does not match its schema is named down to the offending value", () => {
    const problems = problemsOf(edit(TOOL, '"revision": 8', '"revision": "8"'));
    expect(problems.join("\n")).toMatch(
      /tools\/page\.save\.tool\.json:\d+:\d+ at \/x-mnote-examples\/0\/value\/result.*: example "success" is not a valid PageSaveResponse/,
    );
  });

  it("a file in the wrong place is named", () => {
    const problems = problemsOf(contractWith("tools/notes.json", "{}"));
    expect(problems.join("\n")).toContain("tools/notes.json:1:1 at (root): unexpected file");
  });

  it("through the CLI: exit 2 and the message on stderr, nothing written", () => {
    const dir = edit(TOOL, '"effect": "write"', '"effect": "delete"');
    const run = runCli(["generate", "--contract", dir, "--out", join(dir, "..", "out")], { cwd: join(dir, "..") });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/tools\/page\.save\.tool\.json:\d+:\d+ at \/x-mnote-tool\/effect/);
    expect(() => readFileSync(join(dir, "..", "out", "types.ts"))).toThrow();
  });

  it("a missing manifest is named", () => {
    const dir = contractWith("contract.json", "{}");
    unlinkSync(join(dir, "contract.json"));
    expect(problemsOf(dir)).toEqual([expect.stringContaining("contract.json at (root): missing")]);
  });
});
