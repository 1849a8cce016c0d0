/**
 * Every command in README.md and docs/ runs as written. Each ```sh block carries a marker on the
 * line before it (README.md, "The docs are tested"): `<!-- runnable -->` blocks run in a scratch
 * clone, in document order, each command exiting 0; `<!-- runnable: servers -->` blocks start
 * their servers in the background (each must print {"listening"...}), run the other lines
 * against them, then stop them; `<!-- not runnable: why -->` blocks say why not. The documented
 * fixed ports are used in a private network namespace when one can be had. Also checked here:
 * the README's example contract error is what generate prints, the generator config examples
 * generate, the tarball names carry the contract's version, and the first command in a clone
 * without a build builds it and says so.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import { documents, networkNamespace, scratchClone, shellBlocks, type ShellBlock } from "./support";

jest.setTimeout(600_000);

const netns = networkNamespace();
const contractVersion = (
  JSON.parse(readFileSync(join(repoRoot, "contract", "contract.json"), "utf8")) as {
    version: string;
  }
).version;

/** The environment of a documented command: a scratch HOME (npm's cache, ~/.hermes), no MNOTE_* or OTEL_*. */
function docEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(MNOTE_|OTEL_|npm_|HERMES_)/i.test(k) && k !== "INIT_CWD") env[k] = v;
  return { ...env, HOME: home, CI: "true" };
}

/** Commands joined across trailing backslashes; comments (a # after a space, as the docs write them) and blank lines dropped. */
function commands(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.replace(/(^|\s)#(\s.*)?$/, "").trim())
    .filter((l) => l !== "");
}

const SERVER = /\bmnote-tools (serve|kernel serve|mcp .*--http)\b/;
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The bash script of one block. */
function script(block: ShellBlock): string {
  const head = ["set -uo pipefail", ...(netns ? ["ip link set lo up"] : []), "exec </dev/null", "rc=0", "pids=()"];
  const stop = [
    "stop() {",
    '  for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done',
    '  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done',
    "}",
  ];
  const body: string[] = [];
  for (const command of commands(block.text)) {
    if (block.marker.kind === "servers" && SERVER.test(command)) {
      body.push(
        "log=$(mktemp)",
        // variables before the command stay before exec (exec VAR=x cmd is not a command)
        `(${/^((?:\w+=\S*\s+)*)/.exec(command)![1]}exec ${command.replace(/^(?:\w+=\S*\s+)*/, "")}) >"$log" 2>"$log.err" &`,
        "pids+=($!)",
        'for _ in $(seq 1 600); do grep -q \'"listening"\' "$log" && break; kill -0 "$!" 2>/dev/null || break; sleep 0.1; done',
        `grep -q '"listening"' "$log" || { echo "not listening after 60 s: "${q(command)}; cat "$log.err"; stop; exit 1; }`,
      );
    } else {
      body.push(
        `${command} || { echo "failed ($?): "${q(command)} >&2; rc=1; }`,
        '[ "$rc" -eq 0 ] || { stop; exit 1; }',
      );
    }
  }
  return [...head, ...stop, "set -m", ...body, "stop", "exit $rc", ""].join("\n");
}

function run(block: ShellBlock, clone: string, home: string) {
  const file = join(home, `block-${block.line}.sh`);
  writeFileSync(file, script(block));
  const argv = netns ? ["unshare", ...netns, "bash", file] : ["bash", file];
  return spawnSync(argv[0]!, argv.slice(1), { cwd: clone, env: docEnv(home), encoding: "utf8", timeout: 300_000 });
}

describe("the shell blocks of README.md and docs/", () => {
  const blocks = documents().flatMap(shellBlocks);

  it("are many, and each is marked runnable or says why not", () => {
    expect(blocks.length).toBeGreaterThan(15);
    const unmarked = blocks.filter((b) => b.marker.kind === "none").map((b) => `${b.file}:${b.line}`);
    expect(unmarked).toEqual([]);
    expect(blocks.filter((b) => b.marker.kind === "runnable" || b.marker.kind === "servers").length).toBeGreaterThan(8);
  });

  describe(`run as written in a scratch clone${netns ? " (ports in a private network namespace)" : ""}`, () => {
    let clone: string;
    let home: string;
    beforeAll(() => {
      clone = scratchClone({ withBuild: true });
      home = tempDir("mnote-home-");
    });
    const runnable = blocks.filter((b) => b.marker.kind === "runnable" || b.marker.kind === "servers");
    it.each(runnable.map((b) => [`${b.file}:${b.line}`, b] as const))("%s", (_where, block) => {
      const result = run(block, clone, home);
      expect({ status: result.status, stderr: result.status === 0 ? "" : result.stdout + result.stderr }).toEqual({
        status: 0,
        stderr: "",
      });
    });
  });
});

describe("what the docs show", () => {
  it("the README's example contract error is what generate prints for that mistake", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const shown = /A malformed contract[^\n]*stops generation[^\n]*\n\n```\n(.*)\n```/.exec(readme)?.[1];
    expect(shown).toMatch(/^invalid contract: tools\/page\.save\.tool\.json:\d+:\d+ at \/x-mnote-tool\/capability: /);
    const clone = scratchClone({ withBuild: true });
    const tool = join(clone, "contract", "tools", "page.save.tool.json");
    // the mistake the README names: a capability misspelt
    writeFileSync(tool, readFileSync(tool, "utf8").replace('"capability": "page.write"', '"capability": "page.writ"'));
    const run = spawnSync(process.execPath, ["bin/mnote-tools.js", "generate"], { cwd: clone, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(shown);
  });

  it("the generator config examples (README, docs/GENERATOR-CONFIG.md) generate, with the documented outside target", () => {
    const guide = readFileSync(join(repoRoot, "docs", "GENERATOR-CONFIG.md"), "utf8");
    const targetSource = /```ts\n([\s\S]*?)```/.exec(guide)![1]!;
    const targetJs = ts.transpileModule(targetSource, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const configs = [
      /```json\n(\{\n {2}"targets"[\s\S]*?)```/.exec(readFileSync(join(repoRoot, "README.md"), "utf8"))![1]!,
      /## The file\n\n```json\n([\s\S]*?)```/.exec(guide)![1]!,
    ];
    for (const config of configs) {
      const clone = scratchClone({ withBuild: true });
      mkdirSync(join(clone, "tools"));
      writeFileSync(join(clone, "tools", "tool-list.js"), targetJs);
      writeFileSync(join(clone, "mnote-tools.config.json"), config);
      const generate = spawnSync(process.execPath, ["bin/mnote-tools.js", "generate", "--quiet"], {
        cwd: clone,
        encoding: "utf8",
      });
      expect({ status: generate.status, stderr: generate.stderr }).toEqual({ status: 0, stderr: "" });
      expect(readFileSync(join(clone, "lists", "tools.txt"), "utf8")).toContain("* mnote.page.get");
      const check = spawnSync(process.execPath, ["bin/mnote-tools.js", "generate", "--check", "--quiet"], {
        cwd: clone,
        encoding: "utf8",
      });
      expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: "" });
    }
  });

  it("tarball names carry the contract's version", () => {
    for (const file of documents()) {
      const text = readFileSync(join(repoRoot, file), "utf8");
      for (const m of text.matchAll(/mnote-contract-(\d+\.\d+\.\d+)\.tgz/g))
        expect([file, m[1]]).toEqual([file, contractVersion]);
    }
  });

  it("the first command in a clone without a build builds it, and says so (npx mnote-tools)", () => {
    const clone = scratchClone({ withBuild: false });
    const home = tempDir("mnote-home-");
    const first = spawnSync("npx", ["mnote-tools", "--version"], { cwd: clone, env: docEnv(home), encoding: "utf8" });
    expect(first.stderr).toContain("mnote-tools: first run in this clone: building it first (npm run build");
    expect({ status: first.status, stdout: first.stdout.trim() }).toEqual({
      status: 0,
      stdout: `${JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version} (contract mnote-page-ai-tools ${contractVersion})`,
    });
    const second = spawnSync("npx", ["mnote-tools", "--version"], { cwd: clone, env: docEnv(home), encoding: "utf8" });
    expect({ status: second.status, stderr: second.stderr }).toEqual({ status: 0, stderr: "" });
  });
});
