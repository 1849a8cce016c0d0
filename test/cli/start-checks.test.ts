/**
 * Checks at start (issue 47): the CLI on a Node.js older than package.json's engines says so in one
 * line (exit 3) instead of failing later in a module; a native module built for another Node.js is
 * named as such, not blamed on the database.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { exitFor } from "../../cli/exit";
import { cliPath } from "../support/paths";

/** A Node.js older than 22 on this machine (the system's), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout.trim();
    if (/^v(1\d|20|21)\./.test(version)) return candidate;
  }
  return undefined;
}
const old = olderNode();

(old ? it : it.skip)(
  `on Node.js before 22: one line naming the version, exit 3${old ? "" : " (skipped: no Node.js before 22 on this machine)"}`,
  () => {
    const run = spawnSync(old!, [cliPath, "--version"], { encoding: "utf8" });
    expect(run.status).toBe(3);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^mnote-tools: needs Node\.js 22 or newer; this is v\d+\./),
    ]);
    expect(run.stdout).toBe("");
  },
);

it("a native module built for another Node.js: exit 3, naming the ABI and the fix, not the database", () => {
  const e = new Error(
    "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing",
  );
  const decision = exitFor(e);
  expect(decision.code).toBe(3);
  expect(decision.message).toMatch(
    /NODE_MODULE_VERSION 127; this v\d+\.\d+\.\d+ needs 115\): run npm rebuild better-sqlite3/,
  );
  expect(decision.message).not.toContain("\n");
  // wrapped by the database layer, it is still named for what it is
  class DatabaseOpenError extends Error {}
  expect(exitFor(new DatabaseOpenError(`cannot open the database: ${e.message}`)).message).toMatch(/^a native module/);
});
