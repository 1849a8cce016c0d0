/**
 * generate --out on another file system (issue 47): an output folder that is itself a mounted
 * volume has its work folders beside it on the parent's file system, so a rename between them fails
 * with EXDEV. The write then copies to a temporary name beside the target and renames that (one
 * step for a reader), and reports what it changed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { move, writeOutput } from "../../codegen/phases/write";
import { ownedListFile } from "../../codegen/phases/ownership";
import { OWNED_LIST } from "../../codegen/support/output-path";
import { writeSummary } from "../../cli/commands/generate";
import { contractDir, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";

const exdev = (): never => {
  throw Object.assign(new Error("EXDEV: cross-device link not permitted"), { code: "EXDEV" });
};

describe("move", () => {
  it("renames when it can; on EXDEV copies beside the target, renames over it, removes the source", () => {
    const dir = tempDir("mnote-move-");
    mkdirSync(join(dir, "out"));
    writeFileSync(join(dir, "staged"), "new\n");
    writeFileSync(join(dir, "out", "a.txt"), "old\n");
    move(join(dir, "staged"), join(dir, "out", "a.txt"), exdev);
    expect(readFileSync(join(dir, "out", "a.txt"), "utf8")).toBe("new\n");
    expect(existsSync(join(dir, "staged"))).toBe(false);
    expect(readdirSync(join(dir, "out"))).toEqual(["a.txt"]); // no temporary file left
  });

  it("any other error is thrown as it is, and nothing is copied", () => {
    const dir = tempDir("mnote-move-");
    writeFileSync(join(dir, "staged"), "new\n");
    const denied = () => {
      throw Object.assign(new Error("EACCES"), { code: "EACCES" });
    };
    expect(() => move(join(dir, "staged"), join(dir, "a.txt"), denied)).toThrow("EACCES");
    expect(readdirSync(dir)).toEqual(["staged"]);
  });
});

describe("writeOutput reports what it changed", () => {
  const files = (texts: Record<string, string>) => {
    const list = Object.keys(texts);
    return [...list.map((path) => ({ path, content: texts[path]! })), ownedListFile("#", list)];
  };

  it("the files written and removed; nothing when the folder already holds the same", () => {
    const out = join(tempDir("mnote-report-"), "out");
    expect(writeOutput(out, files({ "a.txt": "a\n", "b.txt": "b\n" }))).toEqual({
      written: ["a.txt", "b.txt"],
      removed: [],
    });
    expect(writeOutput(out, files({ "a.txt": "a\n", "b.txt": "b\n" }))).toEqual({ written: [], removed: [] });
    expect(writeOutput(out, files({ "a.txt": "a2\n" }))).toEqual({ written: ["a.txt"], removed: ["b.txt"] });
    expect(readFileSync(join(out, "a.txt"), "utf8")).toBe("a2\n");
    expect(existsSync(join(out, "b.txt"))).toBe(false);
    expect(readFileSync(join(out, OWNED_LIST), "utf8")).toContain("a.txt");
  });

  it("says it in one line, naming at most five files", () => {
    expect(writeSummary({ written: [], removed: [] }, 48, "out", "c 1.0.0")).toBe(
      "out is up to date with contract c 1.0.0 (48 files; nothing written)",
    );
    expect(writeSummary({ written: ["a", "b"], removed: ["c"] }, 48, "out", "c 1.0.0")).toBe(
      "out: 2 of 48 files written, 1 removed (a, b, removed c) from contract c 1.0.0",
    );
    const many = writeSummary({ written: ["1", "2", "3", "4", "5", "6", "7"], removed: [] }, 9, "o", "c 1");
    expect(many).toBe("o: 7 of 9 files written (1, 2, 3, 4, 5, and 2 more) from contract c 1");
  });

  it("generate run twice: the second run says nothing was written", () => {
    const project = tempDir("mnote-report-cli-");
    const first = runCli(["generate", "--contract", contractDir, "--out", "out", "--no-cache"], { cwd: project });
    expect([first.status, first.stderr]).toEqual([0, ""]);
    expect(first.stdout).toMatch(/^out: \d+ of \d+ files written \(LICENSE, /);
    const again = runCli(["generate", "--contract", contractDir, "--out", "out", "--no-cache"], { cwd: project });
    expect(again.stdout).toMatch(/^out is up to date with contract .* \(\d+ files; nothing written\)/);
  });
});

/**
 * A real second file system: a tmpfs mounted on the output folder. Needs the right to mount (root
 * with CAP_SYS_ADMIN); skipped with the reason elsewhere, where the simulated EXDEV above stands in.
 */
function canMount(): string | undefined {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return "skipped: mounting a tmpfs needs root on Linux";
  const probe = join(tempDir("mnote-mount-probe-"), "m");
  mkdirSync(probe);
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]);
  if (mounted.status !== 0) return `skipped: mount -t tmpfs is not allowed here (${String(mounted.stderr).trim()})`;
  spawnSync("umount", [probe]);
  return undefined;
}
const mountSkip = canMount();

(mountSkip ? it.skip : it)(
  `generate --out a mounted volume (EXDEV between it and its parent) writes everything, then is up to date${mountSkip ? ` (${mountSkip})` : ""}`,
  () => {
    const project = tempDir("mnote-exdev-");
    const out = join(project, "out");
    mkdirSync(out);
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", out]).status).toBe(0);
    try {
      const run = runCli(["generate", "--contract", contractDir, "--out", "out", "--no-cache"], { cwd: project });
      expect([run.status, run.stderr]).toEqual([0, ""]);
      expect(readdirSync(out)).toEqual(expect.arrayContaining([OWNED_LIST, "README.md"]));
      // nothing left behind: no temporary file in the volume, no work folder beside it
      expect(readdirSync(out).filter((n) => n.includes("mnote-partial"))).toEqual([]);
      expect(readdirSync(project)).toEqual(["out"]);
      const check = runCli(["generate", "--contract", contractDir, "--out", "out", "--check"], { cwd: project });
      expect(check.status).toBe(0);
      // a changed file is replaced across the volume too
      writeFileSync(join(out, "README.md"), "edited\n");
      const again = runCli(["generate", "--contract", contractDir, "--out", "out", "--no-cache"], { cwd: project });
      expect(again.stdout).toMatch(/^out: 1 of \d+ files written \(README\.md\)/);
    } finally {
      spawnSync("umount", [out]);
    }
  },
  120_000,
);
