#!/usr/bin/env node
"use strict";
// The exit codes are cli/exit.ts's (0 ok, 1 findings, 2 usage, 3 environment, 70 a bug); main()
// reports every error itself and resolves with the code.
let cli;
try {
  cli = require("../dist/cli/main.js");
} catch (e) {
  if (e && e.code === "MODULE_NOT_FOUND" && /dist[\\/]cli[\\/]main/.test(e.message)) {
    console.error("mnote-tools: not built yet: run `npm run build` in this checkout (npm ci does it for you)");
    process.exit(3);
  }
  throw e;
}
cli.main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // the command is over: a handle left open (a Redis client after a failed start) must not keep
    // the process alive; an unref'd timer fires only if something else still holds the loop
    setTimeout(() => process.exit(code), code === 0 ? 2_000 : 200).unref();
  },
  (e) => {
    // main never rejects; if it does, that is a bug
    console.error(`mnote-tools: internal error: ${e && e.stack ? e.stack : String(e)}`);
    console.error("this is a bug in mnote-tools: please report it with the command you ran and the text above");
    process.exit(70);
  },
);
