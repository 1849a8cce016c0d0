/**
 * Approval in test setups: most suites test other rules through page.save replace and
 * update_title, whose contract level is ask. They run under a host policy that allows every tool,
 * said explicitly here (the contract's default stays ask); the approval suites use the contract's
 * levels or their own policy.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allowEveryTool, approvalPolicyFrom, type ApprovalPolicyIndex } from "../../runtime/approval/policy";

/** The policy file's JSON: every tool of this contract allowed (runtime/approval/policy.ts). */
export const allowAllPolicyJson = allowEveryTool;

/** The same, indexed for a dispatcher. */
export function allowAllPolicy(): ApprovalPolicyIndex {
  return approvalPolicyFrom(allowAllPolicyJson());
}

/** Writes the allow-all policy file into dir and returns its path (for --approval-policy). */
export function writeAllowAllPolicy(dir: string): string {
  const path = join(dir, "approval-allow-all.json");
  writeFileSync(path, JSON.stringify(allowAllPolicyJson()));
  return path;
}

/**
 * The allow-all policy file the global setup wrote (MNOTE_APPROVAL_POLICY), for processes started
 * with an environment of their own (the MCP SDK's stdio client, the plugin's CLI adapter), which
 * do not inherit it: they name it with --approval-policy.
 */
export function allowAllPolicyFile(): string {
  const path = process.env.MNOTE_APPROVAL_POLICY;
  if (path) return path;
  const { mkdtempSync } = require("node:fs") as typeof import("node:fs");
  const { tmpdir } = require("node:os") as typeof import("node:os");
  return writeAllowAllPolicy(mkdtempSync(join(tmpdir(), "mnote-approval-")));
}
