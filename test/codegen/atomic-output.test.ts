/**
 * A reader of an output folder (a watcher, a dev server, a test importing generated/) never finds
 * an owned file missing or half written while generate rewrites the folder: a second process
 * polls every file of two alternating versions during 50 writes, and each read must be one
 * version's whole text. The versions differ in which files they hold too, so stale files are
 * deleted and written again on the way. Bounded: 50 writes of some 120 small files.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeOutput } from "../../codegen/phases/write";
import { ownedListFile } from "../../codegen/phases/ownership";
import type { GeneratedFile } from "../../codegen/targets/target";
import { tempDir } from "../support/tmp";

jest.setTimeout(180_000);

const WRITES = 50;
/** Files both versions hold (the reader watches registry.ts and the list among them). */
const SHARED = ["registry.ts", "index.ts", ...Array.from({ length: 100 }, (_, i) => `docs/tools/t${i}.md`)];
/** Files only version B holds: deleted as stale by every write of A. */
const ONLY_B = Array.from({ length: 20 }, (_, i) => `extra/e${i}.ts`);

function version(tag: "A" | "B"): GeneratedFile[] {
  const paths = tag === "A" ? SHARED : [...SHARED, ...ONLY_B];
  const files = paths.map((path) => ({ path, content: `// ${tag} ${path}\n${`${tag}`.repeat(4000)}\n` }));
  return [...files, ownedListFile(`# banner ${tag}`, paths)];
}

/** Polls the files until `stop` appears; prints reads and what it found wrong (a missing or mixed file). */
const READER = `
const { readFileSync, existsSync } = require("node:fs");
const { join } = require("node:path");
const [dir, stop, ...paths] = process.argv.slice(1);
const expected = new Map(paths.map((p) => [p, ["A", "B"].map((t) => "// " + t + " " + p + "\\n" + t.repeat(4000) + "\\n")]));
let reads = 0;
const wrong = [];
process.stdout.write("ready\\n");
while (!existsSync(stop)) {
  for (const [path, texts] of expected) {
    reads++;
    let text;
    try { text = readFileSync(join(dir, path), "utf8"); } catch (e) { wrong.push(path + ": " + e.code); continue; }
    if (!texts.includes(text)) wrong.push(path + ": neither version (" + text.length + " chars)");
  }
  try {
    const list = readFileSync(join(dir, ".mnote-generated"), "utf8");
    if (!list.includes("registry.ts")) wrong.push(".mnote-generated: registry.ts not on it");
  } catch (e) { wrong.push(".mnote-generated: " + e.code); }
}
process.stdout.write(JSON.stringify({ reads, wrong: wrong.slice(0, 20), wrongCount: wrong.length }) + "\\n");
`;

it(`a reader polling the folder during ${WRITES} regenerations never finds a file missing or mixed`, async () => {
  const parent = tempDir("mnote-atomic-");
  const out = join(parent, "generated");
  const stop = join(parent, "stop");
  const a = version("A");
  const b = version("B");
  writeOutput(out, a);
  const reader = spawn(process.execPath, ["-e", READER, out, stop, "registry.ts", "index.ts", "docs/tools/t0.md"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let said = "";
  reader.stdout!.on("data", (d: Buffer) => (said += d.toString("utf8")));
  const exited = new Promise<number | null>((r) => reader.once("exit", r));
  while (!said.includes("ready")) await new Promise((r) => setTimeout(r, 20));

  for (let i = 0; i < WRITES; i++) {
    writeOutput(out, i % 2 === 0 ? b : a);
    // let the reader run between writes too, as it would beside a watcher
    await new Promise((r) => setImmediate(r));
  }
  writeFileSync(stop, "");
  expect(await exited).toBe(0);
  const result = JSON.parse(said.split("\n")[1]!) as { reads: number; wrong: string[]; wrongCount: number };
  expect(result.wrong).toEqual([]);
  expect(result.reads).toBeGreaterThan(0);
  // the last write (of A) deleted B's extra files
  expect(existsSync(join(out, ONLY_B[0]!))).toBe(false);
});
