#!/usr/bin/env node
"use strict";
// The exit codes are cli/exit.ts's (0 ok, 1 findings, 2 usage, 3 environment, 70 a bug); main()
// reports every error itself and resolves with the code.
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");
// package.json's engines (>=22): an older Node would fail later, and blame something else (a clone
// built on 22 and run on 20 reports better-sqlite3's NODE_MODULE_VERSION as a database error)
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(`mnote-tools: needs Node.js 22 or newer; this is ${process.version} (${process.execPath})`);
  process.exit(3);
}
if (!existsSync(join(root, "dist", "cli", "main.js"))) buildCheckout();
enableCompileCache();
const cli = require("../dist/cli/main.js");

cli.main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // the command is over: a handle left open (a Redis client after a failed start) must not keep
    // the process alive; an unref'd timer fires only if something else still holds the loop
    setTimeout(() => process.exit(code), code === 0 ? 2_000 : 200).unref();
  },
  (e) => {
    // main never rejects; if it does, that is a bug
    console.error(`mnote-tools: internal error: ${e && e.stack ? e.stack : String(e)}`);
    console.error("this is a bug in mnote-tools: please report it with the command you ran and the text above");
    process.exit(70);
  },
);

/**
 * A clone of the repository has no build until `npm run build` (npm ci does not build: the package
 * has no prepare script). The first command in a clone builds it, saying so on stderr; an
 * installed package always has dist/, so there this is a broken install.
 */
function buildCheckout() {
  const canBuild =
    existsSync(join(root, "tsconfig.build.json")) && existsSync(join(root, "node_modules", "typescript"));
  if (!canBuild) {
    console.error("mnote-tools: this copy has no build (dist/cli/main.js): reinstall the package");
    process.exit(3);
  }
  process.stderr.write("mnote-tools: first run in this clone: building it first (npm run build, about 30 s)\n");
  const { spawnSync } = require("node:child_process");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  // the build's own output goes to stderr: stdout may be a protocol channel (call, mcp)
  const run = spawnSync(npm, ["run", "-s", "build"], { cwd: root, stdio: ["ignore", 2, 2] });
  if (run.status !== 0) {
    console.error("mnote-tools: the build failed (see above); fix it and run npm run build");
    process.exit(3);
  }
  process.stderr.write("mnote-tools: built\n");
}

/**
 * Node's compile cache (V8's compiled code for each module, kept on disk): a one-shot process
 * (`call`) spends most of its CPU loading code, and a warm cache skips compiling it again. It lives
 * in a folder only the user can write (common/user-cache.ts): what is in it runs as code. Silent
 * whatever happens (stdout may be a protocol channel); no safe folder, an old Node or
 * NODE_DISABLE_COMPILE_CACHE set: the modules are compiled as before.
 */
function enableCompileCache() {
  const { enableCompileCache } = require("node:module");
  if (typeof enableCompileCache !== "function" || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const dir = require("../dist/common/user-cache.js").userCacheDir("compile");
    if (dir !== undefined) enableCompileCache(dir);
  } catch {
    // a cache is an optimisation: a failure to set it up changes nothing else
  }
}
