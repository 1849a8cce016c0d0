/**
 * Phase 4, emit: run the selected targets, each into its output folder, and gather their files,
 * sorted. Every file a target gives is checked here, the one place for built-in and outside
 * targets alike: its path stays inside its folder (support/output-path.ts), and no two targets
 * write one path of one folder, nor a file where another writes a folder. Each folder then gets
 * its ownership list (phases/ownership.ts). Which targets run, where and with which options is a
 * plan (codegen/config.ts builds it from mnote-tools.config.json); without a config every
 * built-in target runs into one folder, which is today's generated/.
 */
import type { ContractModel } from "../model";
import type { GeneratedFile, Target } from "../targets/target";
import { byPath } from "../../common/sort";
import { ConfigError } from "../config-error";
import { outputPathProblem } from "../support/output-path";
import { banner } from "../support/banner";
import { ownedListFile } from "./ownership";
import { contentKey, memo, remembering } from "../support/memo";
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
import { frameworksTarget } from "../targets/frameworks";
import { aiSdkTarget } from "../targets/ai-sdk";
import { openAiAgentsTarget } from "../targets/openai-agents";
import { langchainTarget } from "../targets/langchain";

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
  declare(frameworksTarget, ["types", "validators", "registry", "providers"]),
  aiSdkTarget,
  openAiAgentsTarget,
  langchainTarget,
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

/**
 * Runs a plan: every target into its folder; folders in the order they first appear in the plan,
 * each with its files sorted and its ownership list among them. A target that emits a path
 * outside its folder, or one another target emits too, is a ConfigError naming the target(s).
 */
export async function emitPlan(model: ContractModel, plan: readonly PlannedTarget[]): Promise<OutputFolder[]> {
  const names = plan.map((p) => p.target.name);
  const modelKey = remembering() ? contentKey(model) : "";
  const folders = new Map<string, { files: GeneratedFile[]; owner: Map<string, string> }>();
  for (const { target, out, options } of plan) {
    let folder = folders.get(out);
    if (!folder) folders.set(out, (folder = { files: [], owner: new Map() }));
    const where = out === "" ? "" : ` in output folder ${out}`;
    // watch mode: a built-in target whose inputs (the model, its options, the run's targets) did
    // not change is not run again (support/memo.ts); outside targets always run
    const run = () => target.emit(model, { options, targets: names });
    const emitted = TARGETS.includes(target) ? memo(`target ${target.name}`, { modelKey, options, names }, run) : run();
    for (const file of checkedFiles(target.name, await emitted)) {
      const previous = folder.owner.get(file.path);
      if (previous)
        throw new ConfigError(
          previous === target.name
            ? `target ${target.name} writes ${file.path} twice${where}`
            : `targets ${previous} and ${target.name} both write ${file.path}${where}; give one of them another "out"`,
        );
      folder.owner.set(file.path, target.name);
      folder.files.push(file);
    }
  }
  for (const [out, { owner }] of folders) {
    for (const [path, target] of owner) {
      // "a" and "a/b" cannot both be files: the write would fail half way
      for (let cut = path.lastIndexOf("/"); cut > 0; cut = path.lastIndexOf("/", cut - 1)) {
        const other = owner.get(path.slice(0, cut));
        if (other)
          throw new ConfigError(
            `target ${other} writes the file ${path.slice(0, cut)} and target ${target} writes ${path} inside it${out === "" ? "" : ` in output folder ${out}`}; a file cannot also be a folder`,
          );
      }
    }
  }
  const list = banner(model, "py");
  return [...folders].map(([out, { files }]) => ({
    out,
    files: [...files, ownedListFile(list, [...files.map((f) => f.path)])].sort(byPath),
  }));
}

/**
 * What a target emitted, held to the shape of a GeneratedFile and the path rule before anything
 * reads it: an outside target is code from elsewhere, and its output is untrusted.
 */
function checkedFiles(target: string, emitted: unknown): GeneratedFile[] {
  if (!Array.isArray(emitted)) throw new ConfigError(`target ${target} emitted no list of files`);
  return emitted.map((file: unknown, i) => {
    if (typeof file !== "object" || file === null)
      throw new ConfigError(`target ${target}: file ${i} is not an object with "path" and "content"`);
    const { path, content } = file as Record<string, unknown>;
    const problem = outputPathProblem(path);
    if (problem) throw new ConfigError(`target ${target} emits the path ${JSON.stringify(path)}: ${problem}`);
    if (typeof content !== "string")
      throw new ConfigError(`target ${target}: the content of ${String(path)} is not a string`);
    return { path: path as string, content };
  });
}

/** Runs targets with no options into one folder and returns its files (the default run when targets is left out). */
export async function emitAll(model: ContractModel, targets: readonly Target[] = TARGETS): Promise<GeneratedFile[]> {
  const folders = await emitPlan(
    model,
    targets.map((target) => ({ target, out: "", options: {} })),
  );
  return folders[0]?.files ?? [];
}
