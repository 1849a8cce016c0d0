/**
 * The contract package as a plugin author's project sees it, quickly: a project that depends on
 * @mnote/contract (here a link to the repo's generated/, built by `npm run build`) type-checks and
 * runs the consumer fixture as ESM and as CommonJS, with node16 and with bundler resolution.
 * test/package/pack-install.test.ts does the same from the packed tarball.
 */
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { generatedDir, repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import { contract } from "../../generated/registry";
import { addConsumerFiles, compileConsumer, readJson, runConsumer } from "../support/consumer";

describe("importing @mnote/contract as an outside author", () => {
  const project = tempDir("mnote-consumer-");
  mkdirSync(join(project, "node_modules", "@mnote"), { recursive: true });
  symlinkSync(generatedDir, join(project, "node_modules", "@mnote", "contract"), "dir");
  addConsumerFiles(project);

  it("generated/ is the package and holds its CommonJS build (npm ci builds it)", () => {
    const pkg = readJson<{ name: string; version: string; dependencies?: unknown }>(join(generatedDir, "package.json"));
    expect(pkg.name).toBe("@mnote/contract");
    expect(pkg.version).toBe(readJson<{ version: string }>(join(repoRoot, "contract", "contract.json")).version);
    expect(pkg.dependencies).toBeUndefined();
    expect(existsSync(join(generatedDir, "dist", "cjs", "index.d.ts"))).toBe(true);
    expect(existsSync(join(generatedDir, "dist", "cjs", "index.js"))).toBe(true);
  });

  it("the root package depends on exactly the contract package's version", () => {
    const root = readJson<{ dependencies: Record<string, string>; workspaces: string[] }>(
      join(repoRoot, "package.json"),
    );
    // the contract package, the runtime and the diff (docs/PACKAGES.md)
    expect(root.workspaces).toEqual(["generated", "runtime", "diff"]);
    expect(root.dependencies["@mnote/contract"]).toBe(
      readJson<{ version: string }>(join(generatedDir, "package.json")).version,
    );
  });

  it("the consumer fixture type-checks with bundler resolution", () => {
    const result = compileConsumer(project, { module: "esnext", moduleResolution: "bundler" }, ["consumer.mts"]);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("with node16 resolution it type-checks, compiles, and runs as ESM and as CommonJS", () => {
    const compiled = compileConsumer(
      project,
      { module: "node16", moduleResolution: "node16" },
      ["consumer.mts", "consumer.cts"],
      "out",
    );
    expect(compiled.output).toBe("");
    expect(compiled.status).toBe(0);
    const expected = {
      valid: true,
      invalid: false,
      providerName: "mnote_page_save",
      version: contract.version,
      refusal: true,
    };
    expect(runConsumer(join(project, "out", "consumer.mjs"), project)).toEqual({ module: "esm", ...expected });
    expect(runConsumer(join(project, "out", "consumer.cjs"), project)).toEqual({ module: "commonjs", ...expected });
  });
});
