/**
 * The per-user cache folder (common/user-cache.ts) and Node's compile cache the bin turns on in it
 * (issue 33, cold start): the folders are made 0700, a folder anyone else could write means no
 * cache at all, and a call answers the same with a cache, without one, and beside an unsafe one.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { userCacheDir } from "../../common/user-cache";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { makeRequest } from "../support/requests";
import { tempDir } from "../support/tmp";

const posix = process.platform !== "win32";
const mode = (path: string) => statSync(path).mode & 0o777;

describe("userCacheDir", () => {
  it("makes <base>/mnote-tools/<name>, each folder 0700, under MNOTE_TOOLS_CACHE_DIR first", () => {
    const base = join(tempDir("mnote-cache-"), "base");
    const dir = userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base, XDG_CACHE_HOME: "/nowhere", HOME: "/nowhere" });
    expect(dir).toBe(join(base, "mnote-tools", "compile"));
    if (posix) {
      expect(mode(join(base, "mnote-tools"))).toBe(0o700);
      expect(mode(dir!)).toBe(0o700);
    }
    // the same folder again: found, not an error
    expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBe(dir);
  });

  it("falls back to XDG_CACHE_HOME, then HOME/.cache", () => {
    const root = tempDir("mnote-cache-");
    expect(userCacheDir("x", { XDG_CACHE_HOME: join(root, "xdg"), HOME: join(root, "home") })).toBe(
      join(root, "xdg", "mnote-tools", "x"),
    );
    expect(userCacheDir("x", { HOME: join(root, "home") })).toBe(join(root, "home", ".cache", "mnote-tools", "x"));
  });

  it("refuses a name that is a path", () => {
    const base = tempDir("mnote-cache-");
    expect(userCacheDir("../escape", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
    expect(userCacheDir("", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
  });

  (posix ? describe : describe.skip)("no cache in a folder someone else could write", () => {
    it("a group- or world-writable folder", () => {
      const base = tempDir("mnote-cache-");
      const dir = userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })!;
      chmodSync(dir, 0o777);
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
      chmodSync(dir, 0o770);
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
      chmodSync(dir, 0o700);
      chmodSync(join(base, "mnote-tools"), 0o757);
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
    });

    it("a symlink where a folder should be", () => {
      const base = tempDir("mnote-cache-");
      const elsewhere = tempDir("mnote-cache-target-");
      symlinkSync(elsewhere, join(base, "mnote-tools"));
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
      // nothing was made through the link
      expect(readdirSync(elsewhere)).toEqual([]);
      const ours = userCacheDir("other", { MNOTE_TOOLS_CACHE_DIR: elsewhere })!;
      symlinkSync(ours, join(elsewhere, "mnote-tools", "linked"));
      expect(userCacheDir("linked", { MNOTE_TOOLS_CACHE_DIR: elsewhere })).toBeUndefined();
    });

    it("a base others can write without the sticky bit (they could swap our folder); /tmp's sticky bit is fine", () => {
      const base = tempDir("mnote-cache-");
      chmodSync(base, 0o777);
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
      chmodSync(base, 0o1777);
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBe(join(base, "mnote-tools", "compile"));
    });

    (process.getuid?.() === 0 ? it : it.skip)("a folder another user owns (run as root: chown)", () => {
      const base = tempDir("mnote-cache-");
      const dir = userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })!;
      chownSync(dir, 4242, 4242);
      expect(userCacheDir("compile", { MNOTE_TOOLS_CACHE_DIR: base })).toBeUndefined();
    });
  });
});

describe("the bin's compile cache, through a real call", () => {
  let p: { db: string; state: string };
  beforeAll(() => {
    p = seededProject([{ session: "sess_1", actor: "user_1" }]);
  });
  const call = (env: NodeJS.ProcessEnv) => {
    // NODE_COMPILE_CACHE from the caller's shell would turn Node's own cache on first
    const { NODE_COMPILE_CACHE: _ignored, NODE_DISABLE_COMPILE_CACHE: _too, ...rest } = process.env;
    const run = runCli(["call", "--db", p.db, "--state", p.state], {
      input: JSON.stringify(makeRequest("mnote.page.get")),
      env: { ...rest, ...env },
    });
    expect(run.status).toBe(0);
    // stdout is one envelope, nothing about the cache; stderr says nothing either
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, toolName: "mnote.page.get" });
    expect(run.stderr).toBe("");
    return run.stdout;
  };
  const files = (dir: string): string[] =>
    existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.includes("/")) : [];

  it("fills the cache on the first call and answers the same from it", () => {
    const base = tempDir("mnote-cache-");
    const cold = call({ MNOTE_TOOLS_CACHE_DIR: base });
    const dir = join(base, "mnote-tools", "compile");
    expect(files(dir).length).toBeGreaterThan(10);
    if (posix) {
      const entry = join(dir, files(dir)[0]!);
      expect(statSync(entry).mode & 0o077).toBe(0);
    }
    const warm = call({ MNOTE_TOOLS_CACHE_DIR: base });
    expect(JSON.parse(warm).result).toEqual(JSON.parse(cold).result);
  });

  (posix ? it : it.skip)("beside an unsafe folder: answers, and writes nothing into it", () => {
    const base = tempDir("mnote-cache-");
    const dir = join(base, "mnote-tools", "compile");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o777);
    call({ MNOTE_TOOLS_CACHE_DIR: base });
    expect(files(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("NODE_DISABLE_COMPILE_CACHE: answers, and caches nothing", () => {
    const base = tempDir("mnote-cache-");
    call({ MNOTE_TOOLS_CACHE_DIR: base, NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(files(join(base, "mnote-tools", "compile"))).toEqual([]);
  });
});
