/**
 * generate --watch remembers its costly steps between runs (codegen/support/memo.ts: the targets,
 * the validators, the types, the examples' compiled validators, keyed by the content hash of what
 * each reads). After every edit of a series (a tool's description, a field's description, a
 * schema's limit, that limit undone, a save that changes nothing), the incremental run must give
 * exactly the files a clean run gives, byte for byte, and must have reused what the edit did not
 * reach. The generator runs in a child process on the build (json-schema-to-typescript's prettier
 * import fails inside Jest).
 */
import { spawnSync } from "node:child_process";
import { repoRoot } from "../support/paths";
import { scratchProject } from "../support/tmp";

jest.setTimeout(300_000);

/** Applies each edit to the contract copy, generating incrementally and cleanly after each; prints what it found. */
const SCRIPT = `
const { readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const dist = join(process.argv[1], "dist", "codegen");
const { readContractDir } = require(join(dist, "phases", "load"));
const { generate } = require(join(dist, "pipeline"));
const memo = require(join(dist, "support", "memo"));
const contract = process.argv[2];
const edits = JSON.parse(process.argv[3]);
const edit = (file, from, to) => {
  const path = join(contract, file);
  const text = readFileSync(path, "utf8");
  if (!text.includes(from)) throw new Error(file + " does not hold " + from);
  writeFileSync(path, text.replace(from, to));
};
const run = async (remember) => {
  if (!remember) memo.rememberResults(false);
  const { files } = await generate(readContractDir(contract));
  if (!remember) memo.rememberResults(true);
  return files;
};
(async () => {
  memo.rememberResults(true);
  await run(true);
  const steps = [];
  for (const [name, file, from, to] of edits) {
    if (file) edit(file, from, to);
    const before = memo.memoCounts();
    const incremental = await run(true);
    const after = memo.memoCounts();
    const clean = await run(false);
    const differing = clean.filter((f, i) => incremental[i] === undefined || incremental[i].path !== f.path || incremental[i].content !== f.content).map((f) => f.path);
    const hits = Object.fromEntries(Object.keys(after).map((k) => [k, after[k].hits - ((before[k] || {}).hits || 0)]));
    steps.push({ name, files: clean.length, sameCount: incremental.length === clean.length, differing, hits });
  }
  process.stdout.write(JSON.stringify(steps));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const TOOL = "tools/page.get.tool.json";
const TITLE = "tools/page.update_title.tool.json";
/** [name, file, from, to]: each edit replaces the first `from` in the file. */
const EDITS = [
  ["a tool's description", TOOL, '"Read the mnote page', '"Read, please, the mnote page'],
  ["a field's description", TOOL, '"Include bodySummary."', '"Include the bodySummary."'],
  ["a schema's limit", TITLE, '"maxLength": 500', '"maxLength": 480'],
  ["the limit undone", TITLE, '"maxLength": 480', '"maxLength": 500'],
  ["a save that changes nothing", "", "", ""],
] as const;

it("an incremental run after each of a series of edits gives the files of a clean run, byte for byte", () => {
  const p = scratchProject();
  const out = spawnSync(process.execPath, ["-e", SCRIPT, repoRoot, p.contract, JSON.stringify(EDITS)], {
    encoding: "utf8",
    timeout: 280_000,
  });
  expect(out.stderr).toBe("");
  expect(out.status).toBe(0);
  const steps = JSON.parse(out.stdout) as Array<{
    name: string;
    files: number;
    sameCount: boolean;
    differing: string[];
    hits: Record<string, number>;
  }>;
  expect(steps.map((s) => s.name)).toEqual(EDITS.map((e) => e[0]));
  for (const step of steps) {
    expect({ step: step.name, sameCount: step.sameCount, differing: step.differing }).toEqual({
      step: step.name,
      sameCount: true,
      differing: [],
    });
    expect(step.files).toBeGreaterThan(40);
  }
  const hits = Object.fromEntries(steps.map((s) => [s.name, s.hits]));
  // what each edit did not reach was reused: no description is in the validators or the examples' ajv
  expect(hits["a tool's description"]).toMatchObject({ validators: 1, examples: 1, types: 1 });
  expect(hits["a field's description"]).toMatchObject({ validators: 1, examples: 1 });
  // the limit undone is the contract of two runs before: everything comes from memory
  expect(hits["the limit undone"]).toMatchObject({ "target validators": 1, "target types": 1, examples: 1 });
  expect(hits["a save that changes nothing"]!["target validators"]).toBe(1);
  expect(hits["a save that changes nothing"]!["target docs"]).toBe(1);
});
