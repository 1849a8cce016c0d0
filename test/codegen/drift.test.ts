/** generate --check: exit 0 in sync; exit 1 naming stale, missing and extra files; nothing written. */
import { readFileSync, writeFileSync, unlinkSync, existsSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { scratchProject } from "../support/tmp";

function check(project: { root: string }) {
  return runCli(["generate", "--check"], { cwd: project.root });
}

describe("generate --check", () => {
  it("exits 0 when generated/ matches the contract", () => {
    const project = scratchProject();
    const run = check(project);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("up to date");
  });

  it("exits 1 after a one-byte change to a schema, naming the contract file and the stale outputs, and writes nothing", () => {
    const project = scratchProject();
    const file = join(project.contract, "tools", "artifact.create_ai_note.tool.json");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/"maxLength": 200\b/, '"maxLength": 201'));
    const before = readFileSync(join(project.generated, "validators", "index.ts"), "utf8");
    const run = check(project);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      "contract files changed since generated was generated: tools/artifact.create_ai_note.tool.json",
    );
    expect(run.stderr).toContain("stale: generated/validators/index.ts");
    expect(run.stderr).toMatch(/- .*200/);
    expect(run.stderr).toMatch(/\+ .*201/);
    expect(readFileSync(join(project.generated, "validators", "index.ts"), "utf8")).toBe(before);
  });

  it("names a missing file and an extra file (one generate wrote and no longer writes)", () => {
    const project = scratchProject();
    unlinkSync(join(project.generated, "docs", "errors.md"));
    // a tool that was removed from the contract: its page was generated, and is on the list
    writeFileSync(join(project.generated, "docs", "old-tool.md"), "left over\n");
    const list = join(project.generated, ".mnote-generated");
    writeFileSync(list, readFileSync(list, "utf8") + "docs/old-tool.md\n");
    const run = check(project);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("missing: generated/docs/errors.md");
    expect(run.stderr).toContain("extra: generated/docs/old-tool.md");
    expect(runCli(["generate", "--quiet"], { cwd: project.root }).status).toBe(0);
    expect(existsSync(join(project.generated, "docs", "old-tool.md"))).toBe(false);
    expect(check(project).status).toBe(0);
  });

  it("a file generate did not write is not drift but a refusal, as generate would refuse: exit 3 naming it", () => {
    const project = scratchProject();
    writeFileSync(join(project.generated, "docs", "my-notes.md"), "hand-written\n");
    const run = check(project);
    expect(run.status).toBe(3);
    expect(run.stderr).toContain("generate did not write");
    expect(run.stderr).toContain("generated/docs/my-notes.md");
  });

  it("generate then check is in sync again, and the write left no staging folders", () => {
    const project = scratchProject();
    const file = join(project.contract, "model", "block.schema.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"maxLength": 20000', '"maxLength": 20001'));
    expect(runCli(["generate", "--quiet"], { cwd: project.root }).status).toBe(0);
    expect(check(project).status).toBe(0);
    const leftovers = require("node:fs")
      .readdirSync(project.root)
      .filter((n: string) => n.startsWith(".generated."));
    expect(leftovers).toEqual([]);
    expect(existsSync(join(project.generated, "docs", "errors.md"))).toBe(true);
  });
});
