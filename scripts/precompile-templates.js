#!/usr/bin/env node
// A step of `npm run build`: every handlebars template under codegen/templates, parsed and
// compiled to handlebars' template spec now rather than by each generate run (parsing them was a
// measurable part of its CPU time: docs/BENCHMARKS.md, round 3). Written to
// dist/codegen/precompiled-templates.js with the sha256 of each template's text, so a template
// edited after the build is parsed at run time instead (codegen/support/templates.ts). Both
// strict modes are kept: the docs set is loose, the Hermes set strict.
"use strict";
const { createHash } = require("node:crypto");
const { mkdirSync, readdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const Handlebars = require("handlebars");

const root = join(__dirname, "..");
const templates = join(root, "codegen", "templates");
const lines = ['"use strict";', "// Written by scripts/precompile-templates.js at build time.", "module.exports = {"];
for (const folder of readdirSync(templates).sort()) {
  for (const name of readdirSync(join(templates, folder)).sort()) {
    if (!name.endsWith(".hbs")) continue;
    const text = readFileSync(join(templates, folder, name), "utf8");
    const sha256 = createHash("sha256").update(text).digest("hex");
    for (const strict of [false, true]) {
      const spec = Handlebars.precompile(text, { noEscape: true, strict });
      lines.push(
        `  ${JSON.stringify(`${folder}/${name}#${strict ? "strict" : "loose"}`)}: { sha256: "${sha256}", spec: ${spec} },`,
      );
    }
  }
}
lines.push("};", "");
mkdirSync(join(root, "dist", "codegen"), { recursive: true });
writeFileSync(join(root, "dist", "codegen", "precompiled-templates.js"), lines.join("\n"));
