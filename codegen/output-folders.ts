/**
 * Where an output folder may be, decided when the plan is made, before anything is written. The
 * project is the config file's folder, or the working directory when there is no config file
 * (config.ts). Every output folder must be:
 *   - inside the project, and not the project itself;
 *   - outside the contract folder, and not holding it;
 *   - outside any .git folder, and not holding one (a repository of its own);
 *   - outside every other output folder of the run.
 * The rules are applied to real paths (symlinks resolved), so a symlink inside the project cannot
 * lead an output folder out of it. Which files inside a folder generate may touch is the other
 * half (phases/ownership.ts).
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { ConfigError } from "./config-error";

/** The places the rules are about: absolute paths, as the plan names them. */
export interface FolderRules {
  project: string;
  contract: string;
}

/** Throws a ConfigError naming the first output folder that breaks a rule, and the rule. */
export function checkOutputFolders(outs: readonly string[], where: FolderRules, label: string): void {
  const project = realPath(where.project, "the project", label);
  const contract = realPath(where.contract, "the contract folder", label);
  const real = new Map(outs.map((out) => [out, realPath(out, "output folder", label)]));
  for (const out of outs) {
    const path = real.get(out)!;
    const name = `output folder ${out}${path === out ? "" : ` (really ${path})`}`;
    const fail = (rule: string) => {
      throw new ConfigError(`${label}: ${name} ${rule}`);
    };
    if (path === project) fail("holds the project itself; name a folder of its own inside the project");
    if (!inside(path, project))
      fail(
        `is outside the project ${project}; output folders must lie inside it (the config file's folder, or the working directory without a config file)`,
      );
    if (inside(contract, path)) fail("holds the contract; name a folder of its own");
    if (inside(path, contract)) fail(`is inside the contract folder ${contract}; generated files never go there`);
    if (
      relative(project, path)
        .split(sep)
        .some((s) => s.toLowerCase() === ".git")
    )
      fail("is inside a .git folder; generated files never go there");
    if (exists(join(path, ".git"))) fail("holds a .git (a repository of its own); name a folder of its own");
    for (const other of outs) {
      if (other !== out && inside(real.get(other)!, path))
        fail(`holds output folder ${other}; each output folder must be a folder of its own`);
    }
  }
}

/** Whether `child` is `parent` or lies under it. */
function inside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The real path of a folder that may not exist yet: its deepest existing ancestor resolved, plus
 * the rest. A broken symlink on the way, or a file where a folder must be, is refused here rather
 * than met half way through writing.
 */
function realPath(path: string, what: string, label: string): string {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    if (exists(at)) {
      let real: string;
      try {
        real = realpathSync(at);
      } catch {
        throw new ConfigError(`${label}: ${what} ${path} goes through ${at}, a symlink that leads nowhere`);
      }
      if (!statSync(real).isDirectory()) throw new ConfigError(`${label}: ${what} ${path}: ${at} is not a folder`);
      return join(real, ...rest);
    }
    if (dirname(at) === at) return path;
    rest.unshift(basename(at));
  }
}
