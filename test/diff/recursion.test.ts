/**
 * A recursive definition (test/fixtures/recursive-outline: a heading tree) generates, checks,
 * validates and diffs: it used to crash both `generate` and `diff` with exit 70.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { contractDir, repoRoot, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";
import { readContractDir } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import { GENERATED_TS, typeCheck } from "../support/tsc";

const fixture = join(repoRoot, "test", "fixtures", "recursive-outline");

function contractWithTree(): string {
  const dir = join(tempDir("mnote-recursive-"), "contract");
  cpSync(contractDir, dir, { recursive: true });
  for (const sub of ["tools", "kernel", "model"]) cpSync(join(fixture, sub), join(dir, sub), { recursive: true });
  return dir;
}

describe("a recursive definition", () => {
  const contract = contractWithTree();
  const out = join(contract, "..", "generated");

  it("generates a recursive TS type, and generate --check agrees", () => {
    const run = runCli(["generate", "--contract", contract, "--out", out], { cwd: join(out, "..") });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const types = readFileSync(join(out, "types.ts"), "utf8");
    expect(types).toMatch(/export interface OutlineNode \{[^}]*children: OutlineNode\[\]/s);
    const check = runCli(["generate", "--contract", contract, "--out", out, "--check"], { cwd: join(out, "..") });
    expect(check.status).toBe(0);
  });

  it("the generated code type-checks on its own", () => {
    const result = typeCheck(join(out, ".."), GENERATED_TS, ["generated/**/*.ts"]);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("the self-contained response schema keeps the recursion in $defs and validates every level", () => {
    const model = buildModel(readContractDir(contract));
    const tool = model.tools.find((t) => t.name === "mnote.page.get_tree")!;
    const schema = tool.responseSchema as Record<string, unknown>;
    expect(Object.keys(schema.$defs as object)).toEqual(["OutlineNode"]);
    // with the formats the response schema uses (an approval challenge's expiresAt is a date-time)
    const validate = addFormats(new Ajv2020({ strict: false, allErrors: true })).compile(schema);
    const envelope = (tree: unknown) => ({
      ok: true,
      toolName: "mnote.page.get_tree",
      toolCallId: "call_1",
      traceId: "trace_1",
      result: { documentId: "doc_1", tree },
      audit: { effect: "read", commandId: null, workspaceId: "ws_1", documentId: "doc_1" },
      error: null,
    });
    const leaf = (text: unknown) => ({ text, children: [] });
    expect(validate(envelope([{ text: "A", children: [{ text: "A.1", children: [leaf("A.1.a")] }] }]))).toBe(true);
    // The bad node is three levels down: only a real recursive check finds it.
    expect(validate(envelope([{ text: "A", children: [{ text: "A.1", children: [leaf(42)] }] }]))).toBe(false);
  });

  it("diffs without looping: the new tool is safe, an edit inside the recursion is found", () => {
    const added = runCli(["diff", "--contract", contract, "--base", contractDir, "--format", "json"]);
    expect(added.stderr).toBe("");
    expect(added.status).toBe(0);
    expect(
      JSON.parse(added.stdout)
        .changes.map((c: { rule: string }) => c.rule)
        .sort(),
    ).toEqual(["export-added", "kernel-command-added", "tool-added"]);

    const edited = join(tempDir("mnote-recursive-edit-"), "contract");
    cpSync(contract, edited, { recursive: true });
    const file = join(edited, "model", "outline.schema.json");
    const json = JSON.parse(readFileSync(file, "utf8"));
    json.$defs.OutlineNode.properties.text.maxLength = 400;
    writeFileSync(file, JSON.stringify(json, null, 2));
    const run = runCli(["diff", "--contract", edited, "--base", contract, "--format", "json"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(1);
    const changes = JSON.parse(run.stdout).changes as Array<{ rule: string; subject: string; file: string }>;
    expect(changes.map((c) => [c.rule, c.subject, c.file])).toEqual([
      ["response-constraint-loosened", "mnote.page.get_tree", "model/outline.schema.json"],
    ]);
  });

  it("validate refuses a definition that refers to itself without a property or item between, with file:line:col", () => {
    const bad = join(tempDir("mnote-recursive-bad-"), "contract");
    cpSync(contract, bad, { recursive: true });
    const file = join(bad, "model", "outline.schema.json");
    const json = JSON.parse(readFileSync(file, "utf8"));
    json.$defs.Loop = { anyOf: [{ $ref: "#/$defs/Loop" }, { type: "string" }] };
    writeFileSync(file, JSON.stringify(json, null, 2));
    const line =
      readFileSync(file, "utf8")
        .split("\n")
        .findIndex((l) => l.includes('"$ref": "#/$defs/Loop"')) + 1;
    const run = runCli(["generate", "--contract", bad, "--out", join(bad, "..", "generated"), "--check"], {
      cwd: join(bad, ".."),
    });
    expect(run.status).not.toBe(0);
    expect(run.status).not.toBe(70);
    expect(run.stderr).toContain(`model/outline.schema.json:${line}:`);
    expect(run.stderr).toContain(
      "/$defs/Loop/anyOf/0/$ref: recursive $ref to /$defs/Loop that passes through no property or item",
    );
  });
});
