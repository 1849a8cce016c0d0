/**
 * Phase 4, emit: run the selected targets, each into its output folder, and gather their files,
 * sorted, checking that no two targets write one path of one folder. Which targets run, where and
 * with which options is a plan (codegen/config.ts builds it from mnote-tools.config.json); without
 * a config every built-in target runs into one folder, which is today's generated/.
 */
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
import { packageTarget } from "../targets/package";

/** A built-in target with what its files import from other targets' files. */
function declare(target: Target, needs: readonly string[]): Target {
  return { ...target, needs: [...(target.needs ?? []), ...needs.filter((n) => !target.needs?.includes(n))] };
}

/** Every built-in target, in the order they run by default. */
export const TARGETS: readonly Target[] = [
  declare(typesTarget, []),
  declare(validatorsTarget, ["types"]),
  declare(registryTarget, ["types", "validators"]),
  declare(kernelClientTarget, ["types", "validators", "registry"]),
  declare(indexTarget, ["types", "validators", "registry"]),
  declare(manifestTarget, []),
  declare(docsTarget, []),
  declare(hermesPluginTarget, ["raise"]),
  declare(mcpTarget, ["registry"]),
  declare(providersTarget, ["registry"]),
  declare(raiseTarget, ["registry"]),
  packageTarget,
];

/** One target of a run: where its files go and its options (defaults already filled in). */
export interface PlannedTarget {
  target: Target;
  /** The output folder, as the caller names it (the CLI passes absolute paths). */
  out: string;
  options: Record<string, unknown>;
}

/** The files of one output folder, sorted by path. */
export interface OutputFolder {
  out: string;
  files: GeneratedFile[];
}

/** Runs a plan: every target into its folder; folders in the order they first appear in the plan. */
export async function emitPlan(model: ContractModel, plan: readonly PlannedTarget[]): Promise<OutputFolder[]> {
  const names = plan.map((p) => p.target.name);
  const folders = new Map<string, { files: GeneratedFile[]; owner: Map<string, string> }>();
  for (const { target, out, options } of plan) {
    let folder = folders.get(out);
    if (!folder) folders.set(out, (folder = { files: [], owner: new Map() }));
    for (const file of await target.emit(model, { options, targets: names })) {
      const previous = folder.owner.get(file.path);
      if (previous) throw new Error(`targets ${previous} and ${target.name} both write ${file.path}`);
      folder.owner.set(file.path, target.name);
      folder.files.push(file);
    }
  }
  return [...folders].map(([out, { files }]) => ({ out, files: files.sort(byPath) }));
}

/** Runs targets with no options into one folder and returns its files (the default run when targets is left out). */
export async function emitAll(model: ContractModel, targets: readonly Target[] = TARGETS): Promise<GeneratedFile[]> {
  const folders = await emitPlan(
    model,
    targets.map((target) => ({ target, out: "", options: {} })),
  );
  return folders[0]?.files ?? [];
}
