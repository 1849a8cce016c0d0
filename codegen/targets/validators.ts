/**
 * Precompiled validators: ajv standalone code for every named schema, typed as guards of the
 * generated types, plus the small runtime folder it imports. Nothing is compiled at start-up.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ContractModel, JsonSchema } from "../model";
import { mapSchema } from "../support/schema-walk";
import { absoluteRef } from "../support/refs";
import { isVendorKeyword } from "../vendor-keywords";
import type { GeneratedFile, Target } from "./target";
import { banner } from "../support/banner";
import { createContractAjv } from "../support/contract-ajv";
import { standaloneModule } from "../support/standalone";
import { assetsDir } from "../support/templates";
import { prepareForAjv } from "../support/ajv-compat";


const typeId = (typeName: string) => `urn:mnote:type:${typeName}`;

/**
 * Every named schema as its own document, $refs rewritten to those documents' ids. ajv compiles a
 * $ref target once per root document, so with the contract's files (or one bundle) as roots a
 * shared definition would be compiled, and emitted, once for every schema that uses it.
 */
export function validatorSchemas(model: ContractModel): JsonSchema[] {
  const nameByRef = new Map(model.schemas.map((s) => [s.ref, s.typeName]));
  return model.schemas.map((named) => {
    const baseId = named.ref.slice(0, named.ref.indexOf("#"));
    const schema = mapSchema(named.schema, (node) => {
      const out: JsonSchema = {};
      for (const [k, v] of Object.entries(node)) {
        if (isVendorKeyword(k) || k === "description" || k === "title" || k === "default") continue;
        out[k] = v;
      }
      if (typeof out.$ref === "string") {
        const target = nameByRef.get(absoluteRef(out.$ref, baseId));
        if (!target) throw new Error(`no definition for $ref ${out.$ref} in ${named.typeName}`);
        out.$ref = typeId(target);
      }
      return out;
    }) as JsonSchema;
    return { $schema: "https://json-schema.org/draft/2020-12/schema", $id: typeId(named.typeName), ...schema };
  });
}

export function validatorName(typeName: string): string {
  return `validate${typeName}`;
}

export const validatorsTarget: Target = {
  name: "validators",
  emit(model) {
    const ajv = createContractAjv({ source: true });
    for (const schema of validatorSchemas(model)) {
      const ready = prepareForAjv(schema, schema.$id as string);
      for (const resource of ready.resources) ajv.addSchema(resource);
      ajv.addSchema(ready.root as object);
    }
    const code = standaloneModule(
      ajv,
      model.schemas.map((s) => ({ name: validatorName(s.typeName), ref: typeId(s.typeName), type: s.typeName })),
      { typesModule: "../types", header: banner(model, "ts") },
    );
    return [{ path: "validators/index.ts", content: code }, ...runtimeFiles(model)];
  },
};

export function runtimeFiles(model: ContractModel): GeneratedFile[] {
  const dir = assetsDir("validator-runtime");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .map((f) => ({ path: `validators/runtime/${f}`, content: banner(model, "ts") + readFileSync(join(dir, f), "utf8") }));
}
