/**
 * ajv standalone code made self-contained: ajv's runtime helpers are imported from the generated
 * runtime folder instead of from ajv, and every export gets a typed name. The JSON Schema test
 * suite runs through this same function, so what it proves holds for the shipped validators.
 */
import type Ajv from "ajv";
import type { AnyValidateFunction, SourceCode } from "ajv/dist/types";
import type { ScopeValueSets, ValueScopeName } from "ajv/dist/compile/codegen";

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

export function standaloneModule(
  ajv: Ajv,
  entries: readonly StandaloneExport[],
  options: StandaloneOptions = {},
): string {
  const implName = (i: number) => `impl${i}`;
  const refs: Record<string, string> = {};
  entries.forEach((e, i) => (refs[implName(i)] = e.ref));
  let code = linearStandaloneCode(ajv, refs);

  const imports: string[] = [];
  code = code.replace(/^"use strict";\n?/, "");
  code = code.replace(
    /const (\w+) = require\("([^"]+)"\)(\.default|\.formats)?(\[[^\]]+\])?;/g,
    (_m, local: string, spec: string, member = "", index = "") => {
      const mapped = RUNTIME_MODULES[spec];
      if (!mapped)
        throw new UnsupportedRuntimeError(
          `the standalone code needs "${spec}", which the generated runtime folder does not provide`,
        );
      if (member === ".default" && !index) {
        imports.push(`import ${local} from "${mapped}";`);
        return "";
      }
      const alias = `${local}Module`;
      imports.push(`import * as ${alias} from "${mapped}";`);
      return `const ${local} = ${alias}${member}${index};`;
    },
  );
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
  // both comparisons in one pass over the code (some 8 MB at 200 tools)
  return code.replace(new RegExp(`${ucs}\\((\\w+)\\) ([<>]) (\\d+)`, "g"), (_m, v: string, op: string, n: string) =>
    op === ">"
      ? `(${v}.length > ${n} && ${ucs}(${v}) > ${n})`
      : `(${v}.length < ${n} || (${v}.length < 2 * ${n} && ${ucs}(${v}) < ${n}))`,
  );
}

/**
 * ajv's standaloneCode(ajv, refs), built in one array of strings. ajv's own version grows its
 * output as a tagged template per scope value (`${code}const x = ...`), which copies every piece
 * emitted so far each time: for 200 tools (some 3,700 values) that quadratic copy was a quarter of
 * the generator's CPU time. The text is the same, character for character (test/codegen checks it
 * against ajv's), so this follows ajv's order exactly: every export's validate function, each
 * preceded by the scope values it uses, depth first, each emitted once.
 */
export function linearStandaloneCode(ajv: Ajv, refs: Readonly<Record<string, string>>): string {
  if (!ajv.opts.code.source) throw new Error("linearStandaloneCode: the ajv instance needs code.source");
  const n = String(ajv.scope.opts._n);
  const def = ajv.opts.code.es5 ? "var" : "const";
  const esm = ajv.opts.code.esm === true;
  const used: Record<string, Map<ValueScopeName, "started" | "completed">> = {};
  const usedSet = (name: ValueScopeName) => (used[name.prefix] ??= new Map());
  const out: string[] = ['"use strict";'];

  /** ajv's scopeCode (_reduceValues): each value not yet emitted, or the function it names. */
  const scopeCode = (values: ScopeValueSets) => {
    for (const prefix in values) {
      const names = values[prefix];
      if (!names) continue;
      const state = usedSet({ prefix } as ValueScopeName);
      names.forEach((name) => {
        if (state.has(name)) return;
        state.set(name, "started");
        const code = name.value?.code;
        if (code) out.push(`${def} ${name} = ${code};${n}`);
        else if (refValidateCode(name)) out.push(n);
        else throw new Error(`CodeGen: "code" for ${name} not defined`);
        state.set(name, "completed");
      });
    }
  };
  /** A function's scope values, then the function; nothing when it was emitted already. */
  const validateCode = (source: SourceCode | undefined) => {
    if (!source) throw new Error('moduleCode: function does not have "source" property');
    const state = usedSet(source.validateName);
    if (state.get(source.validateName) === "completed") return;
    state.set(source.validateName, "started");
    scopeCode(source.scopeValues);
    out.push(`${n}${source.validateCode}`);
    if (source.evaluated) out.push(`${source.validateName}.evaluated = ${source.evaluated};${n}`);
  };
  /** Whether name is a function (or a root wrapper) whose code this emitted (or had emitted). */
  const refValidateCode = (name: ValueScopeName): boolean => {
    const ref = name.value?.ref;
    if (name.prefix === "validate" && typeof ref === "function") {
      validateCode((ref as AnyValidateFunction).source);
      return true;
    }
    if ((name.prefix === "root" || name.prefix === "wrapper") && typeof ref === "object" && ref !== null) {
      const { validate, validateName } = ref as { validate?: AnyValidateFunction; validateName?: ValueScopeName };
      if (!validateName) throw new Error("ajv internal error");
      out.push(`${def} ${name} = {validate: ${validateName}};`);
      if (usedSet(validateName).get(validateName) === "started") return true;
      out.push(n);
      validateCode(validate?.source);
      return true;
    }
    return false;
  };

  for (const [exportName, ref] of Object.entries(refs)) {
    const v = ajv.getSchema(ref);
    if (!v) throw new Error(`moduleCode: no schema with id ${ref}`);
    if (!/^[a-z$_][a-z$_0-9]*$/i.test(exportName))
      throw new Error(`CodeGen: invalid export name: ${exportName}, use explicit $id name mapping`);
    out.push(`${n}${esm ? `export const ${exportName}` : `exports.${exportName}`} = ${v.source?.validateName};${n}`);
    validateCode(v.source);
  }
  return out.join("");
}
