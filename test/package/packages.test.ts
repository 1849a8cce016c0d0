/**
 * The workspace packages as their users install them (docs/PACKAGES.md): packed once, installed
 * offline into one scratch project by scripts/check-package-budgets.js (which also measures every
 * user's install against its budget), then one consumer per package, ESM and CommonJS, strict,
 * skipLibCheck off, importing only that package and its documented peers: it must type-check, run,
 * and load nothing the package promises not to load. .ci/run runs the budget script first and
 * hands its project over (MNOTE_PACKAGES_SCRATCH), so CI packs and installs once.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/paths";
import { tempDir } from "../support/tmp";
import { compileConsumer, readJson, runConsumer } from "../support/consumer";

jest.setTimeout(600_000);

interface Row {
  user: string;
  roots: string[];
  packages: number;
  bytes: number;
  problems: string[];
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const budgets = require("../../scripts/check-package-budgets.js") as {
  checkBudgets(dir: string): { tarballs: Record<string, string>; rows: Row[] };
  install(dir: string, tarballs: Record<string, string>, peers: string[]): void;
  USERS: Array<{ user: string; budgetMb?: number }>;
};

/** The scratch project: .ci/run's when it made one, else packed and installed here. */
function scratch(): { dir: string; tarballs: Record<string, string>; rows: Row[] } {
  const handed = process.env.MNOTE_PACKAGES_SCRATCH;
  if (handed && existsSync(join(handed, "budgets.json")))
    return {
      dir: handed,
      ...readJson<{ tarballs: Record<string, string>; rows: Row[] }>(join(handed, "budgets.json")),
    };
  const dir = tempDir("mnote-packages-");
  return { dir, ...budgets.checkBudgets(dir) };
}

/** Prints what the program loaded from node_modules, by package, after its own line of results. */
const LOADED = [
  'import { createRequire } from "node:module";',
  "function loadedPackages(): string[] {",
  '  const cache = createRequire(process.cwd() + "/x.js").cache;',
  '  const names = Object.keys(cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1] ?? "");',
  '  return [...new Set(names.filter((n) => n !== ""))].sort();',
  "}",
  'const moduleKind = typeof require === "undefined" ? "esm" : "commonjs";',
].join("\n");

/** The same, for a plain CommonJS script run with node -e. */
const LOADED_CJS = [
  "function loadedPackages() {",
  '  const names = Object.keys(require.cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1] ?? "");',
  '  return [...new Set(names.filter((n) => n !== ""))].sort();',
  "}",
].join("\n");

const CONSUMERS: Record<string, string> = {
  // a backend: the dispatcher's package alone, its kernel reached through the contract's client
  core: [
    'import { checkKernel, approvalPolicyFrom, allowEveryTool, createDispatcher, type GrantStore, type IdempotencyStore } from "@mnote/runtime";',
    'import { createKernelClient, httpTransport } from "@mnote/contract";',
    LOADED,
    "const grants: GrantStore | undefined = undefined;",
    "const stores: IdempotencyStore | undefined = undefined;",
    "const policy = approvalPolicyFrom(allowEveryTool());",
    "// the kernel: nothing listens on port 9, so the check says unavailable (not misconfigured)",
    'const kernel = createKernelClient(httpTransport({ url: "http://127.0.0.1:9", timeoutMs: 2000 }));',
    "void checkKernel(kernel, 5000).then((check) => {",
    "  console.log(JSON.stringify({ module: moduleKind, ok: check.ok, misconfigured: !check.ok && check.misconfigured, create: typeof createDispatcher, policyTools: policy.tools.size > 0, unused: [grants, stores].length, loaded: loadedPackages() }));",
    "});",
  ].join("\n"),
  // an operator on Redis: the store's subpath and its peer, no SQLite
  redis: [
    'import { RedisGrantStore, RedisIdempotencyStore, openRedis } from "@mnote/runtime/redis";',
    'import type { GrantStore } from "@mnote/runtime";',
    LOADED,
    "const make: (url: string) => GrantStore = (url) => new RedisGrantStore(url);",
    "const ready: typeof openRedis = openRedis;",
    "console.log(JSON.stringify({ module: moduleKind, stores: [typeof make, typeof RedisIdempotencyStore, typeof ready], loaded: loadedPackages() }));",
  ].join("\n"),
  // an operator on PostgreSQL
  postgres: [
    'import { PgGrantStore, PgIdempotencyStore, openPgState, MIGRATIONS } from "@mnote/runtime/postgres";',
    LOADED,
    "console.log(JSON.stringify({ module: moduleKind, stores: [typeof PgGrantStore, typeof PgIdempotencyStore, typeof openPgState], migrations: MIGRATIONS.length > 0, loaded: loadedPackages() }));",
  ].join("\n"),
  // the runtime over a SQLite state file and the embedded reference kernel, asked once
  sqlite: [
    'import { createRuntime } from "@mnote/runtime/sqlite";',
    'import { checkKernel } from "@mnote/runtime";',
    LOADED,
    'const runtime = createRuntime({ kernel: { kind: "embedded", path: ":memory:" }, statePath: ":memory:", approval: { secret: Buffer.alloc(32, 7) } });',
    "void checkKernel(runtime.kernel, 10000).then(async (check) => {",
    "  const embedded = runtime.embeddedKernel !== undefined;",
    "  await runtime.close();",
    "  console.log(JSON.stringify({ module: moduleKind, ok: check.ok, embedded, loaded: loadedPackages() }));",
    "});",
  ].join("\n"),
  // an operator's MCP server over a SQLite runtime: the server SDK is its peer
  mcp: [
    'import { createMcpServer } from "@mnote/runtime/mcp";',
    'import { createToolServer } from "@mnote/runtime/serve";',
    'import { createRuntime } from "@mnote/runtime/sqlite";',
    LOADED,
    'const runtime = createRuntime({ kernel: { kind: "embedded", path: ":memory:" }, statePath: ":memory:", approval: { secret: Buffer.alloc(32, 7) } });',
    'const server = createMcpServer({ dispatch: (r) => runtime.dispatcher.dispatch(r), grants: runtime.grants, sessionId: "sess_1" });',
    "void runtime.close().then(() => {",
    "  console.log(JSON.stringify({ module: moduleKind, connect: typeof server.connect, serve: typeof createToolServer, loaded: loadedPackages() }));",
    "});",
  ].join("\n"),
  // telemetry: the SDK starts with the console exporter the environment names; no OTLP exporter is loaded
  otel: [
    'import { startTelemetry } from "@mnote/runtime/otel";',
    LOADED,
    'void startTelemetry({ serviceName: "consumer", env: { OTEL_TRACES_EXPORTER: "console" } }).then(async (telemetry) => {',
    "  const exporters = telemetry?.exporters ?? [];",
    "  await telemetry?.shutdown();",
    "  console.log(JSON.stringify({ module: moduleKind, exporters, loaded: loadedPackages() }));",
    "});",
  ].join("\n"),
  // a CI that only diffs: the released contract against the current one
  diff: [
    'import { buildSide, diffContracts, formatReport, readContractDir } from "@mnote/diff";',
    LOADED,
    'const base = buildSide({ label: "1.0.0", sources: readContractDir("contract-releases/1.0.0") }, "base");',
    'const head = buildSide({ label: "contract", sources: readContractDir("contract") }, "head");',
    "const report = diffContracts(base, head);",
    'const text = formatReport("json", report, { base: "1.0.0", head: "contract" });',
    "console.log(JSON.stringify({ module: moduleKind, verdict: report.verdict, changes: report.changes.length, json: text.length > 0, loaded: loadedPackages() }));",
  ].join("\n"),
};

/** What no consumer of these packages may load, whatever its peers: the generator's and the CLI's libraries. */
const NEVER = ["json-schema-to-typescript", "prettier", "handlebars", "chokidar", "commander", "mnote-tools"];

describe("the workspace packages, packed once, installed offline into one project", () => {
  const { dir, rows, tarballs } = scratch();

  it.each(
    budgets.USERS.map((u) => [u.user, u.budgetMb === undefined ? "none: it carries everything" : `${u.budgetMb} MB`]),
  )("%s: within its budget (%s)", (user) => {
    const row = rows.find((r) => r.user === user)!;
    expect(row.problems).toEqual([]);
    expect(row.bytes).toBeGreaterThan(0);
  });

  it("the runtime alone installs no driver, no server SDK and no exporter", () => {
    const reached = rows.find((r) => r.roots.join() === "@mnote/runtime")!;
    expect(reached.packages).toBeLessThan(15);
    const lock = readJson<{ packages: Record<string, { version?: string }> }>(join(dir, "package-lock.json"));
    const manifest = readJson<{ dependencies: Record<string, string> }>(
      join(dir, "node_modules", "@mnote", "runtime", "package.json"),
    );
    // ajv (policy conditions) and @opentelemetry/api (tracing) are optional peers, loaded on demand
    expect(Object.keys(manifest.dependencies)).toEqual(["@mnote/contract"]);
    expect(Object.keys(lock.packages)).toContain("node_modules/@mnote/runtime");
  });

  describe("one consumer per package, ESM and CommonJS, strict, skipLibCheck off", () => {
    const compiled = (() => {
      cpSync(join(repoRoot, "contract"), join(dir, "contract"), { recursive: true });
      cpSync(join(repoRoot, "contract-releases", "1.0.0"), join(dir, "contract-releases", "1.0.0"), {
        recursive: true,
      });
      const files: string[] = [];
      for (const [name, source] of Object.entries(CONSUMERS)) {
        writeFileSync(join(dir, `${name}.mts`), source + "\n");
        writeFileSync(join(dir, `${name}.cts`), source + "\n");
        files.push(`${name}.mts`, `${name}.cts`);
      }
      // one compilation for every consumer (skipLibCheck off: every declaration file is checked)
      return compileConsumer(dir, { module: "node16", moduleResolution: "node16" }, files, "out");
    })();

    it("every consumer type-checks against its package's declarations alone", () => {
      expect(compiled.output).toBe("");
      expect(compiled.status).toBe(0);
    });

    const run = (name: string, kind: "mjs" | "cjs") => {
      const result = runConsumer(join(dir, "out", `${name}.${kind}`), dir);
      expect(result.module).toBe(kind === "mjs" ? "esm" : "commonjs");
      const loaded = result.loaded as string[];
      expect(loaded.filter((p) => NEVER.includes(p))).toEqual([]);
      return result as Record<string, unknown> & { loaded: string[] };
    };

    it.each(["mjs", "cjs"] as const)(
      "@mnote/runtime alone (%s): asks a kernel through the contract's client; loads no driver, server SDK or exporter",
      (kind) => {
        const r = run("core", kind);
        expect([r.ok, r.misconfigured, r.create, r.policyTools]).toEqual([false, false, "function", true]);
        expect(r.loaded).toEqual(expect.arrayContaining(["@mnote/contract", "@mnote/runtime"]));
        expect(r.loaded.filter((p) => !["@mnote/contract", "@mnote/runtime"].includes(p))).toEqual([]);
      },
    );

    it.each(["mjs", "cjs"] as const)("@mnote/runtime/redis (%s) loads ioredis, not SQLite or pg", (kind) => {
      const r = run("redis", kind);
      expect(r.stores).toEqual(["function", "function", "function"]);
      expect(r.loaded).toContain("ioredis");
      expect(r.loaded.filter((p) => ["better-sqlite3", "pg"].includes(p))).toEqual([]);
    });

    it.each(["mjs", "cjs"] as const)("@mnote/runtime/postgres (%s) loads pg, not SQLite or ioredis", (kind) => {
      const r = run("postgres", kind);
      expect([r.stores, r.migrations]).toEqual([["function", "function", "function"], true]);
      expect(r.loaded).toContain("pg");
      expect(r.loaded.filter((p) => ["better-sqlite3", "ioredis"].includes(p))).toEqual([]);
    });

    it.each(["mjs", "cjs"] as const)(
      "@mnote/runtime/sqlite (%s): a runtime with its embedded kernel answers the kernel check (one contract instance across packages)",
      (kind) => {
        const r = run("sqlite", kind);
        expect([r.ok, r.embedded]).toEqual([true, true]);
        expect(r.loaded).toContain("better-sqlite3");
        expect(r.loaded.filter((p) => ["ioredis", "pg"].includes(p))).toEqual([]);
      },
    );

    it.each(["mjs", "cjs"] as const)(
      "@mnote/runtime/mcp and /serve (%s): an MCP server over a SQLite runtime, with its SDK peer; no Redis, no pg",
      (kind) => {
        const r = run("mcp", kind);
        expect([r.connect, r.serve]).toEqual(["function", "function"]);
        expect(r.loaded).toEqual(expect.arrayContaining(["@modelcontextprotocol/server", "better-sqlite3"]));
        expect(r.loaded.filter((p) => ["ioredis", "pg"].includes(p))).toEqual([]);
      },
    );

    it.each(["mjs", "cjs"] as const)(
      "@mnote/runtime/otel (%s): the SDK with the console exporter the environment names, no OTLP exporter loaded",
      (kind) => {
        const r = run("otel", kind);
        expect(r.exporters).toEqual(["console"]);
        expect(r.loaded).toContain("@opentelemetry/sdk-trace-node");
        expect(r.loaded.filter((p) => p.startsWith("@opentelemetry/exporter-"))).toEqual([]);
      },
    );

    it.each(["mjs", "cjs"] as const)(
      "@mnote/diff (%s) judges the released contract against the current one as the CLI's diff does",
      (kind) => {
        const r = run("diff", kind);
        // the same judgement from the repository's own build of the diff
        /* eslint-disable @typescript-eslint/no-require-imports */
        const own = require(join(repoRoot, "dist", "diff", "package-entry.js")) as {
          readContractDir(dir: string): unknown[];
          buildSide(side: { label: string; sources: unknown[] }, role: "base" | "head"): unknown;
          diffContracts(a: unknown, b: unknown): { verdict: string; changes: unknown[] };
        };
        /* eslint-enable @typescript-eslint/no-require-imports */
        const expected = own.diffContracts(
          own.buildSide(
            { label: "1.0.0", sources: own.readContractDir(join(dir, "contract-releases", "1.0.0")) },
            "base",
          ),
          own.buildSide({ label: "contract", sources: own.readContractDir(join(dir, "contract")) }, "head"),
        );
        expect([r.verdict, r.changes, r.json]).toEqual([expected.verdict, expected.changes.length, true]);
        expect(r.loaded.filter((p) => p.startsWith("@mnote/"))).toEqual(["@mnote/diff"]);
      },
    );
  });

  describe("the runtime with the SQLite store installed as its budget's user installs it, nothing else", () => {
    const lean = tempDir("mnote-sqlite-alone-");
    const only = { "@mnote/contract": tarballs["@mnote/contract"]!, "@mnote/runtime": tarballs["@mnote/runtime"]! };
    for (const file of Object.values(only)) cpSync(join(dir, file), join(lean, file));
    budgets.install(lean, only, ["better-sqlite3"]);
    /** Runs a CommonJS script in the lean project: its one JSON line, and its stderr. */
    const script = (body: string) => {
      const run = spawnSync(process.execPath, ["-e", `${LOADED_CJS}\n${body}`], { cwd: lean, encoding: "utf8" });
      expect([run.status, run.status === 0 ? "" : run.stderr]).toEqual([0, ""]);
      return { out: JSON.parse(run.stdout.trim()) as Record<string, unknown>, stderr: run.stderr };
    };
    const RUNTIME = [
      'const { createRuntime } = require("@mnote/runtime/sqlite");',
      'const { approvalPolicyFrom, checkKernel } = require("@mnote/runtime");',
      'const runtime = createRuntime({ kernel: { kind: "embedded", path: ":memory:" }, statePath: ":memory:", approval: { secret: Buffer.alloc(32, 7) } });',
    ].join("\n");
    const CONDITION = {
      tools: { "mnote.page.save": { default: "allow", when: [{ args: { mode: "replace" }, approval: "ask" }] } },
    };

    it("holds neither ajv nor the OpenTelemetry API", () => {
      const installed = readdirSync(join(lean, "node_modules")).filter((n) => !n.startsWith("."));
      expect(installed).toContain("better-sqlite3");
      expect(installed.filter((n) => ["ajv", "ajv-formats", "@opentelemetry"].includes(n))).toEqual([]);
    });

    it("runs: the kernel check and a dispatch answer; a policy without conditions loads; nothing else is loaded", () => {
      const { out, stderr } = script(
        `${RUNTIME}
        const policy = approvalPolicyFrom({ tools: { "mnote.page.get": "allow" } });
        void checkKernel(runtime.kernel, 10000).then(async (check) => {
          const answer = await runtime.dispatcher.dispatch("{}");
          await runtime.close();
          console.log(JSON.stringify({ ok: check.ok, answered: answer.ok === false && typeof answer.error.code, rules: policy.tools.size, loaded: loadedPackages() }));
        });`,
      );
      expect(stderr).toBe("");
      expect(out).toEqual({
        ok: true,
        answered: "string",
        rules: 1,
        loaded: ["@mnote/contract", "@mnote/runtime", "better-sqlite3"],
      });
    });

    it("a policy with conditions names the optional peers it needs and their install line", () => {
      const { out } = script(
        `${RUNTIME}
        let message;
        try { approvalPolicyFrom(${JSON.stringify(CONDITION)}); } catch (e) { message = e.name + ": " + e.message; }
        void runtime.close().then(() => console.log(JSON.stringify({ message })));`,
      );
      expect(out.message).toBe(
        "MissingPeerError: an approval policy with conditions (when/args) needs ajv and ajv-formats, optional peers of @mnote/runtime that this program has not installed: npm install ajv ajv-formats",
      );
      // the same policy loads where they are installed (the first project has them)
      const full = spawnSync(
        process.execPath,
        ["-e", `require("@mnote/runtime").approvalPolicyFrom(${JSON.stringify(CONDITION)}); console.log("loaded")`],
        { cwd: dir, encoding: "utf8" },
      );
      expect([full.stdout.trim(), full.stderr]).toEqual(["loaded", ""]);
    });

    it("with a tracer registered in the process but no API to load, calls still answer and one warning says why", () => {
      const { out, stderr } = script(
        `globalThis[Symbol.for("opentelemetry.js.api.1")] = { version: "1.9.1" };
        ${RUNTIME}
        void (async () => {
          const answers = [await runtime.dispatcher.dispatch("{}"), await runtime.dispatcher.dispatch("{}")];
          await runtime.close();
          console.log(JSON.stringify({ answered: answers.map((a) => typeof a.ok) }));
        })();`,
      );
      expect(out).toEqual({ answered: ["boolean", "boolean"] });
      const warnings = stderr.split("\n").filter((l) => l.includes("MissingPeerWarning"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("needs @opentelemetry/api");
      expect(warnings[0]).toContain("npm install @opentelemetry/api");
    });
  });

  it("each package's README names its users and its install line (checked by the budget script, shown here)", () => {
    for (const name of ["runtime", "diff"]) {
      const text = readFileSync(join(dir, "node_modules", "@mnote", name, "README.md"), "utf8");
      expect(text).toMatch(/^## Who installs it/m);
      expect(text).toMatch(new RegExp(`npm install .*mnote-${name}-\\d+\\.\\d+\\.\\d+\\.tgz`));
    }
  });
});
