/**
 * The provider variants where users get them: `mnote-tools tools --provider <name>` (each printed
 * variant passes its provider's rules), `GET /v1/tools?provider=<name>`, and the MCP server's
 * instructions (the toolset description, names as the model sees them).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PROVIDERS, providerTools, TOOLSET_DESCRIPTION } from "../../generated/providers";
import { toolList } from "../../generated/registry";
import { checkVariant } from "../../codegen/providers/check";
import { cliPath, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";

describe("mnote-tools tools --provider", () => {
  it.each(PROVIDERS.map((p) => [p]))("%s: prints the provider's tool objects, and they pass its rules", (provider) => {
    const run = runCli(["tools", "--provider", provider, "--format", "json"]);
    expect(run.status).toBe(0);
    const definitions = JSON.parse(run.stdout);
    expect(definitions).toEqual(providerTools[provider].map((t) => t.definition));
    expect(
      checkVariant(
        provider,
        definitions.map((definition: Record<string, unknown>, i: number) => ({
          canonicalName: toolList[i]!.name,
          definition,
        })),
      ),
    ).toEqual([]);
    const human = runCli(["tools", "--provider", provider]);
    expect(human.status).toBe(0);
    for (const t of toolList) expect(human.stdout).toContain(t.providerName);
  });

  it("portable is the default; an unknown provider or format is refused with the list", () => {
    expect(JSON.parse(runCli(["tools", "--format", "json"]).stdout)).toEqual(
      providerTools.portable.map((t) => t.definition),
    );
    const bad = runCli(["tools", "--provider", "openai"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("one of canonical, portable, openai-strict, gemini, anthropic");
    expect(runCli(["tools", "--format", "yaml"]).status).toBe(2);
    expect(runCli(["mcp", "--session", "s", "--provider", "openai"]).status).toBe(2);
  });
});

describe("GET /v1/tools?provider=", () => {
  it("lists the variant asked for, portable by default, and refuses an unknown one", async () => {
    const p = seededProject([]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const get = async (query: string) => {
        const res = await fetch(`${server.url}/v1/tools${query}`, { headers: { authorization: "Bearer tok" } });
        return { status: res.status, body: (await res.json()) as any };
      };
      const byDefault = await get("");
      expect(byDefault.body.provider).toBe("portable");
      expect(byDefault.body.tools.map((t: any) => t.parameters)).toEqual(
        providerTools.portable.map((t) => t.parameters),
      );
      const strict = await get("?provider=openai-strict");
      expect(strict.body.tools.map((t: any) => t.definition)).toEqual(
        providerTools["openai-strict"].map((t) => t.definition),
      );
      const unknown = await get("?provider=openai");
      expect(unknown.status).toBe(400);
      expect(unknown.body.providers).toEqual([...PROVIDERS]);
    } finally {
      await server.stop();
    }
  });
});

describe("the MCP server's instructions", () => {
  it("are the toolset description: the workflow, with tools named as the model sees them", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const client = new Client({ name: "mnote-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, "mcp", "--session", "s_owner", "--db", p.db, "--state", p.state],
        stderr: "pipe",
      }),
    );
    try {
      const instructions = client.getInstructions();
      expect(instructions).toBe(TOOLSET_DESCRIPTION);
      for (const t of toolList) expect(instructions).not.toContain(t.name);
      expect(instructions).toContain("Read first with mnote_page_get");
      expect(instructions).toMatch(/baseRevision/);
      expect(instructions).toMatch(/dryRun/);
    } finally {
      await client.close();
    }
  });
});
