/**
 * The generator's disk cache (codegen/support/disk-cache.ts) and the user cache folder it lives in
 * (common/user-cache.ts). A cached one-shot generate after each of a series of edits must write
 * exactly the files a --no-cache run writes, and must reuse across processes what an edit did not
 * reach; a corrupt, cut or forged entry is ignored and made again; a folder another user could
 * write, or a symlink, means no cache and still the right files; the folders are 0700, the
 * entries 0600. The generator runs as a child process on the build (json-schema-to-typescript's
 * prettier import fails inside Jest).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../common/hash";
import { userCacheDir } from "../../common/user-cache";
import { cliPath, repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

jest.setTimeout(300_000);

const SYNTHETIC = join(repoRoot, "dist", "scripts", "synthetic-contract.js");
const NEW_TOOL = ["tools/synth.tool_003.tool.json", "kernel/synthkernel.cmd003.command.json"];
const EDITED = "tools/synth.tool_002.tool.json";

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): void {
  const out = spawnSync(process.execPath, args, { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  if (out.status !== 0) throw new Error(`${args.join(" ")} exited ${out.status}: ${out.stderr}`);
}

/** A project holding an 8-tool synthetic contract, and the files of a 9th tool to add later. */
function project(): { root: string; extra: string } {
  const root = tempDir("mnote-cache-project-");
  run([SYNTHETIC, join(root, "contract"), "8"], root);
  run([SYNTHETIC, join(root, "nine"), "9"], root);
  return { root, extra: join(root, "nine") };
}

/** Every file under dir, by relative path. */
function filesOf(dir: string, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [k, v] of filesOf(dir, rel)) out.set(k, v);
    else out.set(rel, readFileSync(join(dir, rel), "utf8"));
  }
  return out;
}

/** generate with the cache in base, and with --no-cache; both outputs' files. */
function generateBoth(root: string, base: string): { cached: Map<string, string>; clean: Map<string, string> } {
  const generate = (out: string, extra: string[]) => {
    rmSync(join(root, out), { recursive: true, force: true });
    run([cliPath, "generate", "--contract", "contract", "--out", out, "--quiet", ...extra], root, {
      MNOTE_TOOLS_CACHE_DIR: base,
    });
    return filesOf(join(root, out));
  };
  return { cached: generate("out-cached", []), clean: generate("out-clean", ["--no-cache"]) };
}

function expectSame(a: Map<string, string>, b: Map<string, string>): void {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  const differing = [...a].filter(([path, text]) => b.get(path) !== text).map(([path]) => path);
  expect(differing).toEqual([]);
}

const entries = (dir: string) => readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n));

function edit(root: string, file: string, from: string, to: string): void {
  const path = join(root, "contract", file);
  const text = readFileSync(path, "utf8");
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
}

it("after each of a series of edits, a cached run writes the files of a --no-cache run, and reuses what the edit did not reach", () => {
  const { root, extra } = project();
  const base = tempDir("mnote-cache-");
  const dir = join(base, "mnote-tools", "codegen");
  const first = generateBoth(root, base);
  expectSame(first.cached, first.clean);
  const before = new Set(entries(dir));
  expect(before.size).toBeGreaterThanOrEqual(3); // validators, types, the examples' verdicts

  // a tool's description reaches none of the stored steps: nothing new is stored, all is reused
  edit(root, EDITED, "A synthetic read tool (002)", "A synthetic read tool, edited (002)");
  const described = generateBoth(root, base);
  expectSame(described.cached, described.clean);
  expect(entries(dir).filter((n) => !before.has(n))).toEqual([]);
  expect(described.cached.get("docs/tools/mnote.synth.tool_002.md")).toContain("edited (002)");

  // a field's limit reaches the validators and the types: new entries
  edit(root, EDITED, '"maxLength": 200', '"maxLength": 150');
  const limited = generateBoth(root, base);
  expectSame(limited.cached, limited.clean);
  expect(entries(dir).filter((n) => !before.has(n)).length).toBeGreaterThan(0);

  // a tool added, then removed
  for (const file of NEW_TOOL) cpSync(join(extra, file), join(root, "contract", file));
  const added = generateBoth(root, base);
  expectSame(added.cached, added.clean);
  expect([...added.cached.keys()].some((p) => p.includes("synth.tool_003"))).toBe(true);
  for (const file of NEW_TOOL) rmSync(join(root, "contract", file));
  const removed = generateBoth(root, base);
  expectSame(removed.cached, removed.clean);
  expectSame(removed.cached, limited.cached);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(join(base, "mnote-tools")).mode & 0o777).toBe(0o700);
  for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
});

it("a corrupt, cut or forged entry is ignored and made again; the output is still right", () => {
  const { root } = project();
  const base = tempDir("mnote-cache-");
  const dir = join(base, "mnote-tools", "codegen");
  const { clean } = generateBoth(root, base);
  const names = entries(dir).sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size);
  const [largest, second, third] = names.map((n) => join(dir, n));
  const original = readFileSync(largest!, "utf8");
  // a changed body under its own header; a cut one; another entry's text under this name
  writeFileSync(largest!, original.replace(/validate/, "vaIidate"), { mode: 0o600 });
  writeFileSync(second!, readFileSync(second!, "utf8").slice(0, -10), { mode: 0o600 });
  writeFileSync(third!, readFileSync(largest!, "utf8"), { mode: 0o600 });
  const again = generateBoth(root, base);
  expectSame(again.cached, clean);
  // each was stored again, whole and under its own name
  expect(readFileSync(largest!, "utf8")).toBe(original);
  for (const path of [second!, third!]) {
    const [, name, sum] = readFileSync(path, "utf8").split("\n", 3);
    const body = readFileSync(path, "utf8").slice(`${name}${sum}`.length + "mnote-tools codegen cache 1".length + 3);
    expect({ name, sum }).toEqual({ name: path.slice(-64), sum: sha256Hex(body) });
  }
});

it("a group-writable or symlinked cache folder means no cache, and still the right files", () => {
  const { root } = project();
  const { clean } = generateBoth(root, tempDir("mnote-cache-"));

  const open = tempDir("mnote-cache-");
  mkdirSync(join(open, "mnote-tools", "codegen"), { recursive: true, mode: 0o700 });
  chmodSync(join(open, "mnote-tools", "codegen"), 0o770);
  expectSame(generateBoth(root, open).cached, clean);
  expect(readdirSync(join(open, "mnote-tools", "codegen"))).toEqual([]);

  const linked = tempDir("mnote-cache-");
  const elsewhere = tempDir("mnote-cache-elsewhere-");
  mkdirSync(join(linked, "mnote-tools"), { mode: 0o700 });
  symlinkSync(elsewhere, join(linked, "mnote-tools", "codegen"));
  expectSame(generateBoth(root, linked).cached, clean);
  expect(readdirSync(elsewhere)).toEqual([]);
});

describe("userCacheDir", () => {
  it("resolves <base>/mnote-tools/<name>: MNOTE_TOOLS_CACHE_DIR, else XDG_CACHE_HOME (absolute only), else ~/.cache", () => {
    const a = tempDir("mnote-cache-");
    const b = tempDir("mnote-cache-");
    expect(userCacheDir("x", { MNOTE_TOOLS_CACHE_DIR: a, XDG_CACHE_HOME: b })).toBe(join(a, "mnote-tools", "x"));
    expect(userCacheDir("x", { XDG_CACHE_HOME: b })).toBe(join(b, "mnote-tools", "x"));
    expect(userCacheDir("x", { MNOTE_TOOLS_CACHE_DIR: "relative", XDG_CACHE_HOME: b })).toBe(
      join(b, "mnote-tools", "x"),
    );
    expect(statSync(join(b, "mnote-tools", "x")).mode & 0o777).toBe(0o700);
    expect(userCacheDir("../x", { MNOTE_TOOLS_CACHE_DIR: a })).toBeUndefined();
  });

  it("refuses a folder that is world-writable, a symlink, not a folder, or (as root) another user's", () => {
    const base = tempDir("mnote-cache-");
    const env = { MNOTE_TOOLS_CACHE_DIR: base };
    const dir = userCacheDir("ok", env)!;
    expect(dir).toBe(join(base, "mnote-tools", "ok"));
    chmodSync(dir, 0o707);
    expect(userCacheDir("ok", env)).toBeUndefined();
    chmodSync(join(base, "mnote-tools"), 0o777);
    chmodSync(dir, 0o700);
    expect(userCacheDir("ok", env)).toBeUndefined(); // its parent is open to all
    chmodSync(join(base, "mnote-tools"), 0o700);
    expect(userCacheDir("ok", env)).toBe(dir);
    writeFileSync(join(base, "mnote-tools", "file"), "");
    expect(userCacheDir("file", env)).toBeUndefined();
    symlinkSync(dir, join(base, "mnote-tools", "link"));
    expect(userCacheDir("link", env)).toBeUndefined();
    if (process.getuid?.() === 0) {
      chownSync(dir, 4242, 4242);
      expect(userCacheDir("ok", env)).toBeUndefined();
    }
  });
});
