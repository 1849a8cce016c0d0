/**
 * What the generator's disk cache (codegen/support/disk-cache.ts) is never trusted with (issue 43
 * items 2 and 3): a FIFO under an entry's name must not make `generate` wait on it (the entry is
 * refused and made again), and `generate --check` never reads the cache, so an entry edited with
 * its checksum recomputed (what the cache's owner, or anything running as them, can do) cannot
 * make the drift check say "up to date". The generator runs as a child process on the build, as in
 * disk-cache.test.ts.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { lstatSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../common/hash";
import { cliPath, repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

jest.setTimeout(300_000);

const SYNTHETIC = join(repoRoot, "dist", "scripts", "synthetic-contract.js");
const MAGIC = "mnote-tools codegen cache 1";

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, timeout = 240_000): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, ...env } });
}

/** A project holding a 6-tool synthetic contract, and a cache base folder. */
function project(): { root: string; base: string; dir: string } {
  const root = tempDir("mnote-cache-trust-");
  expect(run([SYNTHETIC, join(root, "contract"), "6"], root).status).toBe(0);
  const base = tempDir("mnote-cache-");
  return { root, base, dir: join(base, "mnote-tools", "codegen") };
}

function generate(
  p: { root: string; base: string },
  out: string,
  extra: string[] = [],
  timeout?: number,
): SpawnSyncReturns<string> {
  const args = [cliPath, "generate", "--contract", "contract", "--out", out, "--quiet", ...extra];
  return run(args, p.root, { MNOTE_TOOLS_CACHE_DIR: p.base }, timeout);
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

const entries = (dir: string) => readdirSync(dir).filter((n) => /^[0-9a-f]{64}$/.test(n));

it("a FIFO under every entry's name: generate does not wait on it, refuses it and writes the right files", () => {
  const p = project();
  expect(generate(p, "clean", ["--no-cache"]).status).toBe(0);
  expect(generate(p, "first").status).toBe(0);
  const names = entries(p.dir);
  expect(names.length).toBeGreaterThanOrEqual(3);
  for (const name of names) {
    rmSync(join(p.dir, name));
    const made = spawnSync("mkfifo", ["-m", "600", join(p.dir, name)]);
    expect(made.status).toBe(0);
    expect(lstatSync(join(p.dir, name)).isFIFO()).toBe(true);
  }
  // opened as before (a blocking open of a FIFO with no writer), this run never ends: the timeout
  // (wide: a run takes seconds) kills it
  const again = generate(p, "again", [], 60_000);
  expect({ signal: again.signal, status: again.status, stderr: again.stderr }).toEqual({
    signal: null,
    status: 0,
    stderr: "",
  });
  const clean = filesOf(join(p.root, "clean"));
  const made = filesOf(join(p.root, "again"));
  expect([...made.keys()].sort()).toEqual([...clean.keys()].sort());
  expect([...made].filter(([path, text]) => clean.get(path) !== text).map(([path]) => path)).toEqual([]);
  // each FIFO was replaced by the entry made again (written whole, renamed over it)
  for (const name of names) expect(lstatSync(join(p.dir, name)).isFile()).toBe(true);
});

it("an entry forged with its checksum recomputed reaches a cached generate, and generate --check still reports the drift", () => {
  const p = project();
  expect(generate(p, "out").status).toBe(0);
  // the validators module: the entry whose body holds ajv's standalone code
  const forged = entries(p.dir).find((n) => readFileSync(join(p.dir, n), "utf8").includes("function validate"))!;
  expect(forged).toBeDefined();
  const path = join(p.dir, forged);
  const [, name] = readFileSync(path, "utf8").split("\n", 3);
  const body = readFileSync(path, "utf8").split("\n").slice(3).join("\n");
  const evil = body.replace("function validate", "/* forged */ function validate");
  expect(evil).not.toBe(body);
  writeFileSync(path, `${MAGIC}\n${name}\n${sha256Hex(evil)}\n${evil}`, { mode: 0o600 });

  // the cache's owner is trusted by a plain generate: the forged text is written
  expect(generate(p, "out").status).toBe(0);
  const written = [...filesOf(join(p.root, "out")).values()].filter((t) => t.includes("/* forged */"));
  expect(written.length).toBeGreaterThan(0);

  // the drift check makes every step itself: it sees the forged output as drift, with the same cache
  const check = generate(p, "out", ["--check"]);
  expect(check.status).toBe(1);
  // and an honest output is up to date, the forged entry notwithstanding
  expect(generate(p, "honest", ["--no-cache"]).status).toBe(0);
  expect(generate(p, "honest", ["--check"]).status).toBe(0);
  // the check stored what it made: the forged entry is replaced by the honest one
  expect(readFileSync(path, "utf8")).not.toContain("/* forged */");
});
