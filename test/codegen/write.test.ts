/**
 * The write phase in process (it needs no generator): owned files are replaced and stale ones
 * deleted; a failure half way through putting files in place is undone, leaving the folder, and
 * the folder around it, exactly as they were.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeOutput } from "../../codegen/phases/write";
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
