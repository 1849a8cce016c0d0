/**
 * The import-direction check that `npm run lint` (and so .ci/run) runs: the real tree holds, and a
 * deliberate back arrow or circle in a scratch tree fails it, so the check cannot pass by itself.
 */
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { repoRoot } from "../support/paths";
import { scratchTree } from "../support/tmp";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkArchitecture, packageProblems, PACKAGES } = require("../../scripts/check-architecture.js") as {
  checkArchitecture(root: string): { problems: string[]; files: number };
  packageProblems(
    packages: Record<string, { folder: string; parts: string[]; uses: string[] }>,
    root?: string,
  ): string[];
  PACKAGES: Record<string, { folder: string; parts: string[]; uses: string[] }>;
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

  it("knows the packages as the top-level parts: a part a package carries may not reach into another package", () => {
    // runtime/ (in @mnote/runtime) importing diff/ (in @mnote/diff and the CLI): a back arrow twice over
    const root = tree({
      "diff/index.ts": "export const d = 1;\n",
      "runtime/r.ts": 'import { d } from "../diff/index";\nexport const r = d;\n',
    });
    expect(checkArchitecture(root).problems).toEqual([
      "runtime/r.ts: runtime/ may not import diff/ (../diff/index); see docs/ARCHITECTURE.md",
    ]);
    // a part the import rows allow, but a package carrying it does not: codegen/ is in @mnote/diff,
    // which does not carry kernel/ (rows widened on purpose for the check)
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const parts = (require("../../scripts/check-architecture.js") as { PARTS: Record<string, string[]> }).PARTS;
    parts.codegen!.push("kernel");
    try {
      const widened = tree({
        "kernel/k.ts": "export const k = 1;\n",
        "codegen/c.ts": 'import { k } from "../kernel/k";\nexport const c = k;\n',
      });
      expect(checkArchitecture(widened).problems).toEqual([
        "codegen/c.ts: codegen/ is in @mnote/diff, which neither carries kernel/ nor depends on a package that does (../kernel/k); see docs/PACKAGES.md",
      ]);
    } finally {
      parts.codegen!.pop();
    }
  });

  it("the packages depend on each other without a circle, and each manifest says what its row says", () => {
    expect(packageProblems(PACKAGES, repoRoot)).toEqual([]);
    expect(
      packageProblems({
        a: { folder: "a", parts: ["a"], uses: ["b"] },
        b: { folder: "b", parts: ["b"], uses: ["a"] },
      }),
    ).toEqual(["package circle: a -> b -> a"]);
    const root = tree({ "runtime/package.json": JSON.stringify({ name: "@mnote/runtime", dependencies: {} }) });
    expect(packageProblems(PACKAGES, root)).toEqual([
      "runtime/package.json: @mnote/runtime depends on [], its row says @mnote/runtime uses [@mnote/contract]",
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
