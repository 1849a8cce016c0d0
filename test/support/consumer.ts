import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "./paths";

const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

/**
 * Copies the consumer fixture into a project as consumer.mts (ESM) and consumer.cts (CommonJS),
 * the two ways a TypeScript author with node16 resolution writes a file.
 */
export function addConsumerFiles(project: string): void {
  const source = join(repoRoot, "test", "fixtures", "consumer", "consumer.ts");
  copyFileSync(source, join(project, "consumer.mts"));
  copyFileSync(source, join(project, "consumer.cts"));
}

/**
 * Type-checks (and with `outDir`, compiles) the consumer files of a project with the repo's
 * TypeScript, resolving @mnote/contract from the project's node_modules like any outside project.
 */
export function compileConsumer(
  project: string,
  resolution: { module: string; moduleResolution: string },
  files: string[],
  outDir?: string,
  /** Compiler options over the defaults, e.g. no ambient types at all ({ types: [] }). */
  overrides: Record<string, unknown> = {},
): { status: number | null; output: string } {
  const config = join(project, `tsconfig.${resolution.moduleResolution}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        ...resolution,
        strict: true,
        skipLibCheck: false,
        types: ["node"],
        typeRoots: [join(repoRoot, "node_modules", "@types")],
        ...(outDir ? { outDir } : { noEmit: true }),
        ...overrides,
      },
      files,
    }),
  );
  const run = spawnSync(process.execPath, [tsc, "-p", config], { encoding: "utf8", timeout: 180_000 });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** Runs a compiled consumer file with node and parses the JSON line it prints. */
export function runConsumer(file: string, cwd: string): Record<string, unknown> {
  const run = spawnSync(process.execPath, [file], { cwd, encoding: "utf8", timeout: 60_000 });
  if (run.status !== 0) throw new Error(`node ${file} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim()) as Record<string, unknown>;
}

/** The JSON a file holds. */
export function readJson<T = Record<string, unknown>>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}
