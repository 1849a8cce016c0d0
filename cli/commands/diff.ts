import { relative, resolve } from "node:path";
import { readContractDir } from "../../codegen/phases/load";
import { diffContracts } from "../../codegen/diff";
import { DiffInputError, buildSide, newestRelease, readBase } from "../../codegen/diff/load-base";
import { formatHuman, formatJson } from "../../codegen/diff/report";
import { CliExit } from "../exit";

export interface DiffOptions {
  contract: string;
  /** A folder holding a contract, or a git ref; default: the newest folder in releases. */
  base?: string;
  releases: string;
  format: string;
}

/** Exit codes: 0 no breaking change (or a new major version), 1 breaking changes need a new major, 2 cannot compare. */
export async function runDiff(opts: DiffOptions): Promise<void> {
  if (opts.format !== "human" && opts.format !== "json") {
    console.error(`--format must be human or json, not "${opts.format}"`);
    throw new CliExit(2);
  }
  const contractDir = resolve(opts.contract);
  const headLabel = relative(process.cwd(), contractDir) || ".";
  try {
    const baseSpec = opts.base ?? defaultBase(opts.releases);
    const head = buildSide({ label: headLabel, sources: readContractDir(contractDir) }, "head");
    const baseSources = readBase(baseSpec, contractDir);
    const base = buildSide(baseSources, "base");
    const report = diffContracts(base, head);
    const labels = { base: baseSources.label, head: headLabel };
    process.stdout.write(opts.format === "json" ? formatJson(report, labels) : formatHuman(report, labels));
    if (!report.verdict.ok) throw new CliExit(1);
  } catch (e) {
    if (e instanceof DiffInputError) {
      console.error(e.message);
      throw new CliExit(2);
    }
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      console.error(`cannot read the contract: ${(e as Error).message}`);
      throw new CliExit(2);
    }
    throw e;
  }
}

function defaultBase(releases: string): string {
  const newest = newestRelease(releases);
  if (newest === null) throw new DiffInputError(`no released contract in ${releases}/ to compare with: pass --base <git ref | folder>, or cut a release (scripts/cut-release.sh)`);
  return relative(process.cwd(), newest) || newest;
}
