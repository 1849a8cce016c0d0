/**
 * docs/ENVIRONMENT.md lists every MNOTE_* variable the code reads (issue 47: MNOTE_TOOLS_TIMEOUT and
 * MNOTE_TOOLS_LOCALE were only in the plugin's source): the CLI, the runtime, the scripts, the bench,
 * CI, the generated Hermes plugin and its template, Jest's config and the tests. A name read and not listed, or
 * listed and read nowhere, fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "../support/paths";

const ROOTS = [
  "bin",
  "cli",
  "common",
  "runtime",
  "kernel",
  "codegen",
  "diff",
  "scripts",
  "bench",
  "generated/hermes-plugin",
  "test",
  ".ci",
];
/** Files at the top of the repository that read variables too. */
const ROOT_FILES = ["jest.config.js"];
const SKIP = new Set(["node_modules", "dist", "fixtures", "__pycache__"]);
const SOURCE = /\.(ts|js|mjs|cjs|py|hbs|sh)$|^run$/;
/** MNOTE_* names in the code that are not environment variables (each says what it is). */
const NOT_VARIABLES: Record<string, string> = {
  MNOTE_STORE_UNAVAILABLE: "an error code a store throws (common/sqlite.ts, runtime/state/pg-pool.ts)",
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIP.has(name)) return [];
    if (statSync(path).isDirectory()) return files(path);
    return SOURCE.test(name) ? [path] : [];
  });
}

const readIn = new Map<string, string>();
for (const file of [
  ...ROOTS.flatMap((root) => files(join(repoRoot, root))),
  ...ROOT_FILES.map((f) => join(repoRoot, f)),
])
  for (const m of readFileSync(file, "utf8").matchAll(/\bMNOTE_[A-Z0-9_]+\b/g))
    if (!readIn.has(m[0])) readIn.set(m[0], relative(repoRoot, file));

const table = readFileSync(join(repoRoot, "docs", "ENVIRONMENT.md"), "utf8");
const listed = new Set([...table.matchAll(/^\|([^|]+)\|/gm)].flatMap((m) => m[1]!.match(/MNOTE_[A-Z0-9_]+/g) ?? []));

it("every MNOTE_* variable the code reads is in docs/ENVIRONMENT.md's tables", () => {
  const missing = [...readIn].filter(([name]) => !listed.has(name) && !(name in NOT_VARIABLES));
  expect(missing.map(([name, file]) => `${name} (read in ${file})`)).toEqual([]);
  // the plugin's own knobs, which issue 47 found only in its source
  for (const name of ["MNOTE_TOOLS_TIMEOUT", "MNOTE_TOOLS_LOCALE", "MNOTE_KERNEL_URL", "MNOTE_KERNEL_CLI"])
    expect(listed.has(name)).toBe(true);
});

it("every variable in the tables is still read somewhere (no stale row)", () => {
  expect([...listed].filter((name) => !readIn.has(name))).toEqual([]);
  expect(listed.size).toBeGreaterThan(30);
});

it("the names that look like variables and are not, are not read from the environment", () => {
  for (const name of Object.keys(NOT_VARIABLES)) expect(listed.has(name)).toBe(false);
});
