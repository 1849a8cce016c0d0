#!/usr/bin/env node
// The workspace packages' publishable files, assembled from the one tsc build in dist/ (the last
// step of `npm run build`, after scripts/link-contract.js; docs/PACKAGES.md has the cut). A package
// is a folder that stays where it is (runtime/, diff/) with its own package.json; its files are
// the compiled closure of its entry points: every dist/ file an entry reaches through relative
// require()s and `.d.ts` imports, copied into the folder's own dist/ (gitignored) under the same
// relative paths, so the requires between them hold as they are. A require into dist/generated/ is
// rewritten to the package name "@mnote/contract" when what it exports is the same objects the
// contract package's index exports (a few modules the index leaves out keep link-contract's
// one-line shim, which loads them from the installed @mnote/contract by name), so a package never
// carries a copy of the contract. Every bare module a copied file loads must be a dependency or a peer of the package's
// manifest: the build fails otherwise, so a heavy import cannot slip into a package unnoticed. The
// copied JavaScript loses tsc's indentation (scripts/slim-js.js, checked to be the same program).
"use strict";
const { builtinModules } = require("node:module");
const { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require("node:fs");
const { dirname, join, relative, resolve, sep } = require("node:path");
const ts = require("typescript");
const { slimJs } = require("./slim-js.js");

const root = join(__dirname, "..");
const dist = join(root, "dist");

/** Each workspace package: its folder and its entry points (dist/ paths without extension). */
const PACKAGES = [
  {
    folder: "runtime",
    entries: [
      "runtime/index",
      "runtime/sqlite",
      "runtime/redis",
      "runtime/postgres",
      "runtime/mcp",
      "runtime/serve",
      "runtime/otel",
    ],
  },
  { folder: "diff", entries: ["diff/package-entry", "diff/bin"] },
];

const toPosix = (p) => p.split(sep).join("/");

/** The relative and bare specifiers a compiled file (.js or .d.ts) names, read by TypeScript's pre-processor. */
function specifiersOf(file) {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((i) => i.fileName);
}

/** The dist/ file a relative specifier of `from` names, without its extension; undefined outside dist/. */
function target(from, specifier) {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, join(base, "index")]) {
    if (existsSync(candidate + ".js") || existsSync(candidate + ".d.ts")) return candidate;
    if (candidate.endsWith(".json") && existsSync(candidate)) return candidate;
  }
  throw new Error(`assemble-packages: ${relative(root, from)} names ${specifier}, which is not in dist/`);
}

const isGenerated = (abs) => toPosix(relative(dist, abs)).startsWith("generated/");
const bareName = (s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]);
const isBuiltin = (s) => s.startsWith("node:") || builtinModules.includes(bareName(s));

/**
 * Whether a dist/generated/ module gives only what @mnote/contract's index gives, the same objects:
 * then a require of it may name the package. Otherwise (a module the index does not re-export) the
 * package keeps the one-line shim scripts/link-contract.js wrote for it, which loads that file of
 * the installed @mnote/contract by name, with its declarations.
 */
function inContractIndex(abs) {
  if (!existsSync(abs + ".js")) return true;
  const contract = require("@mnote/contract");
  return Object.entries(require(abs + ".js")).every(([key, value]) => contract[key] === value);
}

/** The closure of the entries: files to copy (without extension, or .json) and the bare modules they load. */
function closure(entries) {
  const files = new Set();
  const bare = new Set();
  const queue = entries.map((e) => join(dist, e));
  while (queue.length) {
    const file = queue.pop();
    if (files.has(file)) continue;
    files.add(file);
    if (file.endsWith(".json")) continue;
    for (const compiled of [file + ".js", file + ".d.ts"]) {
      if (!existsSync(compiled)) continue;
      for (const s of specifiersOf(compiled)) {
        if (!s.startsWith(".")) {
          if (!isBuiltin(s)) bare.add(bareName(s));
          continue;
        }
        const t = target(compiled, s);
        if (isGenerated(t) && inContractIndex(t)) continue;
        queue.push(t);
      }
    }
  }
  // a shim of dist/generated/ loads the contract package by name (require.resolve)
  if ([...files].some(isGenerated)) bare.add("@mnote/contract");
  return { files: [...files].sort(), bare: [...bare].sort() };
}

/** The text of a compiled file with its requires and imports of the contract's index naming @mnote/contract. */
function rewrite(compiled) {
  let text = readFileSync(compiled, "utf8");
  for (const s of new Set(specifiersOf(compiled).filter((x) => x.startsWith(".")))) {
    const t = target(compiled, s);
    if (isGenerated(t) && inContractIndex(t)) text = text.split(JSON.stringify(s)).join('"@mnote/contract"');
  }
  return text;
}

function assemble(pkg) {
  const folder = join(root, pkg.folder);
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const { files, bare } = closure(pkg.entries);
  const undeclared = bare.filter((b) => !declared.has(b));
  if (undeclared.length)
    throw new Error(`assemble-packages: ${manifest.name} loads ${undeclared.join(", ")}, not in its package.json`);
  const out = join(folder, "dist");
  rmSync(out, { recursive: true, force: true });
  for (const file of files) {
    for (const compiled of file.endsWith(".json") ? [file] : [file + ".js", file + ".d.ts"]) {
      if (!existsSync(compiled)) continue;
      const dest = join(out, relative(dist, compiled));
      mkdirSync(dirname(dest), { recursive: true });
      if (compiled.endsWith(".json")) cpSync(compiled, dest);
      // JavaScript without tsc's indentation, as the contract's (scripts/slim-js.js); declarations as they are
      else writeFileSync(dest, compiled.endsWith(".d.ts") ? rewrite(compiled) : slimJs(rewrite(compiled), compiled));
    }
  }
  return { name: manifest.name, files: files.length, bare };
}

if (require.main === module) {
  for (const pkg of PACKAGES) {
    const done = assemble(pkg);
    if (process.argv.includes("--verbose"))
      console.log(`${done.name}: ${done.files} modules; loads ${done.bare.join(", ") || "nothing"}`);
  }
}

module.exports = { PACKAGES, closure };
