/**
 * The generator as a pipeline of named phases: load -> validate -> normalize -> validate model ->
 * emit (one target per file in targets/) -> write or check. This file only wires them; it is the
 * pure API behind the CLI: texts in, files out, no I/O.
 */
import { parseContract, type SourceFile } from "./phases/load";
import { validateFiles, validateModel } from "./phases/validate";
import { normalize } from "./phases/normalize";
import { emitAll } from "./phases/emit";
import type { ContractModel } from "./model";
import type { GeneratedFile } from "./targets/target";

export interface GenerateResult {
  model: ContractModel;
  files: GeneratedFile[];
}

export interface BuildOptions {
  /** false: skip checking the x-mnote-examples against their schemas (diff's base side; default true). */
  examples?: boolean;
}

export function buildModel(sources: readonly SourceFile[], options: BuildOptions = {}): ContractModel {
  const parsed = parseContract(sources);
  validateFiles(parsed);
  const model = normalize(parsed);
  validateModel(model, parsed, options.examples ?? true);
  return model;
}

export async function generate(sources: readonly SourceFile[]): Promise<GenerateResult> {
  const model = buildModel(sources);
  return { model, files: await emitAll(model) };
}
