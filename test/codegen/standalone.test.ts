/**
 * standaloneModule builds ajv's standalone code itself, in linear time (ajv's standaloneCode copies
 * its output so far for every value it adds). The text must stay ajv's, character for character:
 * these tests compare the two on the real contract's validator schemas and on recursive schemas
 * (ajv's "root" and "wrapper" values, and functions that refer to themselves).
 */
import standaloneCode from "ajv/dist/standalone";
import { createContractAjv } from "../../codegen/support/contract-ajv";
import { linearStandaloneCode } from "../../codegen/support/standalone";
import { prepareForAjv } from "../../codegen/support/ajv-compat";
import { validatorSchemas } from "../../codegen/targets/validators";
import { contractModel } from "../support/contract";

function sourceAjv(schemas: readonly object[]) {
  const ajv = createContractAjv({ source: true, strict: false });
  for (const schema of schemas) {
    const id = (schema as { $id: string }).$id;
    const ready = prepareForAjv(schema, id);
    for (const resource of ready.resources) ajv.addSchema(resource);
    ajv.addSchema(ready.root as object);
  }
  return ajv;
}

describe("linearStandaloneCode", () => {
  it("emits ajv's standaloneCode text for every validator of the contract", () => {
    const schemas = validatorSchemas(contractModel());
    const ajv = sourceAjv(schemas);
    const refs = Object.fromEntries(schemas.map((s, i) => [`impl${i}`, s.$id as string]));
    const ours = linearStandaloneCode(ajv, refs);
    expect(ours.length).toBeGreaterThan(10_000);
    expect(ours).toBe(standaloneCode(ajv, refs));
  });

  it("emits ajv's text for self- and mutually recursive schemas, each function once", () => {
    const schemas = [
      {
        $id: "urn:t:Tree",
        type: "object",
        properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "urn:t:Tree" } } },
      },
      { $id: "urn:t:A", type: "object", properties: { b: { $ref: "urn:t:B" }, n: { type: "integer" } } },
      { $id: "urn:t:B", type: "object", properties: { a: { $ref: "urn:t:A" }, s: { type: "string" } } },
      {
        $id: "urn:t:Local",
        $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
        $ref: "#/$defs/node",
      },
    ];
    const ajv = sourceAjv(schemas);
    const refs = { tree: "urn:t:Tree", a: "urn:t:A", b: "urn:t:B", local: "urn:t:Local" };
    const ours = linearStandaloneCode(ajv, refs);
    expect(ours).toBe(standaloneCode(ajv, refs));
    for (const name of new Set(ours.match(/function validate\d+\(/g))) {
      expect(ours.split(name).length).toBe(2);
    }
  });

  it("refuses an export name that is not an identifier, as ajv does", () => {
    const ajv = sourceAjv([{ $id: "urn:t:S", type: "string" }]);
    expect(() => linearStandaloneCode(ajv, { "not-a-name": "urn:t:S" })).toThrow(/invalid export name/);
    expect(() => linearStandaloneCode(ajv, { s: "urn:t:Missing" })).toThrow(/no schema with id urn:t:Missing/);
  });
});

describe("createContractAjv({ source: true })", () => {
  it("compiles for printing only: its validate functions throw instead of answering", () => {
    const ajv = sourceAjv([{ $id: "urn:t:S", type: "string" }]);
    const validate = ajv.getSchema("urn:t:S")!;
    expect(validate.source?.validateCode).toContain("must be string");
    expect(() => validate("x")).toThrow(/emits standalone code/);
  });

  it("without source, validates in memory", () => {
    const ajv = createContractAjv();
    ajv.addSchema({ $id: "urn:t:S", type: "string" });
    expect(ajv.getSchema("urn:t:S")!("x")).toBe(true);
    expect(ajv.getSchema("urn:t:S")!(1)).toBe(false);
  });
});
