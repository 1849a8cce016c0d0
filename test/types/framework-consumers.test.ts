/**
 * A typed consumer of each framework subpath (issue 29): the docs' own uses of
 * @mnote/contract/ai-sdk, /langchain and /openai-agents next to the frameworks' own types
 * (ToolSet, DynamicStructuredTool, Agent) and the docs' reading pattern, type-checked with strict
 * and skipLibCheck false as ESM (nodenext .mts, and bundler) and as CommonJS (nodenext .cts),
 * against the frameworks' current majors as the repository installs them. Before, the ESM program's
 * LangChain tools were another type tree than its own @langchain/core (the package shipped only
 * CommonJS declarations), and `read.ok ? read.result : read.error.message` did not narrow.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

const CONSUMER = `import { mnoteTools as aiSdkTools, mnoteToolApproval, type MnoteToolResult } from "@mnote/contract/ai-sdk";
import { mnoteTools as langchainTools, approvalInterruptOn, parseToolResult } from "@mnote/contract/langchain";
import { mnoteTools as agentsTools, mnotePreview, type MnotePreview } from "@mnote/contract/openai-agents";
import type { ToolSet } from "ai";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { Agent, type RunToolApprovalItem } from "@openai/agents";

const options = { connection: { url: "http://127.0.0.1:9", token: "t" }, session: { sessionId: "s" } };
const set: ToolSet = aiSdkTools({ ...options, provider: "openai-strict" });
const approval = mnoteToolApproval(options);
const tools: DynamicStructuredTool[] = langchainTools({ ...options, humanInTheLoop: true });
const interruptOn = approvalInterruptOn(options);
const agent = new Agent({ name: "page", tools: agentsTools(options) });
export function read(result: MnoteToolResult): unknown {
  return result.ok ? result.result : result.error.message;
}
export async function shown(item: RunToolApprovalItem): Promise<string | undefined> {
  const preview: MnotePreview | undefined = await mnotePreview(options, item);
  return preview?.text;
}
export const all = [set, approval, tools, interruptOn, agent, parseToolResult("{}")];
`;

function typeCheck(dir: string, module: string, resolution: string, files: string[]): string {
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const args = ["--noEmit", "--strict", "--skipLibCheck", "false", "--target", "es2022", "--types", "node"];
  const run = spawnSync(
    process.execPath,
    [tsc, ...args, "--module", module, "--moduleResolution", resolution, ...files],
    {
      cwd: dir,
      encoding: "utf8",
    },
  );
  return `${run.stdout}${run.stderr}`.trim();
}

describe("typed consumers of the framework subpaths (strict, skipLibCheck false)", () => {
  const dir = tempDir("mnote-framework-consumer-");
  beforeAll(() => {
    mkdirSync(dir, { recursive: true });
    // the repository's own install: @mnote/contract is its workspace link to generated/ (built by
    // npm run build), beside the frameworks' current majors
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
    for (const file of ["consumer.mts", "consumer.cts", "consumer.ts"]) writeFileSync(join(dir, file), CONSUMER);
  });

  it("as ESM under nodenext (.mts) and as CommonJS under nodenext (.cts)", () => {
    expect(typeCheck(dir, "nodenext", "nodenext", ["consumer.mts", "consumer.cts"])).toBe("");
  });

  it("as ESM under bundler resolution", () => {
    expect(typeCheck(dir, "esnext", "bundler", ["consumer.ts"])).toBe("");
  });
});
