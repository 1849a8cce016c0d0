// Jest's global setup: the per-user cache folder (common/user-cache.ts: Node's compile
// cache, the generator's cache) for every process the suites start, in a private temporary folder
// for this run instead of the runner's ~/.cache: a test run neither reads what an earlier run or
// the user left there nor leaves anything behind. Within the run it is shared, so the many
// processes the suites spawn still start warm. A run that names its own folder keeps it.
"use strict";
const { mkdtempSync, rmSync, chmodSync } = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");

let made;

function cacheSetup() {
  if (process.env.MNOTE_TOOLS_CACHE_DIR) return;
  made = mkdtempSync(join(tmpdir(), "mnote-cache-"));
  chmodSync(made, 0o700);
  process.env.MNOTE_TOOLS_CACHE_DIR = made;
}

function cacheTeardown() {
  if (made) rmSync(made, { recursive: true, force: true });
  made = undefined;
}

module.exports = { cacheSetup, cacheTeardown };
