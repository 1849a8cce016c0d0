/**
 * Reads the base side of a diff: a folder holding a contract, or the contract/ folder as a git ref
 * has it (read with git ls-tree and git show: no checkout, no network). Both become SourceFile[]
 * and go through buildModel, so a base is validated exactly like the working contract.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { execFileSync } from "node:child_process";
import { parseContract, readContractDir, type SourceFile } from "../../codegen/phases/load";
import { validateFiles, validateModel } from "../../codegen/phases/validate";
import { normalize } from "../../codegen/phases/normalize";
import { ContractError } from "../../codegen/contract-error";
import type { ContractModel } from "../../codegen/model";
import { compareVersions, parseVersion } from "./version";

/** Anything that keeps a diff from running: the CLI prints the message and exits 2. */
export class DiffInputError extends Error {
  override readonly name = "DiffInputError";
}

export interface ContractSources {
  /** What to call this side in messages: a folder path or "git:<ref>". */
  label: string;
  sources: SourceFile[];
}

/** A folder wins over a git ref of the same name. */
export function readBase(spec: string, contractDir: string): ContractSources {
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    if (!existsSync(join(spec, "contract.json")))
      throw new DiffInputError(`${spec} is a folder but has no contract.json at its root`);
    return { label: spec, sources: readContractDir(spec) };
  }
  return { label: `git:${spec}`, sources: readContractAtRef(spec, contractDir) };
}

export function readContractAtRef(ref: string, contractDir: string): SourceFile[] {
  // A ref is passed to git as an argument; one that looks like an option must not become one.
  if (ref === "" || ref.startsWith("-")) throw new DiffInputError(`not a folder and not a git ref: "${ref}"`);
  const root = git(
    ["rev-parse", "--show-toplevel"],
    contractDir,
    `${contractDir} is not inside a git repository, so "${ref}" cannot be read as a git ref`,
  ).trim();
  const prefix = relative(realpathSync(root), realpathSync(contractDir)).split(sep).join("/");
  if (prefix.startsWith("..")) throw new DiffInputError(`${contractDir} is outside the git repository ${root}`);
  const commit = git(
    ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`],
    root,
    `not a folder and not a git ref: "${ref}"`,
  ).trim();
  const listing = git(
    ["ls-tree", "-r", "-z", "--name-only", commit, "--", prefix === "" ? "." : prefix],
    root,
    `cannot list ${prefix} at ${ref}`,
  );
  const paths = listing.split("\0").filter((p) => p.endsWith(".json"));
  if (paths.length === 0) throw new DiffInputError(`${prefix || "the repository root"} holds no contract at ${ref}`);
  return paths.map((path) => ({
    path: prefix === "" ? path : path.slice(prefix.length + 1),
    text: git(["show", `${commit}:${path}`], root, `cannot read ${path} at ${ref}`),
  }));
}

/** The newest release folder (semver order) under releasesDir, or null when there is none. */
export function newestRelease(releasesDir: string): string | null {
  if (!existsSync(releasesDir)) return null;
  const versions = readdirSync(releasesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ name: e.name, version: parseVersion(e.name) }))
    .filter((v): v is { name: string; version: NonNullable<typeof v.version> } => v.version !== null)
    .sort((a, b) => compareVersions(a.version, b.version));
  const newest = versions[versions.length - 1];
  return newest ? join(releasesDir, newest.name) : null;
}

/**
 * buildModel, with a message that says which side was invalid. Examples (x-mnote-examples) are
 * not checked against their schemas here, on either side: the diff never compares examples, the
 * check compiles every schema (a third of the diff's time), and `generate` / `generate --check`
 * (which CI runs before the diff) checks the head's examples. Everything else is validated as
 * `generate` validates it, so a side that does not validate is still an error (exit 2).
 */
export function buildSide(side: ContractSources, role: "base" | "head"): ContractModel {
  try {
    // buildModel's phases, without importing pipeline.ts: that loads every target (handlebars,
    // json-schema-to-typescript), which the diff never uses and which costs a tenth of its time.
    const parsed = parseContract(side.sources);
    validateFiles(parsed);
    const model = normalize(parsed);
    validateModel(model, parsed, false);
    return model;
  } catch (e) {
    if (e instanceof ContractError)
      throw new DiffInputError(`the ${role} contract (${side.label}) does not validate: ${e.message}`);
    throw e;
  }
}

function git(args: string[], cwd: string, failure: string): string {
  try {
    return execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DiffInputError(code === "ENOENT" ? `git is not installed; ${failure}` : failure);
  }
}
