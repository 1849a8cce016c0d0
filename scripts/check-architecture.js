#!/usr/bin/env node
// The import-direction check (`npm run lint` runs it after eslint; docs/ARCHITECTURE.md explains
// the parts). Two rules over every relative import, require() and import() of the hand-written
// TypeScript and JavaScript (tests, fixtures and generated/ aside):
//   1. a part imports only the parts its row in PARTS allows (no arrow back up);
//   2. no import circle, type-only imports included (a circle of types is still a circle a reader
//      has to hold in mind at once).
// Imports are read with TypeScript's own pre-processor (ts.preProcessFile), not a regular
// expression, so a string or comment that looks like an import is not one. Exit 1 with one line
// per problem; exit 0 and one summary line when the house holds.
"use strict";
const { readdirSync, readFileSync, statSync, existsSync } = require("node:fs");
const { join, relative, dirname, resolve, sep } = require("node:path");
const ts = require("typescript");

/** Each part and the parts it may import (itself always). Order: bottom floor first. */
const PARTS = {
  common: [],
  generated: [],
  contract: [],
  codegen: ["common"],
  diff: ["common", "codegen"],
  kernel: ["common", "generated"],
  runtime: ["common", "generated", "kernel"],
  cli: ["common", "generated", "codegen", "diff", "kernel", "runtime"],
  bench: ["common", "generated", "codegen", "diff", "kernel", "runtime", "cli"],
  scripts: ["common", "generated", "codegen", "diff", "kernel", "runtime", "cli"],
};
/**
 * The packages (docs/PACKAGES.md) as the top-level parts: the parts each one's files come from
 * (its own folder's, and those it carries a compiled copy of: scripts/assemble-packages.js) and the
 * packages it depends on. A file of a part may import only parts its packages carry or depend on,
 * so no package reaches back into another (the runtime into the CLI, the diff into the runtime),
 * and the packages depend on each other without a circle. `folder` is the workspace whose
 * package.json must list exactly those @mnote/ dependencies ("" is the CLI at the top).
 */
const PACKAGES = {
  "@mnote/contract": { folder: "generated", parts: ["generated"], uses: [] },
  "@mnote/diff": { folder: "diff", parts: ["diff", "codegen", "common"], uses: [] },
  "@mnote/runtime": { folder: "runtime", parts: ["runtime", "kernel", "common"], uses: ["@mnote/contract"] },
  // the CLI runs on the runtime and the diff packages (scripts/link-packages.js makes every module
  // they carry a one-line module loading theirs); it still carries the generator and the few files
  // of common/, kernel/ and runtime/ no package entry reaches (the kernel's HTTP server and seeding,
  // the budget stores, the worker cluster)
  "mnote-tools": {
    folder: "",
    parts: ["", "cli", "codegen", "kernel", "runtime", "common", "bench", "scripts"],
    uses: ["@mnote/contract", "@mnote/diff", "@mnote/runtime"],
  },
};
/**
 * Inside a part, folders that import one way: a folder may import itself and the folders before it
 * ("" is the part's top files), never one after it. The composers put the steps together and may
 * import any of them. A folder not listed is a problem, so a new one is placed on purpose.
 */
const LAYERS = {
  diff: {
    order: ["", "load", "normalize", "judge", "compare", "report"],
    composers: ["diff/index.ts", "diff/package-entry.ts", "diff/command.ts", "diff/bin.ts"],
  },
};
/** Files at the top level that may import anything but tests (the package's entry points). */
const ROOT_FILES_MAY_IMPORT = Object.keys(PARTS);
const SKIP_DIRS = new Set([
  "node_modules",
  "dist",
  "test",
  "generated",
  ".git",
  "coverage",
  "test-results",
  "examples",
]);
const EXTENSIONS = [".ts", ".js", ".mjs", ".cjs"];

function sourceFiles(root, dir = root) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !(dir === root && entry.name === "contract"))
        out.push(...sourceFiles(root, path));
    } else if (EXTENSIONS.some((e) => entry.name.endsWith(e)) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The file a relative specifier names, or undefined when it leaves the tree or names no source file. */
function resolveSpecifier(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => join(base, "index" + e))];
  if (base.endsWith(".js")) candidates.push(base.slice(0, -3) + ".ts");
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** The part a file belongs to: its top folder, or "" for a file at the top. */
function partOf(root, file) {
  const rel = relative(root, file).split(sep);
  return rel.length === 1 ? "" : rel[0];
}

function importsOf(file) {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((i) => i.fileName).filter((name) => name.startsWith("."));
}

/** Strongly connected components of more than one file (Tarjan), each sorted, sorted by first file. */
function circles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const visit = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!meta.has(v)) visit(v);
  return found.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** The folder of a file inside its part ("" for the part's top files). */
function folderOf(rel) {
  const parts = rel.split("/");
  return parts.length > 2 ? parts[1] : "";
}

/** Why an import inside a layered part runs the wrong way, or undefined when it may. */
function layerProblem(layers, rel, targetRel) {
  if (layers.composers.includes(rel)) return undefined;
  const [part] = rel.split("/");
  const from = folderOf(rel);
  const to = folderOf(targetRel);
  for (const folder of [from, to])
    if (!layers.order.includes(folder)) return `${part}/${folder}/ is not in its part's LAYERS order`;
  if (layers.order.indexOf(to) <= layers.order.indexOf(from)) return undefined;
  return `${part}/${from ? from + "/" : ""} may not import ${part}/${to}/, a later step`;
}

/** The problems of the packages' own graph: a circle, an unknown package, a manifest that disagrees. */
function packageProblems(packages, root) {
  const problems = [];
  const state = new Map();
  const visit = (name, path) => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "open") {
      problems.push(`package circle: ${[...path.slice(path.indexOf(name)), name].join(" -> ")}`);
      return;
    }
    state.set(name, "open");
    for (const used of packages[name].uses) {
      if (!packages[used]) problems.push(`package ${name} uses ${used}, which is not a package`);
      else visit(used, [...path, name]);
    }
    state.set(name, "done");
  };
  for (const name of Object.keys(packages).sort()) visit(name, []);
  if (root === undefined) return problems;
  for (const [name, pkg] of Object.entries(packages)) {
    const file = join(root, pkg.folder, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    const declared = Object.keys(manifest.dependencies ?? {}).filter(
      (d) => d.startsWith("@mnote/") || d === "mnote-tools",
    );
    if (manifest.name !== name || declared.sort().join() !== [...pkg.uses].sort().join())
      problems.push(
        `${file.slice(root.length + 1)}: ${manifest.name} depends on [${declared}], its row says ${name} uses [${pkg.uses}]`,
      );
  }
  return problems;
}

/** Why an import from part `from` to part `to` crosses out of a package, or undefined when it may. */
function packageCrossing(from, to) {
  for (const [name, pkg] of Object.entries(PACKAGES)) {
    if (!pkg.parts.includes(from)) continue;
    const reach = new Set([...pkg.parts, ...pkg.uses.flatMap((u) => PACKAGES[u]?.parts ?? [])]);
    if (!reach.has(to))
      return `${from}/ is in ${name}, which neither carries ${to}/ nor depends on a package that does`;
  }
  return undefined;
}

/** Every problem of the tree at `root`, as one line each (empty: the house holds). */
function checkArchitecture(root) {
  root = resolve(root);
  const problems = [];
  const graph = new Map();
  for (const file of sourceFiles(root)) {
    const from = partOf(root, file);
    const edges = new Set();
    for (const specifier of importsOf(file)) {
      const target = resolveSpecifier(file, specifier);
      const rel = relative(root, file).split(sep).join("/");
      if (!target || relative(root, target).startsWith("..")) continue;
      const to = partOf(root, target);
      if (to === "test") {
        problems.push(`${rel}: imports ${specifier}, a test file (only tests may import tests)`);
        continue;
      }
      const allowed = from === "" ? ROOT_FILES_MAY_IMPORT : PARTS[from];
      if (allowed && to !== from && to !== "" && !allowed.includes(to))
        problems.push(`${rel}: ${from}/ may not import ${to}/ (${specifier}); see docs/ARCHITECTURE.md`);
      const crossing =
        to !== from && to !== "" && allowed && allowed.includes(to) ? packageCrossing(from, to) : undefined;
      if (crossing) problems.push(`${rel}: ${crossing} (${specifier}); see docs/PACKAGES.md`);
      if (to === from && LAYERS[from]) {
        const problem = layerProblem(LAYERS[from], rel, relative(root, target).split(sep).join("/"));
        if (problem) problems.push(`${rel}: ${problem} (${specifier}); see docs/ARCHITECTURE.md`);
      }
      if (to !== "generated") edges.add(target);
    }
    graph.set(file, edges);
  }
  problems.push(...packageProblems(PACKAGES, root));
  for (const component of circles(graph))
    problems.push(
      `import circle of ${component.length} files: ${component.map((f) => relative(root, f).split(sep).join("/")).join(" -> ")}`,
    );
  return { problems, files: graph.size };
}

module.exports = { checkArchitecture, sourceFiles, packageProblems, PARTS, LAYERS, PACKAGES };

if (require.main === module) {
  const root = process.argv[2] ?? join(__dirname, "..");
  const { problems, files } = checkArchitecture(root);
  for (const p of problems) console.error(`architecture: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log(`architecture: ${files} files, imports run one way, no circle`);
}
