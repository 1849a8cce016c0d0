#!/usr/bin/env node
// The last step of `npm run build`: the CLI runs on the @mnote/contract package it depends on, not
// on a second compiled copy of generated/. The code imports generated/ relatively
// (`../generated/registry`), so tsc emits dist/generated/; each of its .js files is replaced here
// by a one-line module that loads the same file from @mnote/contract (resolved like any
// dependency: the workspace link to generated/ in this repository, node_modules/@mnote/contract in
// an installed CLI). One instance of each module then serves both `require("mnote-tools")` and the
// CLI's own code, and the CLI package ships a few hundred bytes instead of 1.7 MB.
"use strict";
const { readdirSync, writeFileSync } = require("node:fs");
const { join, relative, sep } = require("node:path");

const root = join(__dirname, "..");
const emitted = join(root, "dist", "generated");

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith(".js") ? [join(dir, e.name)] : [],
  );
}

let count = 0;
for (const file of jsFiles(emitted)) {
  const inPackage = relative(emitted, file).split(sep).join("/");
  writeFileSync(
    file,
    [
      '"use strict";',
      `// ${inPackage} of @mnote/contract, the package this CLI depends on (written by scripts/link-contract.js).`,
      // by file, past the package's exports map: the same absolute path as the package's own index
      // loads, so one module instance
      `const { dirname, join } = require("node:path");`,
      `module.exports = require(join(dirname(require.resolve("@mnote/contract")), ${JSON.stringify(inPackage)}));`,
      "",
    ].join("\n"),
  );
  count++;
}
if (count === 0) {
  console.error(`link-contract: no compiled files in ${emitted}: run tsc -p tsconfig.build.json first`);
  process.exit(1);
}
