/** docs/CONTRACT-DIFF.md lists every rule of diff/rules.ts, with its level, and no other. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RULES } from "../../diff/rules";
import { repoRoot } from "../support/paths";

const doc = readFileSync(join(repoRoot, "docs", "CONTRACT-DIFF.md"), "utf8");
const rows = new Map([...doc.matchAll(/^\| `([a-z-]+)` +\| (breaking|warning|safe) +\|/gm)].map((m) => [m[1]!, m[2]!]));

describe("docs/CONTRACT-DIFF.md", () => {
  it.each(RULES.map((r) => [r.id, r.level]))("lists %s as %s", (id, level) => {
    expect(rows.get(id)).toBe(level);
  });

  it("lists no rule that does not exist", () => {
    const known = new Set<string>(RULES.map((r) => r.id));
    expect([...rows.keys()].filter((id) => !known.has(id))).toEqual([]);
  });
});
