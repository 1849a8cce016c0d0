/**
 * The type generator states conditionals in general, not only the envelope's per-effect rule: a
 * scratch contract gives blocks per-type rules in the three usual spellings (allOf of if/then/else,
 * a oneOf discriminated by type, not/required and false properties), and the generated types must
 * accept and refuse exactly what the generated validators accept and refuse.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { scratchProject } from "../support/tmp";
import { typeCheck } from "../support/tsc";
import { readContractDir } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import { createContractAjv } from "../../codegen/support/contract-ajv";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });
const isType = (...values: string[]) =>
  values.length === 1
    ? { properties: { type: { const: values[0] } }, required: ["type"] }
    : { properties: { type: { enum: values } } };

/** ContentBlockInput: if/then/else rules in allOf. ContentBlock: a oneOf discriminated by type. */
function blockRules(schema: { $defs: Record<string, Record<string, unknown>> }): void {
  const input = schema.$defs.ContentBlockInput!;
  input.allOf = [
    { if: isType("heading"), then: { required: ["level"] }, else: { not: { required: ["level"] } } },
    { if: isType("to_do"), else: { properties: { checked: false } } },
    { if: isType("code"), then: {}, else: { not: { anyOf: [{ required: ["language"] }] } } },
    { if: isType("divider"), then: { not: { required: ["id"] } } },
    { if: isType("divider"), then: { properties: { text: { const: "" } } } },
    { if: { required: ["checked"] }, then: { required: ["text"] }, else: true },
  ];
  const common = { id: ref("BlockId"), text: ref("BlockText") };
  schema.$defs.ContentBlock = {
    description: "A block as the page holds it.",
    oneOf: [
      {
        type: "object",
        required: ["id", "type", "text"],
        additionalProperties: false,
        properties: { ...common, type: { const: "heading" }, level: { type: "integer", minimum: 1, maximum: 3 } },
      },
      {
        type: "object",
        required: ["id", "type", "text"],
        additionalProperties: false,
        properties: { ...common, type: { enum: ["paragraph", "quote"] } },
      },
    ],
  };
}

const corpus = `import type { ContentBlock, ContentBlockInput } from "./generated/types";

export const validInput: ContentBlockInput[] = [
  { type: "heading", text: "H", level: 2 },
  { type: "paragraph", text: "p" },
  { type: "to_do", text: "t", checked: true },
  { type: "code", text: "x", language: "ts" },
  { type: "divider", text: "" },
];
export const invalidInput: ContentBlockInput[] = [
  // @ts-expect-error a heading needs its level
  { type: "heading", text: "H" },
  // @ts-expect-error only a heading has a level
  { type: "paragraph", text: "p", level: 1 },
  // @ts-expect-error only a to_do has checked
  { type: "heading", text: "H", level: 1, checked: false },
  // @ts-expect-error only code has a language
  { type: "quote", text: "q", language: "ts" },
  // @ts-expect-error a divider has no text
  { type: "divider", text: "x" },
  // @ts-expect-error a divider has no id of its own
  { type: "divider", text: "", id: "d1" },
];
export const validBlock: ContentBlock[] = [
  { id: "b1", type: "heading", text: "H", level: 1 },
  { id: "b2", type: "quote", text: "q" },
  { id: "b3", type: "heading", text: "H" },
];
export const invalidBlock: ContentBlock[] = [
  // @ts-expect-error a level is a number
  { id: "b1", type: "heading", text: "H", level: "1" },
  // @ts-expect-error only a heading has a level
  { id: "b2", type: "paragraph", text: "p", level: 2 },
  // @ts-expect-error no such type in this contract
  { id: "b3", type: "divider", text: "" },
];
`;

describe("per-block-type rules in a scratch contract", () => {
  const project = scratchProject();
  const file = join(project.contract, "model", "block.schema.json");
  const schema = JSON.parse(readFileSync(file, "utf8"));
  blockRules(schema);
  writeFileSync(file, JSON.stringify(schema, null, 2));

  it("generates", () => {
    const run = runCli(["generate", "--contract", project.contract, "--out", project.generated], { cwd: project.root });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("tsc accepts the valid blocks and refuses every invalid one", () => {
    writeFileSync(join(project.root, "blocks.ts"), corpus);
    const result = typeCheck(project.root, { skipLibCheck: true }, ["blocks.ts"]);
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("the validators agree on every value", () => {
    const model = buildModel(readContractDir(project.contract));
    const ajv = createContractAjv();
    for (const f of [...model.schemaFiles, ...model.composedFiles]) ajv.addSchema(f.json);
    const check = (typeName: string) => (value: unknown) =>
      ajv.getSchema(model.schemas.find((s) => s.typeName === typeName)!.ref)!(value) as boolean;
    // the same values as the corpus above, read from its text so the two cannot drift apart
    const lists: Record<string, unknown[]> = Object.fromEntries(
      [...corpus.matchAll(/export const (\w+): \w+\[\] = (\[[\s\S]*?\n\]);/g)].map(([, name, body]) => [
        name,
        Function(`return ${body!.replace(/\/\/.*$/gm, "")}`)() as unknown[],
      ]),
    );
    expect(Object.keys(lists).sort()).toEqual(["invalidBlock", "invalidInput", "validBlock", "validInput"]);
    expect(lists.validInput!.filter((v) => !check("ContentBlockInput")(v))).toEqual([]);
    expect(lists.invalidInput!.filter((v) => check("ContentBlockInput")(v))).toEqual([]);
    expect(lists.validBlock!.filter((v) => !check("ContentBlock")(v))).toEqual([]);
    expect(lists.invalidBlock!.filter((v) => check("ContentBlock")(v))).toEqual([]);
  });
});
