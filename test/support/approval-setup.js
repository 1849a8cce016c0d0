// Jest's global setup, part two: a host approval policy that allows every tool, written once and
// named in MNOTE_APPROVAL_POLICY for every process the suites start (serve, call, mcp, the Hermes
// plugin's servers). Most suites test other rules through page.save replace and update_title,
// whose contract level is ask; this says "allow" for them explicitly instead of changing the
// contract's default. Suites about approval remove the variable or name their own policy.
"use strict";
const { mkdtempSync, readdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");

function approvalSetup() {
  const toolsDir = join(__dirname, "..", "..", "contract", "tools");
  const tools = {};
  for (const file of readdirSync(toolsDir)
    .filter((f) => f.endsWith(".tool.json"))
    .sort()) {
    const name = JSON.parse(readFileSync(join(toolsDir, file), "utf8"))["x-mnote-tool"].name;
    tools[name] = "allow";
  }
  const dir = mkdtempSync(join(tmpdir(), "mnote-approval-"));
  const path = join(dir, "allow-all.json");
  writeFileSync(path, JSON.stringify({ tools }));
  process.env.MNOTE_APPROVAL_POLICY = path;
}

module.exports = { approvalSetup };
