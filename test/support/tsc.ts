import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "./paths";

/** Type-checks a folder with the repo's TypeScript, as a separate process; returns tsc's output and status. */
export function typeCheck(
  dir: string,
  compilerOptions: Record<string, unknown> = {},
  include = ["**/*.ts"],
): { status: number | null; output: string } {
  // the folder resolves packages (the agent frameworks the generated targets import) from the
  // repository's node_modules, as a project that generated into itself resolves them from its own
  if (!existsSync(join(dir, "node_modules")))
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "commonjs",
        moduleResolution: "node",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        esModuleInterop: true,
        types: ["node"],
        typeRoots: [join(repoRoot, "node_modules", "@types")],
        ...compilerOptions,
      },
      include,
    }),
  );
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")],
    { encoding: "utf8", timeout: 120_000 },
  );
  return { status: run.status, output: run.stdout + run.stderr };
}

/**
 * Options for type-checking generated/: every generated .ts file in full, but not the .d.ts files
 * of the agent frameworks the targets import (the AI SDK's own declarations resolve only under
 * node16/bundler resolution, which the consumer tests use; here it is node10, like the package build).
 */
export const GENERATED_TS = { skipLibCheck: true } as const;
