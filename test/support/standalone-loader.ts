/**
 * Loads a standalone validator module the way the build would: TypeScript transpiled to CommonJS,
 * its "./runtime/*" imports served from the same runtime files the generator copies into generated/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { assetsDir } from "../../codegen/support/templates";

function transpile(source: string): string {
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
}

function evaluate(js: string, requireFn: (spec: string) => unknown): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  new Function("require", "exports", "module", js)(requireFn, module.exports, module);
  return module.exports;
}

const runtimeCache = new Map<string, unknown>();

function runtimeModule(name: string): unknown {
  if (!runtimeCache.has(name)) {
    const source = readFileSync(join(assetsDir("validator-runtime"), `${name}.ts`), "utf8");
    runtimeCache.set(
      name,
      evaluate(transpile(source), () => {
        throw new Error("runtime modules import nothing");
      }),
    );
  }
  return runtimeCache.get(name);
}

export function loadStandalone(source: string): Record<string, unknown> {
  return evaluate(transpile(source), (spec) => {
    const m = /^\.\/runtime\/([a-z0-9-]+)$/.exec(spec);
    if (!m) throw new Error(`the standalone module requires "${spec}", which the package does not ship`);
    return runtimeModule(m[1]!);
  });
}
