/** Reading the base side: a folder, a git ref (read with git show, no checkout), the newest release. */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { readContractDir } from "../../codegen/phases/load";
import { DiffInputError, buildSide, newestRelease, readBase } from "../../diff/load/load-base";
import { diffContracts } from "../../diff";
import { contractDir } from "../support/paths";
import { tempDir } from "../support/tmp";

const byPath = (files: Array<{ path: string; text: string }>) => [...files].sort((a, b) => (a.path < b.path ? -1 : 1));

/** A throwaway repository whose first commit holds contract/ as it is now. */
function repoWithContract(): { root: string; contract: string; git: (...args: string[]) => string } {
  const root = tempDir("mnote-diff-git-");
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", ...args],
      { cwd: root, encoding: "utf8" },
    );
  git("init", "-q");
  cpSync(contractDir, join(root, "contract"), { recursive: true });
  git("add", "contract");
  git("commit", "-q", "-m", "contract");
  git("tag", "v1");
  return { root, contract: join(root, "contract"), git };
}

describe("readBase with a folder", () => {
  it("reads every .json file of the folder, like the working contract", () => {
    const base = readBase(contractDir, contractDir);
    expect(base.label).toBe(contractDir);
    expect(byPath(base.sources)).toEqual(byPath(readContractDir(contractDir)));
  });

  it("refuses a folder without contract.json at its root", () => {
    const empty = tempDir("mnote-diff-empty-");
    expect(() => readBase(empty, contractDir)).toThrow(
      new DiffInputError(`${empty} is a folder but has no contract.json at its root`),
    );
  });
});

describe("readBase with a git ref", () => {
  it("reads contract/ as the ref has it, without touching the working tree", () => {
    const repo = repoWithContract();
    const file = join(repo.contract, "tools", "page.save.tool.json");
    const committed = readFileSync(file, "utf8");
    writeFileSync(file, committed.replace('"enum": ["replace", "append"]', '"enum": ["append"]'));

    const base = readBase("v1", repo.contract);
    expect(base.label).toBe("git:v1");
    expect(byPath(base.sources)).toEqual(byPath(readContractDir(contractDir)));
    expect(readFileSync(file, "utf8")).not.toBe(committed);
    expect(repo.git("status", "--porcelain")).toBe(" M contract/tools/page.save.tool.json\n");

    const report = diffContracts(
      buildSide(base, "base"),
      buildSide({ label: "contract", sources: readContractDir(repo.contract) }, "head"),
    );
    expect(report.changes.map((c) => [c.rule, c.level, c.subject, c.pointer])).toEqual([
      ["request-enum-narrowed", "breaking", "mnote.page.save", "/args/properties/mode/enum"],
    ]);
  });

  it("works when the contract folder is the repository root", () => {
    const root = tempDir("mnote-diff-rootrepo-");
    cpSync(contractDir, root, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
        { cwd: root },
      );
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "c");
    expect(byPath(readBase("HEAD", root).sources)).toEqual(byPath(readContractDir(contractDir)));
  });

  it("refuses what is neither a folder nor a ref, and never passes an option to git", () => {
    const repo = repoWithContract();
    expect(() => readBase("no-such-ref", repo.contract)).toThrow('not a folder and not a git ref: "no-such-ref"');
    expect(() => readBase("--output=/tmp/x", repo.contract)).toThrow(
      'not a folder and not a git ref: "--output=/tmp/x"',
    );
  });

  it("says so when contract/ did not exist at the ref", () => {
    const repo = repoWithContract();
    mkdirSync(join(repo.root, "other"));
    writeFileSync(join(repo.root, "other", "x.txt"), "x");
    repo.git("rm", "-q", "-r", "contract");
    repo.git("add", "other");
    repo.git("commit", "-q", "-m", "no contract");
    cpSync(contractDir, repo.contract, { recursive: true });
    expect(() => readBase("HEAD", repo.contract)).toThrow("contract holds no contract at HEAD");
  });
});

describe("buildSide", () => {
  it("names the side and the problem when a base does not validate", () => {
    const repo = repoWithContract();
    const file = join(repo.contract, "tools", "page.save.tool.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"maxItems": 500', '"maxItmes": 500'));
    expect(() => buildSide(readBase(repo.contract, repo.contract), "base")).toThrow(
      /^the base contract \(.*\) does not validate: invalid contract: tools\/page\.save\.tool\.json:\d+:\d+ at \/\$defs\/Args\/properties\/content\/maxItmes: unknown keyword "maxItmes"/,
    );
  });
});

describe("newestRelease", () => {
  it("picks the newest version folder in semver order and ignores everything else", () => {
    const dir = tempDir("mnote-releases-");
    for (const name of ["1.2.0", "1.10.0", "1.9.3", "2.0.0-rc.1", "notes", "3.0"]) mkdirSync(join(dir, name));
    writeFileSync(join(dir, "9.9.9"), "a file, not a release");
    expect(newestRelease(dir)).toBe(join(dir, "2.0.0-rc.1"));
    mkdirSync(join(dir, "2.0.0"));
    expect(newestRelease(dir)).toBe(join(dir, "2.0.0"));
  });

  it("is null without releases", () => {
    expect(newestRelease(join(tempDir(), "missing"))).toBeNull();
    expect(newestRelease(tempDir())).toBeNull();
  });
});
