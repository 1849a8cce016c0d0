/**
 * The write phase in process (it needs no generator): owned files are replaced and stale ones
 * deleted; a failure half way through putting files in place is undone, leaving the folder, and
 * the folder around it, exactly as they were.
 */
import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { writeOutput } from "../../codegen/phases/write";
import { WORK_MARKER } from "../../codegen/phases/work-folders";
import { checkOutput, inSync } from "../../codegen/phases/check";
import { checkOutputFolders } from "../../codegen/output-folders";
import { outputPathProblem } from "../../codegen/support/output-path";
import { ownedListFile } from "../../codegen/phases/ownership";
import { ConfigError } from "../../codegen/config-error";
import type { GeneratedFile } from "../../codegen/targets/target";
import { tempDir } from "../support/tmp";
import { treeState } from "../support/tree";

/** Files with their ownership list, as emit gives them. */
function withList(files: Record<string, string>): GeneratedFile[] {
  const list = Object.entries(files).map(([path, content]) => ({ path, content }));
  return [...list, ownedListFile("# test banner", Object.keys(files))];
}

describe("writeOutput", () => {
  it("replaces its own files, deletes stale ones, and keeps what it does not own in kept places", () => {
    const parent = tempDir("mnote-write-");
    const out = join(parent, "out");
    writeOutput(out, withList({ "a.txt": "a1\n", "old/x.txt": "x1\n" }));
    mkdirSync(join(out, "dist"));
    writeFileSync(join(out, "dist", "built.js"), "built\n");
    writeOutput(out, withList({ "a.txt": "a2\n", old: "now a file\n" }));
    expect(readFileSync(join(out, "a.txt"), "utf8")).toBe("a2\n");
    expect(readFileSync(join(out, "old"), "utf8")).toBe("now a file\n");
    expect(Object.keys(treeState(parent)).sort()).toEqual([
      "out",
      "out/.mnote-generated",
      "out/a.txt",
      "out/dist",
      "out/dist/built.js",
      "out/old",
    ]);
  });

  it("a failure while putting files in place leaves the folder as it was, stale files and old list included", () => {
    const parent = tempDir("mnote-write-");
    const out = join(parent, "out");
    writeOutput(out, withList({ "a.txt": "a1\n", "b/one.txt": "one\n", "c.txt": "c1\n" }));
    // a cache folder (kept, not foreign) stands where the next run puts a file: the rename fails
    // after a.txt and b are already in place
    mkdirSync(join(out, "z", "__pycache__"), { recursive: true });
    writeFileSync(join(out, "z", "__pycache__", "m.pyc"), "cache\n");
    const before = treeState(parent);
    expect(() => writeOutput(out, withList({ "a.txt": "a2\n", b: "b as a file\n", "d.txt": "d\n", z: "z\n" }))).toThrow(
      /EISDIR|EEXIST|ENOTEMPTY|EPERM/,
    );
    expect(treeState(parent)).toEqual(before);
  });

  it("refuses, writing nothing, when the folder holds a file it does not own", () => {
    const parent = tempDir("mnote-write-");
    const out = join(parent, "out");
    writeOutput(out, withList({ "a.txt": "a1\n" }));
    writeFileSync(join(out, "mine.txt"), "hand-written\n");
    const before = treeState(parent);
    expect(() => writeOutput(out, withList({ "a.txt": "a2\n" }), "out")).toThrow(ConfigError);
    expect(() => writeOutput(out, withList({ "a.txt": "a2\n" }), "out")).toThrow(
      "output folder out holds a file generate did not write (not on its list out/.mnote-generated): out/mine.txt",
    );
    expect(treeState(parent)).toEqual(before);
  });
});

describe("writeOutput: work folders beside the output folder", () => {
  it("leaves a .<out>.staging-N-N or .<out>.retired-N-N it did not make, and removes the ones a dead run left", () => {
    const parent = tempDir("mnote-write-");
    const out = join(parent, "out");
    writeOutput(out, withList({ "a.txt": "a1\n" }));
    // someone else's: a folder without generate's marker, a file, a symlink to a folder
    mkdirSync(join(parent, ".out.staging-1-1"));
    writeFileSync(join(parent, ".out.staging-1-1", "keep.txt"), "mine\n");
    writeFileSync(join(parent, ".out.retired-2-2"), "a file of mine\n");
    mkdirSync(join(parent, "elsewhere"));
    writeFileSync(join(parent, "elsewhere", "precious.txt"), "precious\n");
    symlinkSync(join(parent, "elsewhere"), join(parent, ".out.retired-3-3"));
    // a marked folder whose maker still runs (this test's parent process): another generate at work
    mkdirSync(join(parent, ".out.staging-4-4"));
    writeFileSync(join(parent, ".out.staging-4-4", WORK_MARKER), `${process.ppid}\n`);
    // a marked folder whose maker is gone: a run that was killed half way
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    mkdirSync(join(parent, ".out.retired-5-5"));
    writeFileSync(join(parent, ".out.retired-5-5", WORK_MARKER), `${dead}\n`);
    writeFileSync(join(parent, ".out.retired-5-5", "a.txt"), "a0\n");

    writeOutput(out, withList({ "a.txt": "a2\n" }));
    expect(readFileSync(join(out, "a.txt"), "utf8")).toBe("a2\n");
    expect(readdirSync(parent).sort()).toEqual([
      ".out.retired-2-2",
      ".out.retired-3-3",
      ".out.staging-1-1",
      ".out.staging-4-4",
      "elsewhere",
      "out",
    ]);
    expect(readFileSync(join(parent, ".out.staging-1-1", "keep.txt"), "utf8")).toBe("mine\n");
    expect(readFileSync(join(parent, "elsewhere", "precious.txt"), "utf8")).toBe("precious\n");
  });
});

describe("writeOutput: the folder and its names", () => {
  it("writes a symlinked output folder inside the project where it leads (docs/GENERATOR-CONFIG.md)", () => {
    const project = realpathSync(tempDir("mnote-write-"));
    mkdirSync(join(project, "real-out"));
    symlinkSync(join(project, "real-out"), join(project, "out"));
    const out = join(project, "out");
    expect(() => checkOutputFolders([out], { project, contract: join(project, "contract") }, "config")).not.toThrow();
    writeOutput(out, withList({ "a.txt": "a1\n" }));
    writeOutput(out, withList({ "a.txt": "a2\n", "b/c.txt": "c\n" }));
    expect(readFileSync(join(project, "real-out", "a.txt"), "utf8")).toBe("a2\n");
    expect(readFileSync(join(project, "real-out", "b", "c.txt"), "utf8")).toBe("c\n");
    expect(lstatSync(out).isSymbolicLink()).toBe(true);
    expect(inSync(checkOutput(out, withList({ "a.txt": "a2\n", "b/c.txt": "c\n" })))).toBe(true);
  });

  it("a listed file whose name on disk is not UTF-8 is deleted as stale, and the next run takes the folder", () => {
    const parent = tempDir("mnote-write-");
    const out = join(parent, "out");
    writeOutput(out, withList({ "a.txt": "a1\n" }));
    // c<0xff>.txt reads as c\uFFFD.txt, which is what a list naming it says
    writeFileSync(Buffer.from(`${out}/c\xff.txt`, "latin1"), "odd\n");
    writeFileSync(join(out, ".mnote-generated"), readFileSync(join(out, ".mnote-generated"), "utf8") + "c\uFFFD.txt\n");
    expect(checkOutput(out, withList({ "a.txt": "a1\n" })).extra).toEqual(["c\uFFFD.txt"]);
    writeOutput(out, withList({ "a.txt": "a2\n" }));
    expect(readdirSync(out).sort()).toEqual([".mnote-generated", "a.txt"]);
    expect(() => writeOutput(out, withList({ "a.txt": "a3\n" }))).not.toThrow();
    expect(readFileSync(join(out, "a.txt"), "utf8")).toBe("a3\n");
  });

  it("refuses to emit a path with no UTF-8 form (a lone surrogate)", () => {
    expect(outputPathProblem("a\uD800.txt")).toMatch(/well-formed Unicode/);
  });

  it("refuses a list longer than any string V8 can hold with a clear error, not a crash", () => {
    const parent = tempDir("mnote-write-");
    const out = join(parent, "out");
    writeOutput(out, withList({ "a.txt": "a1\n" }));
    // sparse: takes no disk, and is one byte past the longest string V8 holds (2^29 - 24)
    truncateSync(join(out, ".mnote-generated"), 2 ** 29);
    expect(() => writeOutput(out, withList({ "a.txt": "a2\n" }), "out")).toThrow(ConfigError);
    expect(() => writeOutput(out, withList({ "a.txt": "a2\n" }), "out")).toThrow(
      /out\/\.mnote-generated is 536870912 bytes, more than any list generate writes/,
    );
    // nothing written (the list is not hashed: that would read half a gigabyte)
    expect(readdirSync(parent)).toEqual(["out"]);
    expect(readFileSync(join(out, "a.txt"), "utf8")).toBe("a1\n");
    expect(lstatSync(join(out, ".mnote-generated")).size).toBe(2 ** 29);
  });
});
