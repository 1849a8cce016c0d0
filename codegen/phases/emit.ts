/** Phase 4, emit: run every target and gather their files, sorted, checking no two write one path. */
import type { ContractModel } from "../model";
import type { GeneratedFile, Target } from "../targets/target";
import { byPath } from "../../common/sort";
import { typesTarget } from "../targets/types";
import { validatorsTarget } from "../targets/validators";
import { registryTarget } from "../targets/registry";
import { kernelClientTarget } from "../targets/kernel-client";
import { indexTarget } from "../targets/index-module";
import { manifestTarget } from "../targets/manifest";
import { docsTarget } from "../targets/docs";
import { hermesPluginTarget } from "../targets/hermes-plugin";
import { mcpTarget } from "../targets/mcp";
import { providersTarget } from "../targets/providers";
import { raiseTarget } from "../targets/raise";

export const TARGETS: readonly Target[] = [
  typesTarget,
  validatorsTarget,
  registryTarget,
  kernelClientTarget,
  indexTarget,
  manifestTarget,
  docsTarget,
  hermesPluginTarget,
  mcpTarget,
  providersTarget,
  raiseTarget,
];

export async function emitAll(model: ContractModel, targets: readonly Target[] = TARGETS): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  const owner = new Map<string, string>();
  for (const target of targets) {
    for (const file of await target.emit(model)) {
      const previous = owner.get(file.path);
      if (previous) throw new Error(`targets ${previous} and ${target.name} both write ${file.path}`);
      owner.set(file.path, target.name);
      files.push(file);
    }
  }
  return files.sort(byPath);
}
