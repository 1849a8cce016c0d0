/**
 * mkdir -p that always ends (common/make-folder.ts). Node's recursive mkdirSync never returns for a
 * path under /proc (it gets ENOENT for the level it just made, and tries again), so before this a
 * cache folder, a database or a token file named there hung every command, `--version` included.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFolders } from "../../common/make-folder";
import { userCacheDir } from "../../common/user-cache";
import { runCli } from "../support/paths";
import { tempDir } from "../support/tmp";

const procUnder = existsSync("/proc/self") ? it : it.skip;

describe("makeFolders", () => {
  it("makes every missing level, each with the mode given, and takes a folder that is there", () => {
    const root = tempDir("make-folder-");
    const dir = join(root, "a", "b", "c");
    makeFolders(dir, 0o700);
    for (const d of [join(root, "a"), join(root, "a", "b"), dir]) expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(() => makeFolders(dir, 0o700)).not.toThrow();
  });

  it("throws the real error: a file in the way is ENOTDIR", () => {
    const root = tempDir("make-folder-");
    writeFileSync(join(root, "file"), "");
    expect(() => makeFolders(join(root, "file", "below"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
  });

  procUnder("ends with ENOENT under /proc, where Node's recursive mkdir never returns", () => {
    expect(() => makeFolders("/proc/mnote-none/a/b")).toThrow(expect.objectContaining({ code: "ENOENT" }));
    expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: "/proc/mnote-none" })).toBeUndefined();
  });

  procUnder("a command with its cache folder under /proc runs without a cache instead of hanging", () => {
    const result = runCli(["--version"], { env: { MNOTE_TOOLS_CACHE_DIR: "/proc/mnote-none" } });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  procUnder("call with its database under /proc answers an environment error (exit 3), not a hang", () => {
    const result = runCli(["call", "--db", "/proc/mnote-none/kernel.db", "--state", "/proc/mnote-none/state.db"], {
      input: "{}",
    });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(3);
  });
});
