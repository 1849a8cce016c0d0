#!/usr/bin/env node
// Packs the CLI (mnote-tools, the root) on the packages it depends on (docs/PACKAGES.md): the
// root's files as `npm pack` lists them, staged in a scratch folder, where every compiled module
// that @mnote/runtime or @mnote/diff carries (their dist/, assembled by scripts/assemble-packages.js
// from the same build) becomes a one-line module loading that file of the installed package, as
// scripts/link-contract.js does for @mnote/contract; then `npm pack` of the stage. An installed CLI
// thus holds one copy of each of their modules (one class for instanceof, one logger, one cache),
// and the repository's dist/ is left as it is: the tests run on it unchanged.
//
//   node scripts/link-packages.js [--pack-destination DIR]   prints what it packed, as one JSON line
//
// A module both packages carry (a few pure files of common/) is loaded from @mnote/runtime. JSON
// files the packages carry are left out unless a module the CLI keeps requires them or the root's
// exports name them.
"use strict";
const { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require("node:fs");
const { dirname, join, resolve } = require("node:path");
const { tmpdir } = require("node:os");
const { spawnSync } = require("node:child_process");
const ts = require("typescript");

const root = join(__dirname, "..");
/** The packages the CLI runs on, in the order a module both carry is taken from. */
const LINKED = [
  { name: "@mnote/runtime", folder: "runtime" },
  { name: "@mnote/diff", folder: "diff" },
];

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

/** The package a compiled file of the root's dist/ is carried by ("runtime/state/grants.js"), or undefined. */
function carrier(inDist) {
  if (inDist.startsWith("generated/")) return undefined; // link-contract.js's shims already
  return LINKED.find((p) => existsSync(join(root, p.folder, "dist", inDist)));
}

function shim(pkg, inDist) {
  return [
    '"use strict";',
    `// ${inDist} of ${pkg.name}, the package this CLI depends on (written by scripts/link-packages.js).`,
    // by file, past the package's exports map: the same absolute path as the package's own modules load
    'const { dirname, join } = require("node:path");',
    `module.exports = require(join(dirname(require.resolve(${JSON.stringify(pkg.name + "/package.json")})), "dist", ${JSON.stringify(inDist)}));`,
    "",
  ].join("\n");
}

/** The JSON files the kept (not linked) modules of the stage require, and those the root's exports name. */
function jsonNeeded(stage, kept, manifest) {
  const needed = new Set(
    Object.values(manifest.exports ?? {})
      .filter((t) => typeof t === "string" && t.endsWith(".json"))
      .map((t) => resolve(root, t)),
  );
  for (const file of kept) {
    const info = ts.preProcessFile(readFileSync(join(stage, file), "utf8"), true, true);
    for (const s of info.importedFiles.map((i) => i.fileName))
      if (s.startsWith(".") && s.endsWith(".json")) needed.add(resolve(root, dirname(file), s));
  }
  return needed;
}

/** Stages the CLI's files in `stage` with the linked modules; what it did, by kind. */
function stageCli(stage) {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const listed = JSON.parse(npm(["pack", "--dry-run", "--json", "--ignore-scripts"], root))[0].files.map((f) => f.path);
  const linked = [];
  const kept = [];
  const carriedJson = [];
  for (const file of listed) {
    const inDist = file.startsWith("dist/") ? file.slice("dist/".length) : undefined;
    const pkg = inDist && /\.(js|json)$/.test(inDist) ? carrier(inDist) : undefined;
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    if (pkg && file.endsWith(".js")) {
      writeFileSync(join(stage, file), shim(pkg, inDist));
      linked.push(file);
      continue;
    }
    cpSync(join(root, file), join(stage, file));
    if (pkg) carriedJson.push(file);
    else if (file.endsWith(".js")) kept.push(file);
  }
  const needed = jsonNeeded(stage, kept, manifest);
  const dropped = carriedJson.filter((f) => !needed.has(resolve(root, f)));
  for (const f of dropped) rmSync(join(stage, f));
  return { linked, dropped };
}

/** Packs the CLI into `into`; npm pack's JSON entry for it, and the files linked and dropped. */
function packCli(into) {
  mkdirSync(into, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "mnote-cli-stage-"));
  try {
    const { linked, dropped } = stageCli(stage);
    const packed = JSON.parse(
      npm(["pack", stage, "--json", "--ignore-scripts", "--pack-destination", resolve(into)], root),
    );
    return { ...packed[0], linked, dropped };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const at = process.argv.indexOf("--pack-destination");
  const into = at > 0 ? process.argv[at + 1] : root;
  const { name, version, filename, size, unpackedSize, entryCount, linked, dropped } = packCli(into);
  console.log(
    JSON.stringify({ name, version, filename, size, unpackedSize, entryCount, linked: linked.length, dropped }),
  );
  console.error(
    `link-packages: ${filename}: ${linked.length} modules load @mnote/runtime or @mnote/diff; ${dropped.length} carried JSON files left out`,
  );
}

module.exports = { packCli, LINKED };
