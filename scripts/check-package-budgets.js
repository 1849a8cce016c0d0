#!/usr/bin/env node
// The packages' budgets (docs/PACKAGES.md), checked on what a user installs: every workspace
// package packed (`npm pack`, the build is not run again), installed from the tarballs into one
// scratch project with no network (npm ci --offline; the dependency trees are copied from the
// repository's lock file, so npm takes every package from the cache npm ci filled), then measured
// per kind of user: the packages each one's install reaches, their size on disk, and what must not
// be among them. Prints the table; exit 1 with one line per broken budget. The CLI (mnote-tools,
// the root) is packed on the packages it depends on (scripts/link-packages.js), installed into the
// same project and measured with no budget: it is the devDependency that carries everything.
//
//   node scripts/check-package-budgets.js [--into DIR]
//
// --into keeps the scratch project in DIR (test/package/packages.test.ts compiles and runs its
// consumers there: one packing, one install for both).
"use strict";
const {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");
const { spawnSync } = require("node:child_process");
const { packCli } = require("./link-packages.js");

const root = join(__dirname, "..");
const MB = 1024 * 1024;
/** The workspace folders packed, by package name. */
const WORKSPACES = { "@mnote/contract": "generated", "@mnote/runtime": "runtime", "@mnote/diff": "diff" };
/** Every package packed, by name: its entry in the repository's lock file ("" is the root, the CLI). */
const LOCK_ENTRY = { ...WORKSPACES, "mnote-tools": "" };
/** What the scratch project installs besides the tarballs: every optional peer of the runtime, and the drivers' types. */
const PEERS = [
  ...["better-sqlite3", "@types/better-sqlite3", "ioredis", "pg", "@types/pg", "@types/node"],
  ...["ajv", "ajv-formats", "@opentelemetry/api"],
  ...["@modelcontextprotocol/server", "pino", "jose", "@opentelemetry/sdk-trace-node", "@opentelemetry/resources"],
  ...["@opentelemetry/semantic-conventions", "@opentelemetry/exporter-trace-otlp-http"],
  "@opentelemetry/exporter-trace-otlp-proto",
];
/** Never in a runtime install: the generator's toolchain and the CLI's own libraries. */
const NEVER = ["json-schema-to-typescript", "prettier", "handlebars", "chokidar", "commander", "typescript"];
/**
 * The users measured: the packages an install of `roots` reaches (dependencies and required peers),
 * their budget in MB, the native modules allowed.
 */
const USERS = [
  { user: "a plugin author", roots: ["@mnote/contract"], budgetMb: 2, native: [], zeroDeps: true },
  { user: "a backend embedding the dispatcher", roots: ["@mnote/runtime"], budgetMb: 15, native: [] },
  // better-sqlite3 and its install-time tree are 12.7 MB of it (docs/PACKAGES.md): held to 15 MB by
  // the runtime's lean install (ajv and @opentelemetry/api optional peers, slim JavaScript)
  {
    user: "runtime + SQLite store",
    roots: ["@mnote/runtime", "better-sqlite3"],
    budgetMb: 15,
    native: ["better-sqlite3"],
  },
  { user: "runtime + Redis store", roots: ["@mnote/runtime", "ioredis"], budgetMb: 15, native: [] },
  { user: "runtime + PostgreSQL store", roots: ["@mnote/runtime", "pg"], budgetMb: 15, native: [] },
  { user: "a CI that only diffs", roots: ["@mnote/diff"], budgetMb: 15, native: [] },
  // no budget: the build pipeline's devDependency, with the generator, every store, server and exporter
  { user: "a build pipeline (the CLI)", roots: ["mnote-tools"], native: ["better-sqlite3"], carriesAll: true },
];

/** How a package's README names its users: "## Who installs it", or the generated contract README's own line. */
const USERS_HEADING = { "@mnote/contract": /^The .* as code, for plugin authors/m };

/** npm with the caller's npm settings left out (npm test exports npm_config_* for its own run), keeping the cache. */
function npm(args, cwd) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|userconfig)$/i.test(k)),
  );
  const run = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", args, {
    cwd,
    env,
    encoding: "utf8",
    timeout: 300_000,
  });
  if (run.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${run.status}): ${run.stderr.slice(0, 800)}`);
  return run.stdout;
}

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/** Packs every workspace package and the CLI into `into`; their tarball file names by package name. */
function packAll(into) {
  const args = ["pack", "--json", "--ignore-scripts", "--pack-destination", into];
  for (const folder of Object.values(WORKSPACES)) args.push("--workspace", folder);
  const packed = JSON.parse(npm(args, root));
  const cli = packCli(into);
  return Object.fromEntries([...packed, cli].map((p) => [p.name, p.filename]));
}

/** The lock entry of a packed package: the workspace's as the repository's lock has it, the root's made like one. */
function lockEntry(repo, name) {
  if (LOCK_ENTRY[name] !== "") return repo[LOCK_ENTRY[name]];
  const { version, license, dependencies, bin, engines } = readJson(join(root, "package.json"));
  return { version, license, dependencies, bin, engines };
}

/** Where the repository's lock has `name` for the package at `from` ("" the top): nested first, then up. */
function lockPath(repo, name, from) {
  for (let base = from; ;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (repo[candidate] && !repo[candidate].link) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

/**
 * A lock file for a scratch project: the tarballs, and `peers` and every package's dependency trees
 * as the repository's lock has them.
 */
function writeLock(dir, tarballs, peers = PEERS) {
  const repo = readJson(join(root, "package-lock.json")).packages;
  const dependencies = {};
  const packages = {};
  for (const [name, file] of Object.entries(tarballs)) {
    dependencies[name] = `file:${file}`;
    packages[`node_modules/${name}`] = { ...lockEntry(repo, name), resolved: `file:${file}` };
  }
  const queue = peers.map((name) => ({ name, from: "" }));
  for (const name of Object.keys(tarballs))
    queue.push(...Object.keys(lockEntry(repo, name).dependencies ?? {}).map((dep) => ({ name: dep, from: "" })));
  for (const name of peers) dependencies[name] = repo[`node_modules/${name}`].version;
  while (queue.length) {
    const { name, from } = queue.pop();
    // as Node resolves: nested under the dependent first, then each folder up (the repository's lock nests some)
    const path = lockPath(repo, name, from);
    if (!path || packages[path]) continue;
    const { dev: _d, devOptional: _o, peer: _p, optional: _x, ...kept } = repo[path];
    packages[path] = kept;
    const optional = Object.keys(kept.peerDependenciesMeta ?? {});
    const needs = [
      ...Object.keys(kept.dependencies ?? {}),
      ...Object.keys(kept.optionalDependencies ?? {}),
      ...Object.keys(kept.peerDependencies ?? {}).filter((n) => !optional.includes(n)),
    ];
    queue.push(...needs.map((dep) => ({ name: dep, from: path })));
  }
  const manifest = { name: "package-budgets", version: "1.0.0", private: true, dependencies };
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify(
      { ...manifest, lockfileVersion: 3, requires: true, packages: { "": manifest, ...packages } },
      null,
      2,
    ),
  );
}

/** Installs a scratch project offline; better-sqlite3's binary is the one the repository's install built. */
function install(dir, tarballs, peers = PEERS) {
  writeLock(dir, tarballs, peers);
  npm(["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], dir);
  if (!existsSync(join(dir, "node_modules", "better-sqlite3"))) return;
  // only the binary, as a prebuilt install has it (the repository's build folder also keeps the
  // compiler's intermediate files, 15 MB no user has)
  const binary = join("build", "Release", "better_sqlite3.node");
  mkdirSync(join(dir, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true });
  cpSync(join(root, "node_modules", "better-sqlite3", binary), join(dir, "node_modules", "better-sqlite3", binary));
}

/** Bytes of the files under a folder, its nested node_modules left out (they are packages of their own). */
function bytes(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules") continue;
    const path = join(dir, e.name);
    total += e.isDirectory() ? bytes(path) : lstatSync(path).size;
  }
  return total;
}

/** Where Node finds `name` from the installed folder `from` ("" for the project): nested first, then up. */
function locate(dir, name, from) {
  for (let base = from; ;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (existsSync(join(dir, candidate))) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

/** The installed folders an install of `roots` reaches: dependencies and required peers, transitively. */
function reach(dir, roots) {
  const seen = new Map();
  const queue = roots.map((name) => ({ name, from: "" }));
  while (queue.length) {
    const { name, from } = queue.pop();
    const path = locate(dir, name, from);
    if (!path) throw new Error(`${name} (needed by ${from || "the project"}) is not installed`);
    if (seen.has(path)) continue;
    const manifest = readJson(join(dir, path, "package.json"));
    seen.set(path, { name, manifest });
    const optional = Object.keys(manifest.peerDependenciesMeta ?? {});
    const needs = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((n) => !optional.includes(n)),
    ];
    for (const dep of needs) queue.push({ name: dep, from: path });
  }
  return seen;
}

/** The measured row of one user and the budgets it breaks. */
function measure(dir, user, tarballs) {
  const reached = reach(dir, user.roots);
  let size = 0;
  const problems = [];
  for (const [path, { name, manifest }] of reached) {
    size += bytes(join(dir, path));
    if (user.carriesAll) continue;
    if (NEVER.includes(name)) problems.push(`${user.user}: installs ${name}`);
    const native = existsSync(join(dir, path, "binding.gyp")) || manifest.gypfile === true;
    if (native && !user.native.includes(name)) problems.push(`${user.user}: installs ${name}, a native module`);
  }
  if (user.budgetMb !== undefined && size > user.budgetMb * MB)
    problems.push(`${user.user}: ${(size / MB).toFixed(1)} MB of node_modules, over ${user.budgetMb} MB`);
  if (user.zeroDeps) {
    const m = readJson(join(dir, "node_modules", user.roots[0], "package.json"));
    if (Object.keys(m.dependencies ?? {}).length) problems.push(`${user.user}: ${user.roots[0]} has dependencies`);
  }
  for (const name of user.roots.filter((r) => r.startsWith("@mnote/"))) {
    const readme = join(dir, "node_modules", name, "README.md");
    const text = existsSync(readme) ? readFileSync(readme, "utf8") : "";
    const tarball = tarballs[name];
    if (
      !(USERS_HEADING[name] ?? /^## Who installs it/m).test(text) ||
      !new RegExp(`npm install .*${tarball}`).test(text)
    )
      problems.push(`${name}: its README must name its users and its one-line install (npm install ... ${tarball})`);
  }
  return { user: user.user, roots: user.roots, packages: reached.size, bytes: size, problems };
}

/** Packs, installs into `dir` and measures every user: the rows, with their problems. */
function checkBudgets(dir) {
  mkdirSync(dir, { recursive: true });
  const tarballs = packAll(dir);
  install(dir, tarballs);
  const rows = USERS.map((u) => measure(dir, u, tarballs));
  writeFileSync(join(dir, "budgets.json"), JSON.stringify({ tarballs, rows }, null, 2));
  return { tarballs, rows };
}

if (require.main === module) {
  const at = process.argv.indexOf("--into");
  const dir = at > 0 ? process.argv[at + 1] : mkdtempSync(join(tmpdir(), "mnote-budgets-"));
  const { rows } = checkBudgets(dir);
  for (const r of rows)
    console.log(
      `${r.user.padEnd(36)} ${r.roots.join(" + ").padEnd(32)} ${String(r.packages).padStart(3)} packages ${(r.bytes / MB).toFixed(2).padStart(6)} MB`,
    );
  const problems = rows.flatMap((r) => r.problems);
  for (const p of problems) console.error(`budget: ${p}`);
  process.exit(problems.length ? 1 : 0);
}

module.exports = { checkBudgets, install, USERS, WORKSPACES };
