/**
 * The size check that `npm run lint` (and so .ci/run) runs: the real tree holds, and a deliberately
 * long function or runtime file in a scratch tree fails it, so the check cannot pass by itself.
 */
import { repoRoot } from "../support/paths";
import { scratchTree } from "../support/tmp";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkSize } = require("../../scripts/check-size.js") as {
  checkSize(root: string): { problems: string[]; files: number };
};

const tree = (files: Record<string, string>): string => scratchTree(files, "size-");

/** A function of exactly `lines` lines (its first and last line included). */
function fn(header: string, lines: number, footer = "}"): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  return [header, ...body, footer].join("\n") + "\n";
}

describe("size", () => {
  it("holds in this repository: no function over 80 lines outside test/, no runtime file over 300", () => {
    const { problems, files } = checkSize(repoRoot);
    expect(problems).toEqual([]);
    expect(files).toBeGreaterThan(100);
  });

  it("refuses an 81-line function and takes an 80-line one, nested arrows and methods included", () => {
    const root = tree({
      "codegen/ok.ts": fn("export function fits() {", 80),
      "codegen/long.ts": fn("export function tooLong() {", 81),
      "cli/arrow.ts": fn("export const handler = async () => {", 81, "};"),
      "bench/method.ts": `export class K {\n${fn("  run() {", 81, "  }")}}\n`,
      "test/long.test.ts": fn("export function testsMayBeLong() {", 200),
      "generated/long.ts": fn("export function generatedMayBeLong() {", 200),
    });
    expect(checkSize(root).problems).toEqual([
      "bench/method.ts:2: run is 81 lines (at most 80): split it by what each part decides",
      "cli/arrow.ts:1: handler is 81 lines (at most 80): split it by what each part decides",
      "codegen/long.ts:1: tooLong is 81 lines (at most 80): split it by what each part decides",
    ]);
  });

  it("refuses a runtime file over 300 lines, whatever its functions", () => {
    const short = Array.from({ length: 301 }, (_, i) => `export const c${i} = ${i};`).join("\n") + "\n";
    const root = tree({ "runtime/big.ts": short, "kernel/big.ts": short });
    expect(checkSize(root).problems).toEqual(["runtime/big.ts: 301 lines (a runtime file holds at most 300)"]);
  });
});
