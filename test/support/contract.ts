import { readContractDir } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import { createContractAjv } from "../../codegen/support/contract-ajv";
import type { ContractModel } from "../../codegen/model";
import { contractDir } from "./paths";
import * as generated from "../../generated/validators";

let cached: ContractModel | undefined;

/** The real contract's model, built in process (json-schema-to-typescript is not involved). */
export function contractModel(): ContractModel {
  cached ??= buildModel(readContractDir(contractDir));
  return cached;
}

export type Check = (value: unknown) => boolean;

/** The two builds every validator test runs against: ajv over the contract files, and the generated code. */
export function validatorBuilds(): Array<[string, (typeName: string) => Check]> {
  const model = contractModel();
  const ajv = createContractAjv();
  for (const f of [...model.schemaFiles, ...model.composedFiles]) ajv.addSchema(f.json);
  const inMemory = (typeName: string): Check => {
    const named = model.schemas.find((s) => s.typeName === typeName);
    if (!named) throw new Error(`no type ${typeName}`);
    const fn = ajv.getSchema(named.ref)!;
    return (v) => fn(v) as boolean;
  };
  const standalone = (typeName: string): Check => {
    const fn = (generated as unknown as Record<string, Check>)[`validate${typeName}`];
    if (!fn) throw new Error(`no generated validator for ${typeName}`);
    return (v) => fn(v);
  };
  return [
    ["in-memory (ajv over contract/)", inMemory],
    ["standalone (generated/validators)", standalone],
  ];
}
