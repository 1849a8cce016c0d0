/**
 * A grant revoked while an MCP session is open: the next call is refused and writes nothing. The
 * MCP server reads the session's grant to build each envelope and hands it to the dispatcher (one
 * read per call, runtime/dispatch/steps/grant.ts vouchGrant), so this checks that the grant is still
 * read per call, through the real `mnote-tools mcp` over stdio, with the kernel's state asserted.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import Database from "better-sqlite3";
import { ERR } from "../../generated/registry";
import { cliPath, runCli } from "../support/paths";
import { seededProject } from "../support/project";

function artifacts(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT COUNT(*) AS n FROM artifacts").get() as { n: number }).n;
  } finally {
    d.close();
  }
}

describe("mcp: a grant revoked mid-session", () => {
  it("refuses the next call (not_authenticated) and the kernel is unchanged", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const client = new Client({ name: "revocation-test", version: "1.0.0" });
    const args = [cliPath, "mcp", "--session", "s_owner", "--db", p.db, "--state", p.state];
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" }));
    try {
      const before = artifacts(p.db);
      const first = await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "one" } });
      expect(first.isError).toBeFalsy();
      expect(artifacts(p.db)).toBe(before + 1);

      const revoke = runCli(["session", "revoke", "--state", p.state, "s_owner"]);
      expect(revoke.status).toBe(0);

      const second = await client.callTool({ name: "mnote_artifact_create_ai_note", arguments: { content: "two" } });
      expect(second.isError).toBe(true);
      expect((second.structuredContent as { error: { code: string } }).error.code).toBe(ERR.notAuthenticated);
      expect(artifacts(p.db)).toBe(before + 1);
      const read = await client.callTool({ name: "mnote_page_get", arguments: {} });
      expect((read.structuredContent as { error: { code: string } }).error.code).toBe(ERR.notAuthenticated);
    } finally {
      await client.close();
    }
  });
});
