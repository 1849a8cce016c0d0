/** ts-jest only transpiles; this is where the whole project (code, generated code, tests) is type-checked. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./support/paths";

it("the project type-checks (tsc -p tsconfig.json)", () => {
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", join(repoRoot, "tsconfig.json")],
    {
      encoding: "utf8",
      timeout: 180_000,
    },
  );
  expect(run.stdout + run.stderr).toBe("");
  expect(run.status).toBe(0);
});
