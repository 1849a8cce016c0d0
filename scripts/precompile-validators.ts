/**
 * Writes codegen/support/precompiled-validators.json: ajv's standalone code for the schemas that
 * never change at run time (codegen/support/precompiled.ts says which and why), and for the
 * meta-schema sets of contract/ and of every release. Run after changing contract/meta/, cutting
 * a release, changing codegen/diff-rules.schema.json or codegen/diff-ignore.schema.json, the
 * contract's ajv options, or ajv itself:
 *
 *   npm run -s build && node dist/scripts/precompile-validators.js && npm run -s build
 *
 * test/codegen/precompiled.test.ts fails while the file is not what this writes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { metaSetSources, precompiledSources, repositoryContracts } from "../codegen/support/precompile-sources";

// Run from dist/scripts/: the repository root is two folders up.
const root = join(__dirname, "..", "..");
const target = join(root, "codegen", "support", "precompiled-validators.json");
writeFileSync(
  target,
  JSON.stringify({ ...precompiledSources(), metaSets: metaSetSources(repositoryContracts(root)) }, null, 2) + "\n",
);
console.log(`wrote ${target}`);
