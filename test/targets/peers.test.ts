/**
 * The framework subpaths' peers admit the frameworks' current majors, as this repository installs
 * and tests them (issue 29): before, `peerOptional ai@"^6.0.0"` made `npm install ai@7` beside the
 * package fail with ERESOLVE. And the package says which Node it needs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require("semver") as { satisfies(version: string, range: string): boolean };
import { repoRoot } from "../support/paths";

const json = (path: string) => JSON.parse(readFileSync(join(repoRoot, path), "utf8")) as Record<string, any>;

describe("the framework peers of @mnote/contract", () => {
  const manifest = json("generated/package.json");
  it.each(["ai", "@langchain/core", "@openai/agents"])(
    "%s: the installed (tested) version is in the peer range",
    (name) => {
      const installed = json(`node_modules/${name}/package.json`).version as string;
      expect([name, installed, semver.satisfies(installed, manifest.peerDependencies[name])]).toEqual([
        name,
        installed,
        true,
      ]);
      expect(manifest.peerDependenciesMeta[name]).toEqual({ optional: true });
    },
  );

  it("the current majors only: ai 7, @langchain/core 1.4+, @openai/agents 0.20+; Node 22 or later", () => {
    expect(semver.satisfies("6.0.333", manifest.peerDependencies.ai)).toBe(false);
    expect(semver.satisfies("0.14.3", manifest.peerDependencies["@openai/agents"])).toBe(false);
    expect(manifest.engines.node).toBe(">=22");
    expect(json("package.json").engines.node).toBe(">=22");
  });
});
