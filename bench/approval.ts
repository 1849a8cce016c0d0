/**
 * Approval in the bench: the rows measure the write path itself, against peers (the SDK-only MCP
 * server, a bare node:http server, the JSON floor) that ask nobody, so every runtime here runs
 * under a host policy that allows every tool, said explicitly (the contract's own levels make a
 * replace and a rename ask: docs/APPROVAL.md). What approval itself costs (a dry run for the
 * preview, a token signed and checked) is not a row.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { allowEveryTool, approvalPolicyFrom, type ApprovalPolicyIndex } from "../runtime/approval/policy";

/** The runtime's approval options for a bench runtime or dispatcher. */
export function benchApproval(): { policy: ApprovalPolicyIndex } {
  return { policy: approvalPolicyFrom(allowEveryTool()) };
}

/** Writes the policy file into dir; the two arguments that name it to `serve` or `mcp`. */
export function benchPolicyArgs(dir: string): string[] {
  const path = join(dir, "approval-allow-all.json");
  writeFileSync(path, JSON.stringify(allowEveryTool()));
  return ["--approval-policy", path];
}
