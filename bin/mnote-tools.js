#!/usr/bin/env node
"use strict";
let cli;
try {
  cli = require("../dist/cli/main.js");
} catch (e) {
  if (e && e.code === "MODULE_NOT_FOUND" && /dist[\\/]cli[\\/]main/.test(e.message)) {
    console.error("mnote-tools is not built yet: run `npm run build` (npm ci does it for you).");
    process.exit(2);
  }
  throw e;
}
cli.main(process.argv).catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(70);
});
