#!/usr/bin/env node
// The build that `npm test` (pretest), `npm run demo` and `npm run bench` start with: `npm run build`,
// unless MNOTE_BUILD_FRESH=1 says the caller has just built this tree and changed nothing since
// (.ci/run builds once and sets it, instead of building three times).
"use strict";
const { spawnSync } = require("node:child_process");

if (process.env.MNOTE_BUILD_FRESH === "1") process.exit(0);
const npm = process.env.npm_execpath;
const run = npm
  ? spawnSync(process.execPath, [npm, "run", "-s", "build"], { stdio: "inherit" })
  : spawnSync("npm", ["run", "-s", "build"], { stdio: "inherit", shell: process.platform === "win32" });
process.exit(run.status ?? 1);
