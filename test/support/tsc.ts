import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { repoRoot } from "./paths";

/** Type-checks a folder with the repo's TypeScript, as a separate process; returns tsc's output and status. */
export function typeCheck(
  dir: string,
  compilerOptions: Record<string, unknown> = {},
  include = ["**/*.ts"],
): { status: number | null; output: string } {
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
