/** scripts/cut-release.sh, run on a scratch copy of the project. */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { readContractDir } from "../../codegen/phases/load";
import { contractDir, repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

function project(): string {
  const root = tempDir("mnote-cut-");
  mkdirSync(join(root, "scripts"));
  cpSync(join(repoRoot, "scripts", "cut-release.sh"), join(root, "scripts", "cut-release.sh"));
  cpSync(contractDir, join(root, "contract"), { recursive: true });
  return root;
}

const cut = (root: string, ...args: string[]) =>
  spawnSync("bash", [join(root, "scripts", "cut-release.sh"), ...args], { encoding: "utf8" });

function setVersion(root: string, version: string): void {
  const file = join(root, "contract", "contract.json");
  writeFileSync(file, readFileSync(file, "utf8").replace(/"version": "[^"]+"/, `"version": "${version}"`));
}

describe("scripts/cut-release.sh", () => {
  it("copies contract/ verbatim to contract-releases/<version>/", () => {
    const root = project();
    setVersion(root, "1.4.0");
    const r = cut(root, "1.4.0");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const released = join(root, "contract-releases", "1.4.0");
    expect(readContractDir(released)).toEqual(readContractDir(join(root, "contract")));
    expect(existsSync(join(released, "README.md"))).toBe(true);
  });

  it("refuses a version contract.json does not state", () => {
    const root = project();
    setVersion(root, "1.4.0");
    const r = cut(root, "1.5.0");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("contract/contract.json says version 1.4.0, not 1.5.0");
    expect(existsSync(join(root, "contract-releases", "1.5.0"))).toBe(false);
  });

  it("never overwrites a release", () => {
    const root = project();
    setVersion(root, "1.4.0");
    expect(cut(root, "1.4.0").status).toBe(0);
    const r = cut(root, "1.4.0");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("contract-releases/1.4.0 already exists");
  });

  it("refuses a version older than the newest release", () => {
    const root = project();
    setVersion(root, "1.10.0");
    expect(cut(root, "1.10.0").status).toBe(0);
    setVersion(root, "1.9.0");
    const r = cut(root, "1.9.0");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("contract-releases/1.10.0 is newer than or equal to 1.9.0");
  });

  it("refuses what is not a semantic version", () => {
    const r = cut(project(), "v1");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("not a semantic version: v1");
  });
});
