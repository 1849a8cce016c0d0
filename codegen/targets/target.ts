/** A target turns the model into files. Adding an output means adding one file in this folder. */
import type { ContractModel } from "../model";

export interface GeneratedFile {
  /** Relative to the output folder, forward slashes. */
  path: string;
  content: string;
}

export interface Target {
  name: string;
  emit(model: ContractModel): GeneratedFile[] | Promise<GeneratedFile[]>;
}
