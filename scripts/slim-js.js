#!/usr/bin/env node
// The packages' compiled JavaScript without its indentation (docs/PACKAGES.md, "Slim JavaScript").
// tsc re-indents everything it emits by four spaces a level, and the contract's precompiled
// validators nest deep: 565 KB of @mnote/contract's 1.5 MB of JavaScript was leading spaces, bytes
// every install carries and no program reads. Only the spaces at the start of a line go: lines,
// line numbers, names and comments stay (a stack trace names the same line), and a line start
// inside a template literal or a string continued over lines is left alone. Each file is checked
// after: TypeScript's printer must print the slimmed file exactly as it prints the original (the
// same syntax tree, token for token, literals included), or the build fails. Declarations (.d.ts)
// keep their layout: people read them.
//
//   node scripts/slim-js.js DIR...   (slims every .js file under each DIR in place)
"use strict";
const { readdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const ts = require("typescript");

const parse = (file, text) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);

/** The [start, end) ranges of the literals whose text may cross a line: templates and strings. */
function literalRanges(source) {
  const ranges = [];
  const visit = (node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      ranges.push([node.getStart(source), node.end]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ranges.sort((a, b) => a[0] - b[0]);
}

/** `text` with the leading spaces and tabs of each line removed, except where a line starts inside a literal. */
function slimJs(text, file = "file.js") {
  const before = parse(file, text);
  const ranges = literalRanges(before);
  let out = "";
  let r = 0;
  let at = 0;
  while (at < text.length) {
    const eol = text.indexOf("\n", at);
    const end = eol < 0 ? text.length : eol + 1;
    while (r < ranges.length && ranges[r][1] <= at) r++;
    const inside = r < ranges.length && ranges[r][0] < at;
    out += inside ? text.slice(at, end) : text.slice(at, end).replace(/^[ \t]+/, "");
    at = end;
  }
  const printer = ts.createPrinter({ removeComments: true });
  if (printer.printFile(before) !== printer.printFile(parse(file, out)))
    throw new Error(`slim-js: ${file} would not be the same program without its indentation`);
  return out;
}

/** Every .js file under `dir`, slimmed in place; the bytes saved. */
function slimTree(dir) {
  let saved = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) saved += slimTree(path);
    else if (e.name.endsWith(".js")) {
      const text = readFileSync(path, "utf8");
      const slim = slimJs(text, path);
      if (slim !== text) writeFileSync(path, slim);
      saved += Buffer.byteLength(text) - Buffer.byteLength(slim);
    }
  }
  return saved;
}

if (require.main === module) {
  for (const dir of process.argv.slice(2))
    console.log(`${dir}: ${(slimTree(dir) / 1024).toFixed(0)} KB of indentation removed`);
}

module.exports = { slimJs, slimTree };
