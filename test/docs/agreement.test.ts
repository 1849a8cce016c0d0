/**
 * The README and the docs pages say the same (issue 47: the README said `ai` 6 with needsApproval,
 * docs/AI-SDK.md `ai` 7 with toolApproval), and both say what package.json's peers say:
 *   - every "`<framework>` N" in README.md and docs/*.md names the lowest version the contract
 *     package's peer range takes (its major; for a 0.x range, 0.minor);
 *   - every name in backticks in the README's one-line summary of a framework page is in that page.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../support/paths";

const read = (...path: string[]) => readFileSync(join(repoRoot, ...path), "utf8");
const peers = (JSON.parse(read("generated", "package.json")) as { peerDependencies: Record<string, string> })
  .peerDependencies;
const FRAMEWORKS = ["ai", "@langchain/core", "@openai/agents"];
const pages = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** "^7.0.0" -> "7", ">=0.20.0 <1.0.0" -> "0.20": how the docs name the lowest version a range takes. */
function lowest(range: string): string {
  const m = /(\d+)\.(\d+)\.\d+/.exec(range);
  if (!m) throw new Error(`cannot read the peer range "${range}"`);
  return m[1] === "0" ? `0.${m[2]}` : m[1]!;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

it("the peers are the frameworks this test knows (a new framework needs a row here)", () => {
  expect(FRAMEWORKS.every((f) => f in peers)).toBe(true);
});

it.each(FRAMEWORKS)("every version of `%s` named in README.md and docs/ is the peer range's lowest", (framework) => {
  const want = lowest(peers[framework]!);
  const named: string[] = [];
  for (const page of pages) {
    // "`ai` 7", "`ai` 7.0", "`@openai/agents` 0.20": the version right after the name in backticks
    const pattern = new RegExp("`" + escape(framework) + "`\\s+(\\d+(?:\\.\\d+)?)", "g");
    for (const m of read(page).matchAll(pattern)) {
      // "`ai` 6 is no longer supported" names a version on purpose
      if (/^[^.]*no longer supported/.test(read(page).slice(m.index! + m[0].length))) continue;
      const [major, minor] = m[1]!.split(".");
      const said = major === "0" ? `0.${minor ?? "?"}` : major!;
      named.push(`${page}: ${said}`);
      expect(`${page}: ${said}`).toBe(`${page}: ${want}`);
    }
  }
  // the README names each framework's version, and so does its own page
  expect(named.some((n) => n.startsWith("README.md"))).toBe(true);
  expect(named.some((n) => n.startsWith("docs/"))).toBe(true);
});

it("every name in backticks in the README's summary of a framework page appears in that page", () => {
  const readme = read("README.md");
  const lines = readme.split("\n").filter((l) => /^- \[docs\/(AI-SDK|LANGCHAIN|OPENAI-AGENTS)\.md\]/.test(l));
  expect(lines).toHaveLength(3);
  for (const line of lines) {
    const page = /\((docs\/[A-Z-]+\.md)\)/.exec(line)![1]!;
    const text = read(page);
    const names = [...line.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1]!.match(/[A-Za-z_][\w-]*/g) ?? []);
    const missing = [...new Set(names)].filter((n) => !text.includes(n) && !FRAMEWORKS.some((f) => f.includes(n)));
    expect({ page, missing }).toEqual({ page, missing: [] });
  }
});
