#!/usr/bin/env node
// The size check (`npm run lint` runs it after the import-direction check; docs/ARCHITECTURE.md
// gives the rule): no hand-written function outside test/ is over 80 lines, and no file in
// runtime/ is over 300. A function that long holds several decisions a reader cannot see apart or
// test alone; a runtime file that long is no longer "a small dispatcher over the generated code".
// Functions are found with TypeScript's own parser (every declaration, method, accessor,
// constructor, arrow and function expression, nested ones too), so a long string or comment is
// never mistaken for one. The folders the import-direction check skips are skipped here too
// (tests, generated code, fixtures); a table is data, not a function, and is not counted.
"use strict";
const { readFileSync } = require("node:fs");
const { join, relative, sep } = require("node:path");
const ts = require("typescript");
const { sourceFiles } = require("./check-architecture.js");

const MAX_FUNCTION_LINES = 80;
const MAX_RUNTIME_FILE_LINES = 300;

/** The name a reader would search for: the function's own, or the variable/property it is bound to. */
function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    return parent.name.getText(source);
  return "(anonymous)";
}

function isFunction(node) {
  return ts.isFunctionLike(node) && "body" in node && node.body !== undefined;
}

/** Every function of one file longer than the limit, as `{ line, name, lines }`. */
function longFunctions(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (isFunction(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ line: first + 1, name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every problem of the tree at `root`, one line each (empty: every function and runtime file fits). */
function checkSize(root) {
  const problems = [];
  const files = sourceFiles(root);
  for (const file of files) {
    const rel = relative(root, file).split(sep).join("/");
    const text = readFileSync(file, "utf8");
    for (const f of longFunctions(file, text))
      problems.push(
        `${rel}:${f.line}: ${f.name} is ${f.lines} lines (at most ${MAX_FUNCTION_LINES}): split it by what each part decides`,
      );
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (rel.startsWith("runtime/") && lines > MAX_RUNTIME_FILE_LINES)
      problems.push(`${rel}: ${lines} lines (a runtime file holds at most ${MAX_RUNTIME_FILE_LINES})`);
  }
  return { problems, files: files.length };
}

module.exports = { checkSize, MAX_FUNCTION_LINES, MAX_RUNTIME_FILE_LINES };

if (require.main === module) {
  const root = process.argv[2] ?? join(__dirname, "..");
  const { problems, files } = checkSize(root);
  for (const p of problems) console.error(`size: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log(
    `size: ${files} files, every function at most ${MAX_FUNCTION_LINES} lines, every runtime file at most ${MAX_RUNTIME_FILE_LINES}`,
  );
}
