/**
 * The import-direction check that `npm run lint` (and so .ci/run) runs: the real tree holds, and a
 * deliberate back arrow or circle in a scratch tree fails it, so the check cannot pass by itself.
 */
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { repoRoot } from "../support/paths";
import { scratchTree } from "../support/tmp";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkArchitecture } = require("../../scripts/check-architecture.js") as {
  checkArchitecture(root: string): { problems: string[]; files: number };
};

const tree = (files: Record<string, string>): string => scratchTree(files, "architecture-");

describe("import direction", () => {
  it("holds in this repository: no back arrow, no circle", () => {
    const { problems, files } = checkArchitecture(repoRoot);
    expect(problems).toEqual([]);
    expect(files).toBeGreaterThan(100);
  });

  it("refuses an arrow back up (kernel/ importing runtime/)", () => {
    const root = tree({
      "runtime/telemetry.ts": "export const x = 1;\n",
      "kernel/k.ts": 'import { x } from "../runtime/telemetry";\nexport const y = x;\n',
    });
    expect(checkArchitecture(root).problems).toEqual([
      "kernel/k.ts: kernel/ may not import runtime/ (../runtime/telemetry); see docs/ARCHITECTURE.md",
    ]);
  });

  it("refuses a circle, type-only imports included, and a dynamic import counts", () => {
    const root = tree({
      "codegen/a.ts": 'import type { B } from "./b";\nexport type A = B;\n',
      "codegen/b.ts": 'export type B = number;\nexport const load = () => import("./c");\n',
      "codegen/c.ts": 'import type { A } from "./a";\nexport type C = A;\n',
    });
    expect(checkArchitecture(root).problems).toEqual([
      "import circle of 3 files: codegen/a.ts -> codegen/b.ts -> codegen/c.ts",
    ]);
  });

  it("inside diff/, the steps import one way: a later step may use an earlier one, not the reverse", () => {
    const root = tree({
      "diff/types.ts": "export type T = number;\n",
      "diff/judge/severity.ts": 'import type { T } from "../types";\nexport const s: T = 1;\n',
      "diff/compare/compare-x.ts": 'import { s } from "../judge/severity";\nexport const c = s;\n',
      "diff/judge/back.ts": 'import { c } from "../compare/compare-x";\nexport const b = c;\n',
      "diff/index.ts": 'export { c } from "./compare/compare-x";\nexport { b } from "./judge/back";\n',
      "diff/extra/new.ts": 'import { s } from "../judge/severity";\nexport const n = s;\n',
    });
    // sorted: the order files are listed in is the file system's
    expect([...checkArchitecture(root).problems].sort()).toEqual([
      "diff/extra/new.ts: diff/extra/ is not in its part's LAYERS order (../judge/severity); see docs/ARCHITECTURE.md",
      "diff/judge/back.ts: diff/judge/ may not import diff/compare/, a later step (../compare/compare-x); see docs/ARCHITECTURE.md",
    ]);
  });

  it("does not take an import-shaped string or comment for an import", () => {
    const root = tree({
      "runtime/r.ts": "export const r = 1;\n",
      "kernel/k.ts":
        '// import { r } from "../runtime/r";\nexport const text = \'import { r } from "../runtime/r"\';\n',
    });
    expect(checkArchitecture(root).problems).toEqual([]);
  });

  it("exits 1 with one line per problem from the command line", () => {
    const root = tree({
      "runtime/r.ts": "export const r = 1;\n",
      "common/c.ts": 'export { r } from "../runtime/r";\n',
    });
    let status = 0;
    let stderr = "";
    try {
      execFileSync(process.execPath, [join(repoRoot, "scripts/check-architecture.js"), root], { stdio: "pipe" });
    } catch (e) {
      status = (e as { status: number }).status;
      stderr = String((e as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(
      "architecture: common/c.ts: common/ may not import runtime/ (../runtime/r); see docs/ARCHITECTURE.md",
    );
  });
});
