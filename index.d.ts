// `import ... from "mnote-tools"`: the contract package (types, validators, registry, kernel client),
// and the types an outside generator target is written against (see docs/GENERATOR-CONFIG.md).
export * from "@mnote/contract";
export type { Target, TargetContext, GeneratedFile } from "./dist/codegen/targets/target";
export type { ContractModel } from "./dist/codegen/model";
