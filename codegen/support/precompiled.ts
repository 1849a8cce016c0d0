/**
 * Validators for schemas that never change at run time, compiled ahead of time: the JSON Schema
 * 2020-12 meta-schema (every contract file, and every contract meta-schema, is checked against it)
 * and the diff's configuration files (codegen/diff-rules.schema.json, diff-ignore.schema.json, and
 * the part of a JSON report --baseline reads). Compiling the 2020-12 meta-schema took about a
 * fifth of a `mnote-tools diff` run, twice over; loading its compiled code takes a few
 * milliseconds.
 *
 * The code is ajv's standalone output for exactly the ajv configuration each one is used with
 * (precompile-sources.ts), kept in precompiled-validators.json. `node dist/scripts/precompile-validators.js`
 * writes the file; test/codegen/precompiled.test.ts fails when it is not what the schemas give,
 * so it cannot drift from them. This module only loads the code: it does not load ajv's compiler.
 */
import type { ValidateFunction } from "ajv";
import compiled from "./precompiled-validators.json";
import { sha256Hex } from "../../common/hash";

export const JSON_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema";

export type PrecompiledName = "jsonSchema2020" | "diffRules" | "diffIgnore" | "diffBaseline";

/** Evaluates one standalone module (our own code, from precompiled-validators.json). */
function load(code: string): Record<string, ValidateFunction> {
  const module = { exports: {} as Record<string, ValidateFunction> };
  // The standalone code requires ajv's runtime helpers and ajv-formats' formats: ours, as installed.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- our own code, generated from our schemas and checked against them by test/codegen/precompiled.test.ts
  new Function("require", "exports", "module", code)(require, module.exports, module);
  return module.exports;
}

/**
 * The name a set of contract meta-schemas is known by: a hash over each file's path and parsed
 * JSON, in path order (validate.ts compares sets the same way).
 */
export function metaSetKey(files: ReadonlyArray<{ path: string; json: unknown }>): string {
  return sha256Hex(JSON.stringify(files.map((f) => [f.path, f.json])));
}

const metaSets = new Map<string, Map<string, ValidateFunction> | null>();

/**
 * Validators of a set of contract meta-schemas compiled ahead of time (every $id and $defs entry
 * of the set, stopping at the first problem), for the sets this repository holds (contract/meta
 * and each release's); undefined for any other set, which validate.ts compiles.
 */
export function precompiledMetaSet(key: string): Map<string, ValidateFunction> | undefined {
  if (!metaSets.has(key)) {
    const entry = (compiled.metaSets as Record<string, { refs: string[]; code: string }>)[key];
    if (!entry) metaSets.set(key, null);
    else {
      const exports = load(entry.code);
      metaSets.set(key, new Map(entry.refs.map((ref, i) => [ref, exports[`v${i}`]!])));
    }
  }
  return metaSets.get(key) ?? undefined;
}

const loaded = new Map<PrecompiledName, ValidateFunction>();

/** A precompiled validator (its code is our own, from precompiled-validators.json). */
export function precompiled(name: PrecompiledName): ValidateFunction {
  let validate = loaded.get(name);
  if (!validate) {
    const exports = load((compiled as unknown as Record<PrecompiledName, string>)[name]);
    validate = exports.default ?? (exports as unknown as ValidateFunction);
    loaded.set(name, validate);
  }
  return validate;
}
