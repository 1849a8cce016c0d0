/**
 * The framework pages show their example as it runs: the js block after each
 * `<!-- example: <file> -->` marker is that file, byte for byte (the page's runnable block runs the
 * file, test/docs/runnable.test.ts). And the README's feature list names the three pages.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../support/paths";

const PAGES = ["AI-SDK.md", "LANGCHAIN.md", "OPENAI-AGENTS.md"];

describe("the agent-framework pages", () => {
  it.each(PAGES)("%s shows its example file exactly, and runs it in a runnable block", (page) => {
    const text = readFileSync(join(repoRoot, "docs", page), "utf8");
    const marked = /<!-- example: (\S+) -->\n\n```js\n([\s\S]*?)```/.exec(text);
    expect(marked).not.toBeNull();
    const [, file, shown] = marked!;
    expect(shown).toBe(readFileSync(join(repoRoot, file!), "utf8"));
    const runnable = /<!-- runnable: servers -->\n\n```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
    expect(runnable).toContain(`node ${file}`);
  });

  it("the README's feature list names the three pages", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    for (const page of PAGES) expect(readme).toContain(`(docs/${page})`);
  });
});
