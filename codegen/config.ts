/**
 * mnote-tools.config.json: which targets `generate` runs, into which folders, with which options.
 * Reading the file and loading outside target modules is I/O; what it gives is a plain plan that
 * the pure pipeline runs (phases/emit.ts). The format is codegen/config.schema.json; the decisions
 * are in docs/GENERATOR-CONFIG.md.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import configSchema from "./config.schema.json";
import { TARGETS, type PlannedTarget } from "./phases/emit";
import type { Target } from "./targets/target";
import { ConfigError } from "./config-error";
import { checkOutputFolders } from "./output-folders";

export { ConfigError };

export const CONFIG_FILE = "mnote-tools.config.json";

/** A target in the config: a built-in one by name, or a module from outside the repository. */
export type TargetEntry = string | { name?: string; module?: string; out?: string; options?: Record<string, unknown> };

export interface GeneratorConfig {
  contract?: string;
  out?: string;
  targets?: TargetEntry[];
}

/** What a run does: the contract folder and the targets with absolute output folders. */
export interface GenerationPlan {
  contractDir: string;
  targets: PlannedTarget[];
  /** Every output folder of the plan, absolute, in order of first use. */
  outputs: string[];
}

/** Reads and checks a config file; an absent default file is an empty config (today's behaviour). */
export function readConfig(file: string, required: boolean): GeneratorConfig {
  if (!existsSync(file)) {
    if (required) throw new ConfigError(`config file not found: ${file}`);
    return {};
  }
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ConfigError(`${file}: not JSON: ${(e as Error).message}`);
  }
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(configSchema);
  if (!validate(config)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`);
    throw new ConfigError(
      `${file} does not match the config schema (mnote-tools/config.schema.json):\n  ${[...new Set(problems)].join("\n  ")}`,
    );
  }
  return config as GeneratorConfig;
}

/**
 * Turns a config into a plan. Relative paths in the config are relative to `baseDir` (the config
 * file's folder); `overrides` (the CLI's --contract and --out) are already absolute and win.
 * `baseDir` is also the project: every output folder must lie inside it (output-folders.ts).
 */
export function planGeneration(
  config: GeneratorConfig,
  baseDir: string,
  overrides: { contract?: string; out?: string } = {},
  label = CONFIG_FILE,
): GenerationPlan {
  const contractDir = overrides.contract ?? resolve(baseDir, config.contract ?? "contract");
  const defaultOut = overrides.out ?? resolve(baseDir, config.out ?? "generated");
  const entries = config.targets ?? TARGETS.map((t) => t.name);
  const targets = entries.map((entry): PlannedTarget => {
    const spec = typeof entry === "string" ? { name: entry } : entry;
    const target = spec.module ? loadTargetModule(spec.module, baseDir, label) : builtin(spec.name!, label);
    const out = spec.out ? resolve(baseDir, spec.out) : defaultOut;
    return { target, out, options: checkOptions(target, spec.options, label) };
  });
  checkPlan(targets, label);
  checkOutputFolders(
    [...new Set(targets.map((t) => t.out))],
    { project: resolve(baseDir), contract: contractDir },
    label,
  );
  return { contractDir, targets, outputs: [...new Set(targets.map((t) => t.out))] };
}

/**
 * The plan of a `generate` run: the config file (given, or mnote-tools.config.json in cwd if
 * there) and the CLI's flags. The project is the config file's folder, or the working directory
 * when there is no config file.
 */
export function planFromCli(
  opts: { config?: string; contract?: string; out?: string },
  cwd = process.cwd(),
): GenerationPlan {
  const file = resolve(cwd, opts.config ?? CONFIG_FILE);
  const config = readConfig(file, opts.config !== undefined);
  return planGeneration(
    config,
    dirname(file),
    { contract: opts.contract && resolve(cwd, opts.contract), out: opts.out && resolve(cwd, opts.out) },
    relative(cwd, file) || file,
  );
}

function builtin(name: string, label: string): Target {
  const target = TARGETS.find((t) => t.name === name);
  if (!target)
    throw new ConfigError(
      `${label}: no built-in target "${name}" (built-in: ${TARGETS.map((t) => t.name).join(", ")}; an outside target is {"module": "./path.js"})`,
    );
  return target;
}

/** Loads an outside target: a path relative to the config file, or a package resolved from there. */
function loadTargetModule(spec: string, baseDir: string, label: string): Target {
  let loaded: unknown;
  try {
    const path =
      spec.startsWith(".") || isAbsolute(spec) ? resolve(baseDir, spec) : require.resolve(spec, { paths: [baseDir] });
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module named at run time
    loaded = require(path);
  } catch (e) {
    throw new ConfigError(`${label}: cannot load target module ${spec}: ${(e as Error).message.split("\n")[0]}`);
  }
  const m = loaded as { default?: unknown; target?: unknown };
  const target = (m.default ?? m.target ?? loaded) as Partial<Target>;
  if (!target || typeof target !== "object" || typeof target.name !== "string" || typeof target.emit !== "function") {
    throw new ConfigError(
      `${label}: module ${spec} exports no target (an object with a string "name" and an "emit(model, context)" function, as module.exports, default or target)`,
    );
  }
  if (
    target.needs !== undefined &&
    !(Array.isArray(target.needs) && target.needs.every((n) => typeof n === "string"))
  ) {
    throw new ConfigError(`${label}: target ${target.name} (${spec}): "needs" must be a list of target names`);
  }
  return target as Target;
}

/**
 * The ajv that reads targets' options schemas. A built-in target's options schema is part of this
 * code (and tested), so it is not checked against the 2020-12 meta-schema again: compiling the
 * meta-schema for that was about 3% of generating 200 tools (bench/, codegen). An outside target's
 * options schema is checked.
 */
const optionsAjvs = new Map<boolean, Ajv2020>();
function optionsAjv(builtIn: boolean): Ajv2020 {
  let ajv = optionsAjvs.get(builtIn);
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: true, validateSchema: !builtIn });
    optionsAjvs.set(builtIn, ajv);
  }
  return ajv;
}

/** The options, checked against the target's options schema, with its defaults filled in. */
function checkOptions(
  target: Target,
  given: Record<string, unknown> | undefined,
  label: string,
): Record<string, unknown> {
  const options = structuredClone(given ?? {});
  if (!target.options) {
    if (Object.keys(options).length > 0)
      throw new ConfigError(
        `${label}: target ${target.name} takes no options (given: ${Object.keys(options).join(", ")})`,
      );
    return options;
  }
  let validate;
  try {
    validate = optionsAjv(TARGETS.includes(target)).compile(target.options);
  } catch (e) {
    throw new ConfigError(`target ${target.name} declares an invalid options schema: ${(e as Error).message}`);
  }
  if (!validate(options)) {
    const problems = (validate.errors ?? []).map(
      (e) =>
        `${e.instancePath || "/"} ${e.message ?? ""}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
    );
    throw new ConfigError(`${label}: options of target ${target.name}: ${problems.join("; ")}`);
  }
  return options;
}

/** One target per name; every target a target needs runs too, into the same folder. */
function checkPlan(plan: readonly PlannedTarget[], label: string): void {
  const byName = new Map<string, PlannedTarget>();
  for (const p of plan) {
    if (byName.has(p.target.name)) throw new ConfigError(`${label}: target ${p.target.name} is selected twice`);
    byName.set(p.target.name, p);
  }
  for (const p of plan) {
    for (const need of p.target.needs ?? []) {
      const other = byName.get(need);
      if (!other)
        throw new ConfigError(
          `${label}: target ${p.target.name} needs target ${need}, which is not selected (add "${need}" to targets)`,
        );
      if (other.out !== p.out)
        throw new ConfigError(
          `${label}: target ${p.target.name} needs target ${need} in the same folder (its files import ${need}'s), but they write to different folders`,
        );
    }
  }
}
