/**
 * The cold-start contender "ajv at start-up": `mnote-tools call`, but with the validators compiled
 * by ajv when the process starts instead of the precompiled standalone ones. It reads the schemas
 * the generator compiles (validatorSchemas, shipped as one JSON file, as a runtime that compiles
 * at start-up would ship them), compiles every one with the generator's ajv configuration
 * (createContractAjv), puts the result where generated/validators would be loaded from, and then
 * runs the real CLI's `call` verb, which loads the runtime and uses these validators throughout.
 *
 *   node dist/bench/cold-start-ajv.js <schemas.json> call --db <kernel.db> --state <state.db>
 */
import { readFileSync } from "node:fs";
import Module from "node:module";
import { createContractAjv } from "../codegen/support/contract-ajv";
import { prepareForAjv } from "../codegen/support/ajv-compat";

const [schemasPath, ...cliArgs] = process.argv.slice(2);
const schemas = JSON.parse(readFileSync(schemasPath!, "utf8")) as Array<Record<string, unknown> & { $id: string }>;
const ajv = createContractAjv();
for (const schema of schemas) {
  const ready = prepareForAjv(schema, schema.$id);
  for (const resource of ready.resources) ajv.addSchema(resource);
  ajv.addSchema(ready.root as object);
}
const validators: Record<string, unknown> = {};
for (const schema of schemas) {
  const typeName = schema.$id.replace(/^urn:mnote:type:/, "");
  validators[`validate${typeName}`] = ajv.getSchema(schema.$id);
}

// generated/validators, as every runtime module will require it: the ajv-compiled functions
const resolved = require.resolve("../generated/validators");
const replacement = new Module(resolved, module);
replacement.filename = resolved;
replacement.loaded = true;
replacement.exports = validators;
require.cache[resolved] = replacement;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cli = require("../cli/main") as typeof import("../cli/main");
cli.main([process.argv[0]!, "mnote-tools", ...cliArgs]).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error((e as Error)?.stack ?? String(e));
    process.exit(70);
  },
);
