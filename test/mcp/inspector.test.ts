/**
 * The official MCP Inspector (pinned in package.json; its 2.x line negotiates the 2026-07-28
 * revision) lists the contract's tools from `mnote-tools mcp`, over stdio and over Streamable HTTP,
 * as a person checking the server by hand would: `mcp-inspector --cli ... --method tools/list
 * --protocol-era modern`. What it lists is the generated MCP tool list, names and order included.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { cliPath } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { mcpTools } from "../../generated/mcp/tools";

const launcher = join(
  dirname(require.resolve("@modelcontextprotocol/inspector/package.json")),
  "clients",
  "launcher",
  "build",
  "index.js",
);

/** The Inspector's CLI: its JSON answer (stdout), or the failure with what it printed. */
function inspect(args: readonly string[]): { tools: Array<{ name: string; annotations?: Record<string, unknown> }> } {
  const run = spawnSync(
    process.execPath,
    [launcher, "--cli", ...args, "--method", "tools/list", "--protocol-era", "modern"],
    {
      encoding: "utf8",
      timeout: 90_000,
    },
  );
  if (run.status !== 0) throw new Error(`the Inspector exited ${run.status}: ${run.stderr}\n${run.stdout}`);
  return JSON.parse(run.stdout);
}

const expected = mcpTools.map((t) => t.name);

describe("the MCP Inspector lists the tools", () => {
  const grants = [{ session: "s_owner", actor: "user_1" }];

  it("over stdio", () => {
    const p = seededProject(grants);
    const { tools } = inspect([
      process.execPath,
      cliPath,
      "mcp",
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
    ]);
    expect(tools.map((t) => t.name)).toEqual(expected);
    // the read is marked read-only (some clients gate every tool without it)
    const read = tools.find((t) => t.name === "mnote_page_get")!;
    expect(read.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("over Streamable HTTP, with the bearer token", async () => {
    const p = seededProject(grants);
    const server = await start([
      "mcp",
      "--http",
      "--port",
      "0",
      "--token",
      "inspector-token",
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
    ]);
    try {
      const url = server.url.endsWith("/mcp") ? server.url : `${server.url.replace(/\/$/, "")}/mcp`;
      const { tools } = inspect([url, "--transport", "http", "--header", "Authorization: Bearer inspector-token"]);
      expect(tools.map((t) => t.name)).toEqual(expected);
    } finally {
      await server.stop();
    }
  });
});
