/**
 * Both packages as they would be published: `npm pack` each, install the tarballs into empty
 * projects with no network (npm's --offline: the contract package needs nothing, and the CLI's
 * dependencies come from the npm cache `npm ci` filled, pinned by the repo's lock file), then use
 * them as an outsider would. Slow (packing, installing, compiling): a wide timeout.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import { addConsumerFiles, compileConsumer, readJson, runConsumer } from "../support/consumer";

jest.setTimeout(600_000);

interface PackResult {
  filename: string;
  files: { path: string }[];
}
interface LockEntry {
  version?: string;
  resolved?: string;
  dev?: boolean;
  link?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

/** npm with the caller's npm settings left out (npm test exports npm_config_* for its own run), keeping the cache. */
function npm(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|userconfig)$/i.test(k)),
  );
  const run = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", args, {
    cwd,
    env,
    encoding: "utf8",
    timeout: 300_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function pack(args: string[], into: string): PackResult {
  // the build is made by pretest (npm run build); --ignore-scripts keeps pack from building again
  const run = npm(["pack", "--json", "--ignore-scripts", "--pack-destination", into, ...args], repoRoot);
  if (run.status !== 0) throw new Error(`npm pack ${args.join(" ")} failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as PackResult[])[0]!;
}

function project(prefix: string, manifest: Record<string, unknown>): string {
  const dir = tempDir(prefix);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "outside-project", version: "1.0.0", private: true, ...manifest }, null, 2),
  );
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("the two packages, packed and installed offline into empty projects", () => {
  const packs = tempDir("mnote-packs-");
  const contractPack = pack(["--workspace", "generated"], packs);
  // the CLI is packed on @mnote/runtime and @mnote/diff (scripts/link-packages.js), so it installs with them
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const linker = require("../../scripts/link-packages.js") as { packCli(into: string): PackResult };
  const cliPack = linker.packCli(packs);
  const runtimePack = pack(["--workspace", "runtime"], packs);
  const diffPack = pack(["--workspace", "diff"], packs);
  const contractFiles = contractPack.files.map((f) => f.path).sort();
  const cliFiles = cliPack.files.map((f) => f.path).sort();

  it("the contract package holds its build, its ESM entry and its manifest: no TypeScript source, nothing private", () => {
    expect(contractFiles).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "LICENSE",
        "contract-manifest.json",
        "esm/index.mjs",
        "esm/index.d.mts",
        "dist/cjs/index.js",
        "dist/cjs/index.d.ts",
      ]),
    );
    expect(
      contractFiles.filter(
        (f) =>
          !/^(package\.json|README\.md|LICENSE|contract-manifest\.json|esm\/(index|ai-sdk|langchain|openai-agents)\.d?\.?mts|esm\/(index|ai-sdk|langchain|openai-agents)\.mjs|dist\/cjs\/.*\.(js|d\.ts))$/.test(
            f,
          ),
      ),
    ).toEqual([]);
    expect(contractFiles.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  });

  it("the CLI package holds what the CLI runs: no bench, no dev scripts, no generated source, nothing twice", () => {
    expect(cliFiles).toEqual(
      expect.arrayContaining([
        "bin/mnote-tools.js",
        "LICENSE",
        "dist/cli/main.js",
        "dist/diff/index.js",
        "contract/contract.json",
        "codegen/templates/hermes/SKILL.md.hbs",
        "generated/hermes-plugin/mnote/plugin.yaml",
      ]),
    );
    const unwanted = cliFiles.filter((f) =>
      /^(dist\/(bench|scripts|test)\/|bench\/|scripts\/|test\/|generated\/(dist\/|esm\/|package\.json|.*\.ts$)|node_modules\/|\.ci\/)/.test(
        f,
      ),
    );
    expect(unwanted).toEqual([]);
    // the contract package is not shipped twice: dist/generated holds one-line modules that load
    // @mnote/contract (scripts/link-contract.js), not a compiled copy of it
    const shims = cliFiles.filter((f) => f.startsWith("dist/generated/"));
    expect(shims.length).toBeGreaterThan(0);
    for (const f of shims) {
      expect([f, f.endsWith(".js")]).toEqual([f, true]);
      const text = readFileSync(join(repoRoot, f), "utf8");
      expect([f, text.length < 400, text.includes('require.resolve("@mnote/contract")')]).toEqual([f, true, true]);
    }
    // every compiled file once: no .ts source next to its build
    expect(cliFiles.filter((f) => /\.ts$/.test(f) && !/\.d\.ts$/.test(f) && !f.startsWith("codegen/assets/"))).toEqual(
      [],
    );
  });

  it("neither package is private; the CLI depends on the contract package at its version", () => {
    const contractManifest = readJson(join(repoRoot, "generated", "package.json"));
    const cliManifest = readJson<{ private?: boolean; dependencies: Record<string, string> }>(
      join(repoRoot, "package.json"),
    );
    expect(contractManifest.private).toBeUndefined();
    expect(cliManifest.private).toBeUndefined();
    expect(cliManifest.dependencies["@mnote/contract"]).toBe(contractManifest.version);
  });

  describe("the contract package alone", () => {
    const dir = project("mnote-plugin-author-", {});

    it("installs offline with zero dependencies, no install script and no native build", () => {
      const run = npm(["install", "--offline", "--no-audit", "--no-fund", join(packs, contractPack.filename)], dir);
      expect(run.stderr).not.toMatch(/ERR/);
      expect(run.status).toBe(0);
      const lock = readJson<{ packages: Record<string, LockEntry> }>(join(dir, "package-lock.json"));
      const installed = Object.keys(lock.packages).filter((k) => k !== "");
      expect(installed).toEqual(["node_modules/@mnote/contract"]);
      expect(lock.packages["node_modules/@mnote/contract"]!.hasInstallScript).toBeUndefined();
      const manifest = readJson<Record<string, unknown>>(
        join(dir, "node_modules", "@mnote", "contract", "package.json"),
      );
      expect([manifest.dependencies, manifest.optionalDependencies, manifest.scripts]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      // the agent frameworks of the subpaths (and the OpenTelemetry API) are optional peers: never installed for it
      const peers = Object.keys((manifest.peerDependencies ?? {}) as object).sort();
      expect(peers).toEqual(["@langchain/core", "@openai/agents", "@opentelemetry/api", "ai"]);
      expect(manifest.peerDependenciesMeta).toEqual(Object.fromEntries(peers.map((p) => [p, { optional: true }])));
      const files = filesUnder(join(dir, "node_modules"));
      expect(files.filter((f) => /\.node$|binding\.gyp$/.test(f))).toEqual([]);
    });

    it("its LICENSE is the repository's MIT license", () => {
      const shipped = readFileSync(join(dir, "node_modules", "@mnote", "contract", "LICENSE"), "utf8");
      expect(shipped.endsWith(readFileSync(join(repoRoot, "LICENSE"), "utf8"))).toBe(true);
      expect(contractManifest()).toMatchObject({ license: "MIT" });
    });

    it("its declarations are self-contained: they type-check with no ambient types at all (no @types/node)", () => {
      writeFileSync(
        join(dir, "bare.cts"),
        [
          'import { tools, validateToolResponse, KernelMisconfigured, type PageSaveArgs } from "@mnote/contract";',
          'const args: PageSaveArgs = { content: [{ type: "paragraph", text: "x" }], mode: "append", baseRevision: 1 };',
          'export const name: string = tools["mnote.page.save"].providerName;',
          "export const checks: boolean = validateToolResponse(args);",
          'export const kind: string = new KernelMisconfigured("token_refused", "x").kind;',
          "",
        ].join("\n"),
      );
      const result = compileConsumer(dir, { module: "node16", moduleResolution: "node16" }, ["bare.cts"], undefined, {
        types: [],
        typeRoots: [],
        lib: ["ES2023"],
      });
      expect(result.output).toBe("");
      expect(result.status).toBe(0);
    });

    it("a TypeScript consumer type-checks against it, and runs as ESM and as CommonJS", () => {
      addConsumerFiles(dir);
      const compiled = compileConsumer(
        dir,
        { module: "node16", moduleResolution: "node16" },
        ["consumer.mts", "consumer.cts"],
        "out",
      );
      expect(compiled.output).toBe("");
      expect(compiled.status).toBe(0);
      const expected = {
        valid: true,
        invalid: false,
        providerName: "mnote_page_save",
        version: contractManifest().version,
        refusal: true,
      };
      expect(runConsumer(join(dir, "out", "consumer.mjs"), dir)).toEqual({ module: "esm", ...expected });
      expect(runConsumer(join(dir, "out", "consumer.cjs"), dir)).toEqual({ module: "commonjs", ...expected });
    });
  });

  describe("an agent-framework target, in a project that has the framework", () => {
    const dir = project("mnote-ai-sdk-user-", {});

    it("installs offline beside the AI SDK (the version this repository tests with), imports @mnote/contract/ai-sdk, type-checks and runs as ESM and CommonJS", () => {
      cpSync(join(packs, contractPack.filename), join(dir, contractPack.filename));
      // @types/json-schema: the AI SDK's declarations import it without depending on it (a user who
      // type-checks libraries, as this test does with skipLibCheck off, installs it)
      writeFrameworkLock(dir, contractPack.filename, ["ai", "@types/json-schema"]);
      const run = npm(["ci", "--offline", "--no-audit", "--no-fund"], dir);
      expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({
        status: 0,
        stderr: expect.not.stringMatching(/ERR/),
        stdout: expect.any(String),
      });
      const consumer = [
        'import { mnoteTools, type MnoteAiSdkToolName } from "@mnote/contract/ai-sdk";',
        'import type { ToolSet } from "ai";',
        "const tools = mnoteTools({",
        '  connection: { url: "http://127.0.0.1:9", token: "token" },',
        '  session: { sessionId: "sess_1" },',
        '  provider: "openai-strict",',
        "});",
        "const set: ToolSet = tools;",
        'const name: MnoteAiSdkToolName = "mnote_page_save";',
        "// @ts-expect-error a name the contract does not have",
        'const wrong: MnoteAiSdkToolName = "mnote_page_delete";',
        'const isModule = typeof require === "undefined" ? "esm" : "commonjs";',
        "console.log(JSON.stringify({ module: isModule, tools: Object.keys(set).length, save: typeof tools[name].execute, wrong }));",
        "",
      ].join("\n");
      writeFileSync(join(dir, "frameworks.mts"), consumer);
      writeFileSync(join(dir, "frameworks.cts"), consumer);
      // ai 7 is ESM only: a CommonJS program reads its types under nodenext (TypeScript 5.8+,
      // require of ESM as Node 22 does it); node16 refuses that import
      const compiled = compileConsumer(
        dir,
        { module: "nodenext", moduleResolution: "nodenext" },
        ["frameworks.mts", "frameworks.cts"],
        "out",
      );
      expect(compiled.output).toBe("");
      expect(compiled.status).toBe(0);
      const expected = { tools: 6, save: "function", wrong: "mnote_page_delete" };
      expect(runConsumer(join(dir, "out", "frameworks.mjs"), dir)).toEqual({ module: "esm", ...expected });
      expect(runConsumer(join(dir, "out", "frameworks.cjs"), dir)).toEqual({ module: "commonjs", ...expected });
    });
  });

  describe("the CLI package", () => {
    const dir = tempDir("mnote-cli-user-");

    it("installs offline from the tarballs, its dependencies pinned by the repo's lock file", () => {
      for (const p of [contractPack, cliPack, runtimePack, diffPack])
        cpSync(join(packs, p.filename), join(dir, p.filename));
      writeOfflineLock(dir, contractPack.filename, cliPack.filename, {
        "@mnote/runtime": runtimePack.filename,
        "@mnote/diff": diffPack.filename,
      });
      // better-sqlite3's install script would build or download its binary; the repo's npm ci did
      // that already for this Node, so the test skips the script and copies that binary in
      const run = npm(["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], dir);
      if (run.status !== 0) process.stderr.write(`npm ci said:\n${run.stdout}\n${run.stderr}\n`);
      expect({ status: run.status, stderr: run.stderr, stdout: run.stdout }).toEqual({
        status: 0,
        stderr: expect.not.stringMatching(/ERR/),
        stdout: expect.any(String),
      });
      cpSync(
        join(repoRoot, "node_modules", "better-sqlite3", "build"),
        join(dir, "node_modules", "better-sqlite3", "build"),
        { recursive: true },
      );
      expect(existsSync(join(dir, "node_modules", "@mnote", "contract", "dist", "cjs", "index.js"))).toBe(true);
    });

    it("npx mnote-tools --help works from the installed tarball", () => {
      const run = npm(["exec", "--offline", "--", "mnote-tools", "--help"], dir);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^Usage: mnote-tools/);
      for (const verb of ["generate", "diff", "serve", "mcp", "kernel", "hermes"]) expect(run.stdout).toContain(verb);
    });

    it("ships its LICENSE and no install-time script (no prepare: npm 11 asks to allow those); --version answers", () => {
      const installed = join(dir, "node_modules", "mnote-tools");
      expect(readFileSync(join(installed, "LICENSE"), "utf8")).toBe(readFileSync(join(repoRoot, "LICENSE"), "utf8"));
      const manifest = readJson<{ scripts?: Record<string, string>; version: string }>(join(installed, "package.json"));
      const lifecycle = ["preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare"];
      expect(Object.keys(manifest.scripts ?? {}).filter((k) => lifecycle.includes(k))).toEqual([]);
      const lock = readJson<{ packages: Record<string, LockEntry> }>(join(dir, "package-lock.json"));
      expect(lock.packages["node_modules/mnote-tools"]!.hasInstallScript).toBeUndefined();
      const version = npm(["exec", "--offline", "--", "mnote-tools", "--version"], dir);
      expect([version.status, version.stdout.trim(), version.stderr]).toEqual([
        0,
        expect.stringMatching(
          new RegExp(
            `^${manifest.version.replace(/\./g, "\\.")} \\(contract mnote-page-ai-tools \\d+\\.\\d+\\.\\d+\\)$`,
          ),
        ),
        "",
      ]);
    });

    it("the CLI's own code and require('mnote-tools') share the one installed @mnote/contract", () => {
      const script = [
        'const { dirname, join } = require("node:path");',
        'const root = dirname(require.resolve("mnote-tools/package.json"));',
        'const own = require(join(root, "dist", "generated", "kernel", "transport.js"));',
        'const pkg = require("mnote-tools");',
        'const contract = require("@mnote/contract");',
        "console.log(JSON.stringify([own.KernelRefusal === pkg.KernelRefusal, pkg.KernelRefusal === contract.KernelRefusal]));",
      ].join("\n");
      const run = spawnSync(process.execPath, ["-e", script], { cwd: dir, encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toEqual([true, true]);
    });

    it("every path a help text names exists in the installed package", () => {
      const installed = join(dir, "node_modules", "mnote-tools");
      const help = (path: string[]) => {
        const run = spawnSync(process.execPath, [join(installed, "bin", "mnote-tools.js"), ...path, "--help"], {
          cwd: dir,
          encoding: "utf8",
        });
        expect([path.join(" "), run.status]).toEqual([path.join(" "), 0]);
        return run.stdout;
      };
      const commandsOf = (text: string) =>
        (text.split("Commands:")[1] ?? "")
          .split("\n")
          .map((l) => /^ {2}([a-z][a-z-]*)\b/.exec(l)?.[1])
          .filter((c): c is string => c !== undefined && c !== "help");
      const texts: string[] = [];
      const top = help([]);
      texts.push(top);
      for (const command of commandsOf(top)) {
        const text = help([command]);
        texts.push(text);
        for (const sub of commandsOf(text)) texts.push(help([command, sub]));
      }
      expect(texts.length).toBeGreaterThan(12);
      const paths = [...new Set(texts.join("\n").match(/[\w@.-]+(?:\/[\w.-]+)+\.(?:md|json|sh|ts|js|ya?ml)\b/g) ?? [])];
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        const found = path.startsWith("mnote-tools/")
          ? existsSync(require.resolve(path, { paths: [dir] }))
          : existsSync(join(installed, path));
        expect([path, found]).toEqual([path, true]);
      }
    });

    it("the installed CLI generates from its bundled contract and seeds a kernel", () => {
      const installed = join(dir, "node_modules", "mnote-tools");
      const generated = npm(
        [
          "exec",
          "--offline",
          "--",
          "mnote-tools",
          "generate",
          "--contract",
          join(installed, "contract"),
          "--out",
          "out",
          "--quiet",
        ],
        dir,
      );
      expect(generated.stderr).toBe("");
      expect(generated.status).toBe(0);
      expect(readJson(join(dir, "out", "package.json")).version).toBe(contractManifest().version);
      const seeded = npm(
        [
          "exec",
          "--offline",
          "--",
          "mnote-tools",
          "kernel",
          "seed",
          join(installed, "examples", "demo-workspace.json"),
          "--db",
          "kernel.db",
        ],
        dir,
      );
      expect(seeded.status).toBe(0);
      expect(existsSync(join(dir, "kernel.db"))).toBe(true);
    });

    it("an outside generator target type-checks against the CLI package's Target type", () => {
      writeFileSync(
        join(dir, "target.cts"),
        [
          'import type { Target } from "mnote-tools";',
          "const target: Target<{ prefix?: string }> = {",
          '  name: "tool-list",',
          '  emit: (model, context) => [{ path: "tools.txt", content: model.tools.map((t) => (context.options.prefix ?? "") + t.providerName).join("\\n") }],',
          "};",
          "// @ts-expect-error a target's emit returns files, not a string",
          'const wrong: Target = { name: "x", emit: () => "text" };',
          "export = [target, wrong];",
          "",
        ].join("\n"),
      );
      const result = compileConsumer(dir, { module: "node16", moduleResolution: "node16" }, ["target.cts"]);
      expect(result.output).toBe("");
      expect(result.status).toBe(0);
    });
  });
});

function contractManifest(): { version: string } {
  return readJson<{ version: string }>(join(repoRoot, "generated", "package.json"));
}

/**
 * A lock file for a project that depends on the two tarballs: the CLI's dependency tree is copied
 * from the repo's lock (production entries only), so `npm ci --offline` takes every package from
 * the cache by its integrity and asks no registry.
 */
function writeOfflineLock(
  dir: string,
  contractTarball: string,
  cliTarball: string,
  workspaces: Record<"@mnote/runtime" | "@mnote/diff", string>,
): void {
  const repoLock = readJson<{ packages: Record<string, LockEntry> }>(join(repoRoot, "package-lock.json"));
  const root = repoLock.packages[""]!;
  const dependencies = { "@mnote/contract": `file:${contractTarball}`, "mnote-tools": `file:${cliTarball}` };
  const manifest = { name: "outside-project", version: "1.0.0", dependencies };
  const packages: Record<string, LockEntry> = { "": manifest };
  for (const [path, entry] of Object.entries(repoLock.packages)) {
    if (path.startsWith("node_modules/") && !entry.dev && !entry.link) packages[path] = entry;
  }
  const cliManifest = readJson<{
    version: string;
    license: string;
    bin: Record<string, string>;
    engines: Record<string, string>;
  }>(join(repoRoot, "package.json"));
  packages["node_modules/mnote-tools"] = {
    version: cliManifest.version,
    resolved: `file:${cliTarball}`,
    license: cliManifest.license,
    dependencies: root.dependencies,
    bin: cliManifest.bin,
    engines: cliManifest.engines,
  };
  packages["node_modules/@mnote/contract"] = { ...repoLock.packages["generated"], resolved: `file:${contractTarball}` };
  for (const [name, tarball] of Object.entries(workspaces))
    packages[`node_modules/${name}`] = {
      ...repoLock.packages[name.slice("@mnote/".length)],
      resolved: `file:${tarball}`,
    };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify(
      { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages },
      null,
      2,
    ),
  );
}

/**
 * A lock file for a project that depends on the contract tarball and an agent framework (and what
 * else `wanted` names), at the versions the repository tests with: their dependency trees is copied from the repo's lock,
 * so `npm ci --offline` takes every package from the cache by its integrity and asks no registry.
 */
function writeFrameworkLock(dir: string, contractTarball: string, wanted: string[]): void {
  const repoLock = readJson<{ packages: Record<string, LockEntry> }>(join(repoRoot, "package-lock.json"));
  const dependencies: Record<string, string> = { "@mnote/contract": `file:${contractTarball}` };
  for (const name of wanted) dependencies[name] = repoLock.packages[`node_modules/${name}`]!.version!;
  const manifest = { name: "outside-project", version: "1.0.0", dependencies };
  const packages: Record<string, LockEntry> = { "": manifest };
  packages["node_modules/@mnote/contract"] = { ...repoLock.packages["generated"], resolved: `file:${contractTarball}` };
  // the framework and everything it needs (its required peers included), hoisted as in the repo
  const queue = [...wanted];
  while (queue.length) {
    const path = `node_modules/${queue.pop()!}`;
    const entry = repoLock.packages[path];
    if (!entry || packages[path]) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry as LockEntry & Record<string, unknown>;
    packages[path] = kept;
    const optionalPeers = Object.keys((entry.peerDependenciesMeta ?? {}) as Record<string, unknown>);
    queue.push(
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys((entry.peerDependencies ?? {}) as Record<string, string>).filter(
        (n) => !optionalPeers.includes(n),
      ),
    );
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify(
      { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages },
      null,
      2,
    ),
  );
}
