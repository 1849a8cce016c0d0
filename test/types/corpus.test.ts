/**
 * Types and validators agree (issue 15, item 2). Each file in test/types/corpus/ lists, for one
 * tool, requests that must type-check and requests that must not (each under a
 * `// @ts-expect-error`). tsc proves the first half: an unused @ts-expect-error is itself an error,
 * so every invalid line really is refused by the compiler. The tool's generated validator proves
 * the second: the same values, valid ones accepted and invalid ones refused.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { typeCheck } from "../support/tsc";
import { tempDir } from "../support/tmp";
import { repoRoot } from "../support/paths";
import { tools } from "../../generated/registry";

const corpusDir = join(repoRoot, "test", "types", "corpus");
const files = readdirSync(corpusDir).filter((f) => f.endsWith(".ts") && f !== "host.ts");

interface Corpus {
  toolName: string;
  valid: unknown[];
  invalid: unknown[];
}

it("has one corpus file per tool", () => {
  expect(files.map((f) => f.replace(/\.ts$/, "")).sort()).toEqual(
    Object.keys(tools)
      .map((n) => n.replace(/^mnote\./, ""))
      .sort(),
  );
});

it("tsc accepts every valid value and refuses every @ts-expect-error line", () => {
  const dir = tempDir("mnote-types-corpus-");
  const result = typeCheck(dir, { skipLibCheck: true }, [join(corpusDir, "*.ts")]);
  expect(result.output).toBe("");
  expect(result.status).toBe(0);
});

describe.each(files)("%s", (file) => {
  const corpus = require(join(corpusDir, file)) as Corpus;
  const tool = tools[corpus.toolName as keyof typeof tools];

  it("marks every invalid value, one per line, and no valid one", () => {
    const source = readFileSync(join(corpusDir, file), "utf8");
    const [validPart, invalidPart] = source.split(/export const invalid/);
    expect(validPart).not.toMatch(/@ts-expect-error/);
    expect((invalidPart!.match(/\/\/ @ts-expect-error/g) ?? []).length).toBe(corpus.invalid.length);
    expect(corpus.valid.length).toBeGreaterThan(0);
  });

  it("the validator accepts exactly the values the types accept", () => {
    const verdicts = (values: unknown[]) => values.map((v) => ({ value: v, ok: tool.validateRequest(v) }));
    expect(verdicts(corpus.valid).filter((v) => !v.ok)).toEqual([]);
    expect(verdicts(corpus.invalid).filter((v) => v.ok)).toEqual([]);
  });
});
