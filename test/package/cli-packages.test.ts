/**
 * The CLI on its packages (docs/PACKAGES.md): mnote-tools, packed by scripts/link-packages.js and
 * installed from the tarballs into the scratch project of scripts/check-package-budgets.js (one
 * packing, one install; .ci/run hands its project over), runs on the installed @mnote/runtime and
 * @mnote/diff: one copy of each of their modules. And `mnote-diff`, the bin of @mnote/diff,
 * installed alone, answers as `mnote-tools diff` does.
 */
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import { readJson } from "../support/consumer";

jest.setTimeout(600_000);

// eslint-disable-next-line @typescript-eslint/no-require-imports
const budgets = require("../../scripts/check-package-budgets.js") as {
  checkBudgets(dir: string): { tarballs: Record<string, string> };
  install(dir: string, tarballs: Record<string, string>, peers: string[]): void;
};

function scratch(): { dir: string; tarballs: Record<string, string> } {
  const handed = process.env.MNOTE_PACKAGES_SCRATCH;
  if (handed && existsSync(join(handed, "budgets.json")))
    return { dir: handed, ...readJson<{ tarballs: Record<string, string> }>(join(handed, "budgets.json")) };
  const dir = tempDir("mnote-cli-packages-");
  return { dir, ...budgets.checkBudgets(dir) };
}

const node = (args: string[], cwd: string, input?: string) =>
  spawnSync(process.execPath, args, { cwd, encoding: "utf8", input, timeout: 120_000 });

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"));
}

describe("mnote-tools installed from the tarballs, on @mnote/runtime and @mnote/diff", () => {
  const { dir, tarballs } = scratch();
  const cli = join(dir, "node_modules", "mnote-tools");
  const bin = join(cli, "bin", "mnote-tools.js");
  const packageDist = (name: string) => join(dir, "node_modules", "@mnote", name, "dist");

  it("its manifest depends on the packages and on the drivers, servers and exporters the CLI runs", () => {
    const deps = Object.keys(
      readJson<{ dependencies: Record<string, string> }>(join(cli, "package.json")).dependencies,
    );
    for (const name of [
      ...["@mnote/contract", "@mnote/runtime", "@mnote/diff", "better-sqlite3", "ioredis", "pg"],
      ...["@modelcontextprotocol/server", "pino", "jose", "@opentelemetry/exporter-trace-otlp-http"],
    ])
      expect([name, deps.includes(name)]).toEqual([name, true]);
  });

  it("holds one copy of each runtime and diff module: the CLI's file is a one-line module giving the package's own", () => {
    const carried = ["runtime", "diff"].flatMap((name) =>
      jsFiles(packageDist(name))
        .filter((f) => !f.startsWith("generated/"))
        .map((f) => ({ name, f })),
    );
    expect(carried.length).toBeGreaterThan(150);
    // a module both packages carry is the runtime's in the CLI (link-packages.js), and the diff keeps
    // its own: today a few pure files of common/ (functions, no class, no state but version's memo
    // of a constant); a new one here is a decision to look at, not to wave through
    const both = carried.filter((c) => c.name === "diff" && carried.some((r) => r.name === "runtime" && r.f === c.f));
    expect(both.map((c) => c.f).sort()).toEqual([
      "common/hash.js",
      "common/json-pointer.js",
      "common/validation-problem.js",
      "common/values.js",
      "common/version.js",
    ]);
    const script = [
      `const carried = ${JSON.stringify(carried.filter((c) => !both.includes(c)))};`,
      `const cli = ${JSON.stringify(join(cli, "dist"))};`,
      'const { existsSync, readFileSync } = require("node:fs");',
      "const out = [];",
      "for (const { name, f } of carried) {",
      "  const own = require.resolve(`@mnote/${name}/package.json`).replace(/package\\.json$/, `dist/${f}`);",
      "  const mine = `${cli}/${f}`;",
      "  if (!existsSync(mine)) continue;",
      "  const text = readFileSync(mine, 'utf8');",
      "  // diff/bin.js is a program (it runs when loaded): its one-line module is checked by its text",
      "  const same = f === 'diff/bin.js' ? text.includes('written by scripts/link-packages.js') : require(mine) === require(own);",
      "  out.push([f, text.length < 400, same]);",
      "}",
      "console.log(JSON.stringify(out));",
    ].join("\n");
    const run = node(["-e", script], dir);
    expect(run.stderr).toBe("");
    const checked = JSON.parse(run.stdout) as Array<[string, boolean, boolean]>;
    expect(checked.length).toBe(carried.length - both.length);
    expect(checked.filter(([, short, same]) => !short || !same)).toEqual([]);
  });

  it("runs generate and generate --check from its bundled contract", () => {
    const work = tempDir("mnote-cli-generate-");
    cpSync(join(cli, "contract"), join(work, "contract"), { recursive: true });
    const gen = (...more: string[]) =>
      node(
        [bin, "generate", "--contract", join(work, "contract"), "--out", join(work, "out"), "--quiet", ...more],
        work,
      );
    const made = gen();
    expect([made.status, made.stderr]).toEqual([0, ""]);
    const check = gen("--check");
    expect([check.status, check.stderr]).toEqual([0, ""]);
    writeFileSync(join(work, "out", "registry.ts"), "// edited\n");
    expect(gen("--check").status).toBe(1);
  });

  it("answers a call against the embedded kernel, loading the runtime from @mnote/runtime only", () => {
    const work = tempDir("mnote-cli-call-");
    const [db, state] = [join(work, "k.db"), join(work, "s.db")];
    const seed = node([bin, "kernel", "seed", join(cli, "examples", "demo-workspace.json"), "--db", db], dir);
    expect(seed.status).toBe(0);
    const grant = node(
      [bin, "session", "grant", "--state", state, "--session", "sess_1", "--workspace", "ws_1"].concat([
        "--document",
        "doc_1",
        "--actor",
        "user_1",
        "--scope",
        "page.read",
      ]),
      dir,
    );
    expect([grant.status, grant.stderr]).toEqual([0, ""]);
    const hook = join(work, "list-modules.js");
    writeFileSync(
      hook,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(join(work, "modules.json"))}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const request = {
      ...readJson<Record<string, unknown>>(join(cli, "examples", "page-get.request.json")),
      sessionId: "sess_1",
    };
    const run = node(["--require", hook, bin, "call", "--db", db, "--state", state], dir, JSON.stringify(request));
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, toolName: "mnote.page.get" });
    const loaded = (JSON.parse(readFileSync(join(work, "modules.json"), "utf8")) as string[]).map((m) =>
      m.split("\\").join("/"),
    );
    const fromRuntime = loaded.filter((m) => m.includes("/node_modules/@mnote/runtime/dist/"));
    expect(fromRuntime.filter((m) => m.endsWith("/runtime/dispatch/dispatcher.js"))).toHaveLength(1);
    // every CLI module loaded that the runtime also has is the one-line module, not code
    const whole = loaded
      .filter((m) => m.includes("/node_modules/mnote-tools/dist/"))
      .filter((m) => existsSync(join(packageDist("runtime"), m.split("/node_modules/mnote-tools/dist/")[1]!)))
      .filter((m) => !readFileSync(m, "utf8").includes("written by scripts/link-packages.js"));
    expect(whole).toEqual([]);
  });

  describe("mnote-diff, the bin of @mnote/diff, installed with nothing else", () => {
    const alone = tempDir("mnote-diff-alone-");
    const only = { "@mnote/diff": tarballs["@mnote/diff"]!, "@mnote/contract": tarballs["@mnote/contract"]! };
    for (const file of Object.values(only)) cpSync(join(dir, file), join(alone, file));
    budgets.install(alone, only, []);
    for (const d of [alone, dir]) {
      cpSync(join(repoRoot, "contract"), join(d, "c-head"), { recursive: true });
      cpSync(join(repoRoot, "contract-releases"), join(d, "c-releases"), { recursive: true });
    }

    it("installs only the diff, the contract and the diff's ajv", () => {
      const installed = readdirSync(join(alone, "node_modules")).filter((n) => !n.startsWith("."));
      expect(installed.sort()).toEqual(
        [
          "@mnote",
          "ajv",
          "ajv-formats",
          "fast-deep-equal",
          "fast-uri",
          "json-schema-traverse",
          "require-from-string",
        ].sort(),
      );
      expect(readdirSync(join(alone, "node_modules", "@mnote")).sort()).toEqual(["contract", "diff"]);
      expect(existsSync(join(alone, "node_modules", ".bin", "mnote-diff"))).toBe(true);
    });

    it("diffs two contract folders with the same output and exit code as mnote-tools diff, case by case", () => {
      const cases: Array<[string, string[]]> = [
        ["passing (json)", ["--format", "json"]],
        ["breaking (human)", ["--contract", "c-releases/1.0.0", "--base", "c-head"]],
        ["a bad --format (usage)", ["--format", "nope"]],
        ["a missing severity file (configuration)", ["--rules", "missing.json"]],
      ];
      const codes = new Set<number | null>();
      for (const [what, extra] of cases) {
        const args = ["--contract", "c-head", "--releases", "c-releases", ...extra];
        const tools = node([bin, "diff", ...args], dir);
        const diff = node([join(alone, "node_modules", ".bin", "mnote-diff"), ...args], alone);
        expect({ what, code: diff.status, stdout: diff.stdout }).toEqual({
          what,
          code: tools.status,
          stdout: tools.stdout,
        });
        expect([what, diff.stdout.length + diff.stderr.length > 0]).toEqual([what, true]);
        codes.add(diff.status);
      }
      // the cases end differently (0, 1, 2, 3), so the comparison compares something
      expect([...codes].sort()).toEqual([0, 1, 2, 3]);
    });
  });
});
