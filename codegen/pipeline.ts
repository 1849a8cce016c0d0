/**
 * The generator as a pipeline of named phases: load -> validate -> normalize -> validate model ->
 * emit (the selected targets, each into its folder) -> write or check. This file only wires them;
 * it is the pure API behind the CLI: texts and a plan in, files out, no I/O.
 */
import { parseContract, type SourceFile } from "./phases/load";
import { validateFiles, validateModel } from "./phases/validate";
import { normalize } from "./phases/normalize";
import { emitPlan, TARGETS, type OutputFolder, type PlannedTarget } from "./phases/emit";
import type { ContractModel } from "./model";
import type { GeneratedFile } from "./targets/target";

export interface GenerateResult {
  model: ContractModel;
  /** Every output folder of the plan with its files. */
  outputs: OutputFolder[];
  /** All files of all folders (for a plan with one folder, that folder's files). */
  files: GeneratedFile[];
}

export interface BuildOptions {
  /** false: skip checking the x-mnote-examples against their schemas (diff's base side; default true). */
  examples?: boolean;
}

/** Loads, validates and normalizes the contract's files into the model every target reads. */
export function buildModel(sources: readonly SourceFile[], options: BuildOptions = {}): ContractModel {
  const parsed = parseContract(sources);
  validateFiles(parsed);
  const model = normalize(parsed);
  validateModel(model, parsed, options.examples ?? true);
  return model;
}

/** The plan when nothing is configured: every built-in target, no options, into one folder named `out`. */
export function defaultPlan(out = "generated"): PlannedTarget[] {
  return TARGETS.map((target) => ({ target, out, options: {} }));
}

/** Builds the model and runs the plan's targets. */
export async function generate(
  sources: readonly SourceFile[],
  plan: readonly PlannedTarget[] = defaultPlan(),
): Promise<GenerateResult> {
  const model = buildModel(sources);
  const outputs = await emitPlan(model, plan);
  return { model, outputs, files: outputs.flatMap((o) => o.files) };
}
