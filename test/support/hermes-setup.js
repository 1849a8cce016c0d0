// MNOTE_HERMES_SRC defaults to the Hermes Agent modules in the shared folder beside the clone
// (../shared/hermes-agent-v0.18.0, or under MNOTE_SHARED_DIR), as the README promises: with that
// folder there, the real-Hermes suites run without any variable set. Set by Jest's global setup,
// before the workers start, so every suite sees the same value. Plain JavaScript (no transform).
"use strict";
const { existsSync } = require("node:fs");
const { join, resolve } = require("node:path");

const HERMES = "hermes-agent-v0.18.0";

/** The folder MNOTE_HERMES_SRC should name, or undefined when it is set already or nothing is there. */
function defaultHermesSrc(env, repoRoot) {
  if (env.MNOTE_HERMES_SRC) return undefined;
  const shared = env.MNOTE_SHARED_DIR ? resolve(env.MNOTE_SHARED_DIR) : join(repoRoot, "..", "shared");
  const dir = join(shared, HERMES);
  return existsSync(join(dir, "hermes_cli", "plugins.py")) && existsSync(join(dir, "model_tools.py")) ? dir : undefined;
}

function hermesSetup(env = process.env, repoRoot = resolve(__dirname, "..", "..")) {
  const dir = defaultHermesSrc(env, repoRoot);
  if (dir) env.MNOTE_HERMES_SRC = dir;
}

module.exports = { hermesSetup, defaultHermesSrc };
