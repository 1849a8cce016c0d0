// MNOTE_HERMES_SRC defaults to the Hermes Agent modules in the shared folder beside the clone
// (../shared/hermes-agent-v0.18.0, or under MNOTE_SHARED_DIR), as the README promises: with that
// folder there, the real-Hermes suites run without any variable set. MNOTE_HERMES_NEXT_SRC
// defaults the same way to the newest Hermes tree (shared/hermes-agent-v0.21), and
// MNOTE_HERMES_STANDINS to the stand-ins beside it (shared/hermes-agent-v0.21-standins, the
// modules that tree could not hold; its SOURCE.md). Set by Jest's global setup, before the workers
// start, so every suite sees the same value. Plain JavaScript (no transform).
"use strict";
const { existsSync } = require("node:fs");
const { join, resolve } = require("node:path");

const HERMES = "hermes-agent-v0.18.0";
const HERMES_NEXT = "hermes-agent-v0.21";
const HERMES_NEXT_STANDINS = "hermes-agent-v0.21-standins";

function sharedDir(env, repoRoot) {
  return env.MNOTE_SHARED_DIR ? resolve(env.MNOTE_SHARED_DIR) : join(repoRoot, "..", "shared");
}

const isHermes = (dir) => existsSync(join(dir, "hermes_cli", "plugins.py")) && existsSync(join(dir, "model_tools.py"));

/** The folder MNOTE_HERMES_SRC should name, or undefined when it is set already or nothing is there. */
function defaultHermesSrc(env, repoRoot) {
  if (env.MNOTE_HERMES_SRC) return undefined;
  const dir = join(sharedDir(env, repoRoot), HERMES);
  return isHermes(dir) ? dir : undefined;
}

/** MNOTE_HERMES_NEXT_SRC and MNOTE_HERMES_STANDINS defaults (each undefined when set or absent). */
function defaultHermesNext(env, repoRoot) {
  const shared = sharedDir(env, repoRoot);
  const src = env.MNOTE_HERMES_NEXT_SRC ? undefined : join(shared, HERMES_NEXT);
  const standins = env.MNOTE_HERMES_STANDINS ? undefined : join(shared, HERMES_NEXT_STANDINS);
  return {
    src: src && isHermes(src) ? src : undefined,
    standins: standins && existsSync(join(standins, "shim_boot.py")) ? standins : undefined,
  };
}

function hermesSetup(env = process.env, repoRoot = resolve(__dirname, "..", "..")) {
  const dir = defaultHermesSrc(env, repoRoot);
  if (dir) env.MNOTE_HERMES_SRC = dir;
  const next = defaultHermesNext(env, repoRoot);
  if (next.src) env.MNOTE_HERMES_NEXT_SRC = next.src;
  if (next.standins) env.MNOTE_HERMES_STANDINS = next.standins;
}

module.exports = { hermesSetup, defaultHermesSrc, defaultHermesNext };
