/**
 * ajv standalone code made self-contained: ajv's runtime helpers are imported from the generated
 * runtime folder instead of from ajv, and every export gets a typed name. The JSON Schema test
 * suite runs through this same function, so what it proves holds for the shipped validators.
 */
import type Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone";

/** ajv runtime modules -> the generated runtime folder's. Anything else is an error, not a silent require. */
export const RUNTIME_MODULES: Readonly<Record<string, string>> = {
  "ajv/dist/runtime/ucs2length": "./runtime/ucs2length",
  "ajv/dist/runtime/equal": "./runtime/equal",
  "./runtime/formats": "./runtime/formats",
};

export class UnsupportedRuntimeError extends Error {}

export interface StandaloneExport {
  /** The exported name. */
  name: string;
  /** The schema reference ajv knows it by. */
  ref: string;
  /** The TypeScript type it guards (omit for Validator<unknown>). */
  type?: string;
}

export interface StandaloneOptions {
  /** Module the guarded types are imported from, as `import type * as T`. */
  typesModule?: string;
  header?: string;
}

export function standaloneModule(ajv: Ajv, entries: readonly StandaloneExport[], options: StandaloneOptions = {}): string {
  const implName = (i: number) => `impl${i}`;
  const refs: Record<string, string> = {};
  entries.forEach((e, i) => (refs[implName(i)] = e.ref));
  let code = standaloneCode(ajv, refs);

  const imports: string[] = [];
  code = code.replace(/^"use strict";\n?/, "");
  code = code.replace(/const (\w+) = require\("([^"]+)"\)(\.default|\.formats)?(\[[^\]]+\])?;/g, (_m, local: string, spec: string, member = "", index = "") => {
    const mapped = RUNTIME_MODULES[spec];
    if (!mapped) throw new UnsupportedRuntimeError(`the standalone code needs "${spec}", which the generated runtime folder does not provide`);
    if (member === ".default" && !index) {
      imports.push(`import ${local} from "${mapped}";`);
      return "";
    }
    const alias = `${local}Module`;
    imports.push(`import * as ${alias} from "${mapped}";`);
    return `const ${local} = ${alias}${member}${index};`;
  });
  if (/\brequire\(/.test(code)) {
    const spec = /require\("([^"]+)"\)/.exec(code)?.[1] ?? "?";
    throw new UnsupportedRuntimeError(`the standalone code needs "${spec}" in a form the generator does not rewrite`);
  }
  code = code.replace(/export const (impl\d+) = /g, "const $1 = ");
  code = countCodePointsOnlyWhenNeeded(code, imports);

  const typed = entries.map((e, i) => {
    const type = e.type ? (options.typesModule ? `T.${e.type}` : e.type) : "unknown";
    return `export const ${e.name} = ${implName(i)} as unknown as Validator<${type}>;`;
  });
  return [
    options.header ?? "",
    "// @ts-nocheck -- ajv's standalone output is plain JavaScript; the typed exports at the end are the API.",
    options.typesModule ? `import type * as T from "${options.typesModule}";` : "",
    `import type { Validator } from "./runtime/validator";`,
    ...[...new Set(imports)].sort(),
    "",
    code.replace(/\n{3,}/g, "\n\n").trim(),
    "",
    ...typed,
    "",
  ]
    .filter((l, i) => l !== "" || i > 2)
    .join("\n");
}

/**
 * A string never has more code points than UTF-16 units, nor fewer than half of them, so most
 * length checks are decided by .length alone; ucs2length (a walk over the string) runs only when
 * they are not.
 */
function countCodePointsOnlyWhenNeeded(code: string, imports: readonly string[]): string {
  const ucs = /import (\w+) from "\.\/runtime\/ucs2length";/.exec(imports.join("\n"))?.[1];
  if (!ucs) return code;
  return code
    .replace(new RegExp(`${ucs}\\((\\w+)\\) > (\\d+)`, "g"), (_m, v: string, n: string) => `(${v}.length > ${n} && ${ucs}(${v}) > ${n})`)
    .replace(new RegExp(`${ucs}\\((\\w+)\\) < (\\d+)`, "g"), (_m, v: string, n: string) => `(${v}.length < ${n} || (${v}.length < 2 * ${n} && ${ucs}(${v}) < ${n}))`);
}
