/** A seventh tool is a contract change only: the generator takes it as it is, and its output type-checks. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { contractWithSeventhTool } from "../support/fixtures";
import { GENERATED_TS, typeCheck } from "../support/tsc";

describe("a seventh tool", () => {
  const contract = contractWithSeventhTool();
  const out = join(contract, "..", "generated");

  it("generates with no change to codegen/", () => {
    const run = runCli(["generate", "--contract", contract, "--out", out], { cwd: join(out, "..") });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const registry = readFileSync(join(out, "registry.ts"), "utf8");
    expect(registry).toContain('"mnote.page.get_outline": {');
    expect(registry).toContain('providerName: "mnote_page_get_outline"');
    expect(registry).toContain('"page.outline.read": {');
    expect(readFileSync(join(out, "types.ts"), "utf8")).toMatch(/export interface PageGetOutlineResult \{/);
    expect(readFileSync(join(out, "kernel", "client.ts"), "utf8")).toContain(
      "pageOutlineRead(payload: T.PageOutlineReadPayload): Promise<T.PageOutlineReadResult>;",
    );
    expect(existsSync(join(out, "docs", "tools", "mnote.page.get_outline.md"))).toBe(true);
    // the agent-framework targets: the tool is in each one's typed list of names, and in the shared one
    for (const target of ["ai-sdk", "langchain", "openai-agents", "frameworks/connection"]) {
      const file = target.includes("/") ? `${target}.ts` : join(target, "index.ts");
      expect(readFileSync(join(out, file), "utf8")).toContain('| "mnote_page_get_outline"');
    }
  });

  it("the generated code type-checks on its own", () => {
    const result = typeCheck(join(out, ".."), GENERATED_TS, ["generated/**/*.ts"]);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });
});
