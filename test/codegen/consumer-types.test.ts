/**
 * The package as a plugin author gets it: a project that depends on it by name (node_modules link),
 * resolved through package.json "exports" to the compiled .d.ts files, type-checks the fixture.
 */
import { copyFileSync, mkdirSync, symlinkSync, existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import { typeCheck } from "../support/tsc";

describe("importing the package as an outside author", () => {
  it("dist/ holds the compiled types (npm ci builds them)", () => {
    expect(existsSync(join(repoRoot, "dist", "generated", "index.d.ts"))).toBe(true);
  });

  it("the consumer fixture type-checks against the package's exports", () => {
    const project = tempDir("mnote-consumer-");
    mkdirSync(join(project, "node_modules"));
    symlinkSync(repoRoot, join(project, "node_modules", "mnote-tools"), "dir");
    copyFileSync(join(repoRoot, "test", "fixtures", "consumer", "consumer.ts"), join(project, "consumer.ts"));
    const result = typeCheck(project, { module: "node16", moduleResolution: "node16" }, ["consumer.ts"]);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });
});
