/**
 * A target turns the model into files: one per file in this folder, or a module named in
 * mnote-tools.config.json (see docs/GENERATOR-CONFIG.md). A target is plain data plus one pure
 * function, so an outside target needs nothing from this repository at run time.
 */
import type { ContractModel, JsonSchema } from "../model";

export interface GeneratedFile {
  /** Relative to the output folder, forward slashes. */
  path: string;
  content: string;
}

/** What a target is told besides the model: its own options and which targets run beside it. */
export interface TargetContext<Options = Record<string, unknown>> {
  /** The target's options from the config, defaults filled in from its options schema. */
  options: Options;
  /** The names of every target of this run (a target may adapt to what is generated beside it). */
  targets: readonly string[];
}

export interface Target<Options = Record<string, unknown>> {
  /** Unique in a run; what the config names it by. */
  name: string;
  /** Targets whose files this one's files need (imports), in the same output folder: the config must select them too. */
  needs?: readonly string[];
  /** A JSON Schema (an object schema) for the target's options; without it the target takes none. */
  options?: JsonSchema;
  emit(model: ContractModel, context: TargetContext<Options>): GeneratedFile[] | Promise<GeneratedFile[]>;
}
