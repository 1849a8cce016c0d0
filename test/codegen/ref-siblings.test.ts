/**
 * A $ref's siblings apply together with its target (JSON Schema 2020-12). The model-facing
 * schemas are inlined by RefIndex.inline; these check that inlining never loosens the contract,
 * by validating the same values against the original (ajv resolving the $ref) and the inlined one.
 */
import Ajv2020 from "ajv/dist/2020";
import { RefIndex, conjoin } from "../../codegen/support/refs";
import type { SchemaFile } from "../../codegen/model";

const base = "https://mnote.dev/test/model.schema.json";
const file = {
  id: base,
  json: {
    $id: base,
    $defs: {
      Title: { type: "string", minLength: 1, maxLength: 200, pattern: "^\\S", description: "target" },
      Options: { type: "object", required: ["a"], properties: { a: { type: "integer" }, b: { type: "integer" } } },
    },
  },
} as unknown as SchemaFile;

const cases = [
  {
    name: "a looser limit beside the $ref keeps the target's",
    schema: { $ref: "#/$defs/Title", maxLength: 500, minLength: 0, description: "here" },
    values: ["ok", "", " x", "y".repeat(201), "y".repeat(200)],
  },
  {
    name: "a stricter limit beside the $ref applies",
    schema: { $ref: "#/$defs/Title", maxLength: 3 },
    values: ["abc", "abcd", ""],
  },
  {
    name: "a different pattern beside the $ref applies as well as the target's",
    schema: { $ref: "#/$defs/Title", pattern: "z$" },
    values: ["xyz", "xy", " z", "z"],
  },
  {
    name: "required beside the $ref adds to the target's",
    schema: { $ref: "#/$defs/Options", required: ["b"], minProperties: 1 },
    values: [{ a: 1, b: 2 }, { a: 1 }, { b: 2 }, {}],
  },
];

describe("RefIndex.inline: $ref siblings are a conjunction", () => {
  const index = new RefIndex([file]);
  for (const c of cases) {
    test(c.name, () => {
      const inlined = index.inline(c.schema, base);
      expect(JSON.stringify(inlined)).not.toContain("$ref");
      const ajv = new Ajv2020({ strict: false });
      ajv.addSchema(file.json);
      const original = ajv.compile({
        ...c.schema,
        $id: "https://mnote.dev/test/case.json",
        $ref: `${base}#/$defs/${c.schema.$ref.slice(8)}`,
      });
      const flat = new Ajv2020({ strict: false }).compile(inlined);
      const verdicts = c.values.map((v) => [original(v), flat(v)]);
      expect(verdicts.map(([o]) => o)).toContain(true);
      expect(verdicts.map(([o]) => o)).toContain(false);
      for (const [o, f] of verdicts) expect(f).toBe(o);
    });
  }

  test("the sibling's description replaces the target's; an assertion both state alike stays single", () => {
    expect(conjoin({ type: "string", description: "target" }, { type: "string", description: "here" })).toEqual({
      type: "string",
      description: "here",
    });
  });
});
