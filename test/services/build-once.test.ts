/**
 * scripts/build-once.js, which `npm test`, `npm run demo`, `npm run bench` and `npm run tarballs`
 * start with: it builds a tree once, keyed by its sources, so the same tree (or a copy of it, as
 * the docs test's scratch clones are) is not built three times. Driven in a stand-in project whose
 * build script only counts how often it ran.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";

function standIn(): string {
  const root = tempDir("mnote-build-once-");
  mkdirSync(join(root, "scripts"));
  mkdirSync(join(root, "cli"));
  cpSync(join(repoRoot, "scripts", "build-once.js"), join(root, "scripts", "build-once.js"));
  writeFileSync(join(root, "cli", "main.ts"), "export const a = 1;\n");
  // the build: count the run, make the two outputs the script looks for
  const build =
    "node -e \"const f=require('fs');f.appendFileSync('builds','x');f.mkdirSync('dist/cli',{recursive:true});" +
    "f.writeFileSync('dist/cli/main.js','');f.mkdirSync('generated/dist/cjs',{recursive:true});f.writeFileSync('generated/dist/cjs/index.js','')\"";
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "stand-in", private: true, scripts: { build } }));
  return root;
}

/** How many times the stand-in's build ran so far. */
function builds(root: string): number {
  try {
    return readFileSync(join(root, "builds"), "utf8").length;
  } catch {
    return 0;
  }
}

function buildOnce(root: string, env: NodeJS.ProcessEnv = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|MNOTE_)/i.test(k)));
  const earlier = builds(root);
  const run = spawnSync(process.execPath, [join(root, "scripts", "build-once.js")], {
    cwd: root,
    env: { ...clean, ...env },
    encoding: "utf8",
  });
  const now = builds(root);
  // a build says so before and after (it is silent for a while); nothing to build, nothing said
  expect([run.status, run.stderr]).toEqual([
    0,
    now > earlier
      ? expect.stringMatching(/^building dist\/ \(TypeScript; about 15 s.*\)\nbuilt dist\/ in \d+ s\n$/)
      : "",
  ]);
  return now;
}

describe("build once", () => {
  it("builds a tree once; a changed source builds again; removed outputs build again", () => {
    const root = standIn();
    expect(buildOnce(root)).toBe(1);
    expect(buildOnce(root)).toBe(1);
    appendFileSync(join(root, "cli", "main.ts"), "export const b = 2;\n");
    expect(buildOnce(root)).toBe(2);
    expect(buildOnce(root)).toBe(2);
    rmSync(join(root, "generated", "dist"), { recursive: true });
    expect(buildOnce(root)).toBe(3);
  });

  it("a copy of a built tree (a scratch clone) builds nothing", () => {
    const root = standIn();
    expect(buildOnce(root)).toBe(1);
    const copy = join(tempDir("mnote-build-copy-"), "clone");
    cpSync(root, copy, { recursive: true });
    expect(buildOnce(copy)).toBe(1);
  });

  it("MNOTE_BUILD_FRESH=1 (.ci/run, after its one build) skips even a tree never built", () => {
    const root = standIn();
    writeFileSync(join(root, "builds"), "");
    expect(buildOnce(root, { MNOTE_BUILD_FRESH: "1" })).toBe(0);
  });
});
