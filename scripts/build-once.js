#!/usr/bin/env node
// The build that `npm test` (pretest), `npm run demo`, `npm run bench` and `npm run tarballs` start
// with: `npm run build`, unless this tree is built already. "Built" is keyed by the tree: a hash of
// every file the build reads (the TypeScript folders, the tsconfigs, package.json), written to
// dist/.build-key after a build; the same key means the same sources, so the build is skipped. A
// scratch copy of a built clone (the docs test) therefore builds nothing. MNOTE_BUILD_FRESH=1 skips
// the check too (.ci/run builds once, then changes nothing).
"use strict";
const { createHash } = require("node:crypto");
const { existsSync, readdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join, relative } = require("node:path");
const { spawnSync } = require("node:child_process");

const root = join(__dirname, "..");
const SOURCES = ["common", "codegen", "diff", "generated", "runtime", "kernel", "cli", "scripts", "bench"];
const SKIP = new Set(["node_modules", "dist", "__pycache__"]);
const KEY_FILE = join(root, "dist", ".build-key");

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : e.isFile() ? [path] : [];
  });
}

/** The hash of every file the build reads, by path and content. */
function buildKey() {
  const hash = createHash("sha256");
  const tops = readdirSync(root).filter((f) => /^(tsconfig.*\.json|package\.json)$/.test(f));
  const all = [...tops.map((f) => join(root, f)), ...SOURCES.flatMap((d) => files(join(root, d)))];
  for (const file of all.map((f) => relative(root, f)).sort()) {
    hash.update(file + "\0");
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

if (process.env.MNOTE_BUILD_FRESH === "1") process.exit(0);
const key = buildKey();
// the outputs must be there too: the key says which sources they came from, not that nobody removed them
const outputs = [join(root, "dist", "cli", "main.js"), join(root, "generated", "dist", "cjs", "index.js")];
if (existsSync(KEY_FILE) && readFileSync(KEY_FILE, "utf8").trim() === key && outputs.every((f) => existsSync(f))) {
  // the workspace packages' files are assembled from dist/ (the build's last step): a copy of a
  // built tree that left them out (a scratch clone) assembles them again, in a second, nothing more
  // (a tree without the workspace folders has nothing to assemble)
  const assembled = [
    ["runtime", join("dist", "runtime", "index.js")],
    ["diff", join("dist", "diff", "package-entry.js")],
  ].filter(([folder]) => existsSync(join(root, folder, "package.json")));
  if (assembled.every(([folder, file]) => existsSync(join(root, folder, file)))) process.exit(0);
  const again = spawnSync(process.execPath, [join(root, "scripts", "assemble-packages.js")], { stdio: "inherit" });
  process.exit(again.status ?? 1);
}
// said first: the build is silent for a while (tsc on every folder, about 15 s on 2 cores, longer under load)
process.stderr.write("building dist/ (TypeScript; about 15 s on an idle 2-core machine, once: later runs reuse it)\n");
const started = Date.now();
const npm = process.env.npm_execpath;
const run = npm
  ? spawnSync(process.execPath, [npm, "run", "-s", "build"], { cwd: root, stdio: "inherit" })
  : spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
if (run.status === 0) {
  writeFileSync(KEY_FILE, key + "\n");
  process.stderr.write(`built dist/ in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
process.exit(run.status ?? 1);
