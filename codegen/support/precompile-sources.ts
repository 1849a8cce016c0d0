/**
 * The standalone sources of precompiled-validators.json (precompiled.ts says what they are for):
 * used by scripts/precompile-validators.ts to write the file and by the test that checks it.
 */
import Ajv2020 from "ajv/dist/2020";
import standaloneCode from "ajv/dist/standalone";
import addFormats from "ajv-formats";
import rulesSchema from "../diff-rules.schema.json";
import ignoreSchema from "../diff-ignore.schema.json";
import { createContractAjv } from "./contract-ajv";
import { JSON_SCHEMA_2020, metaSetKey, type PrecompiledName } from "./precompiled";
import { parseContract, readContractDir } from "../phases/load";
import { classifyFile } from "../phases/validate";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** What --baseline reads from a previous JSON report: its findings' fingerprints and places. */
export const BASELINE_SCHEMA = {
  $id: "https://mnote.dev/mnote-tools/diff-baseline.schema.json",
  type: "object",
  required: ["changes"],
  properties: {
    changes: {
      type: "array",
      items: {
        type: "object",
        required: ["fingerprint", "rule", "subject", "pointer"],
        properties: {
          fingerprint: { type: "string", pattern: "^[0-9a-f]{32}$" },
          rule: { type: "string" },
          subject: { type: "string" },
          pointer: { type: "string" },
        },
      },
    },
  },
} as const;

/** The standalone source of each validator, from the ajv configuration it is used with. */
export function precompiledSources(): Record<PrecompiledName, string> {
  // The contract's ajv, as validate.ts uses it to check each file against the 2020-12 meta-schema.
  const contract = createContractAjv({ source: false });
  const meta = new Ajv2020({ ...contract.opts, code: { source: true, lines: true } });
  addFormats(meta, ["date-time"]);
  // The diff's configuration files: formats "date" (a real calendar date).
  const config = new Ajv2020({ allErrors: false, strict: true, code: { source: true, lines: true } });
  addFormats(config, ["date"]);
  config.addSchema(rulesSchema).addSchema(ignoreSchema).addSchema(BASELINE_SCHEMA);
  return {
    jsonSchema2020: standaloneCode(meta, meta.getSchema(JSON_SCHEMA_2020)),
    diffRules: standaloneCode(config, config.getSchema(rulesSchema.$id)),
    diffIgnore: standaloneCode(config, config.getSchema(ignoreSchema.$id)),
    diffBaseline: standaloneCode(config, config.getSchema(BASELINE_SCHEMA.$id)),
  };
}

/** A set of contract meta-schemas, compiled: the refs of its validators (exported as v0, v1, …) and the code. */
export interface MetaSetSource {
  refs: string[];
  code: string;
}

/**
 * The meta-schema validators validate.ts uses for a set of meta files (each file's $id, and each
 * of its $defs entries, which hold the x-mnote-* keywords), compiled as it compiles them to stop at
 * the first problem.
 */
export function metaSetSource(files: ReadonlyArray<{ path: string; json: unknown }>): MetaSetSource {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    validateSchema: false,
    code: { source: true, lines: true },
  });
  const refs: string[] = [];
  for (const f of files) {
    const json = f.json as { $id: string; $defs?: Record<string, unknown> };
    ajv.addSchema(json);
    refs.push(json.$id, ...Object.keys(json.$defs ?? {}).map((name) => `${json.$id}#/$defs/${name}`));
  }
  return { refs, code: standaloneCode(ajv, Object.fromEntries(refs.map((ref, i) => [`v${i}`, ref]))) };
}

/** The meta files of a contract folder, parsed and sorted as validate.ts sees them. */
export function metaFilesOf(contractDir: string): Array<{ path: string; json: unknown }> {
  return parseContract(readContractDir(contractDir))
    .files.filter((f) => classifyFile(f.path) === "meta")
    .map((f) => ({ path: f.path, json: f.json }));
}

/** Every meta set of the contract folders given (the repository's: contract/ and each release), by key. */
export function metaSetSources(contractDirs: readonly string[]): Record<string, MetaSetSource> {
  const out: Record<string, MetaSetSource> = {};
  for (const dir of contractDirs) {
    const files = metaFilesOf(dir);
    out[metaSetKey(files)] ??= metaSetSource(files);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The contract folders whose meta-schemas are precompiled: contract/ and every release. */
export function repositoryContracts(repoRoot: string): string[] {
  const releases = join(repoRoot, "contract-releases");
  const released = existsSync(releases)
    ? readdirSync(releases, { withFileTypes: true })
        .filter((e) => e.isDirectory() && existsSync(join(releases, e.name, "contract.json")))
        .map((e) => join(releases, e.name))
        .sort()
    : [];
  return [join(repoRoot, "contract"), ...released];
}
