import { writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { readContractDir, type SourceFile } from "../../codegen/phases/load";
import { diffContracts } from "../../codegen/diff";
import { DiffInputError, buildSide, newestRelease, readBase } from "../../codegen/diff/load-base";
import { FORMATS, formatChangelog, formatJunit, formatReport, type Format } from "../../codegen/diff/report";
import { IgnoreFileError, applyIgnores, readIgnoreFile } from "../../codegen/diff/ignore";
import { locateChanges } from "../../codegen/diff/locate";
import { verdictFor } from "../../codegen/diff/version";
import type { DiffReport } from "../../codegen/diff/types";
import type { Level } from "../../codegen/diff/rules";
import { CliExit } from "../exit";

export interface DiffOptions {
  contract: string;
  /** A folder holding a contract, or a git ref; default: the newest folder in releases. */
  base?: string;
  releases: string;
  format: string;
  /** breaking (default): exit 1 on breaking changes without a new major; warning: also on warnings. */
  failOn?: string;
  /** The ignore file; default: <releases>/diff-ignore.json (missing: no entries). */
  ignore?: string;
  /** Print a changelog section instead of the report (true), or write it to this file. */
  changelog?: boolean | string;
  /** YYYY-MM-DD for the ignore file's expiry dates (tests); default: today (UTC). */
  today?: string;
}

/**
 * Exit codes: 0 no breaking change (or a new major version); 1 breaking changes need a new major,
 * or warnings with --fail-on warning, or an expired ignore entry; 2 cannot compare (bad input); 3 a
 * contract cannot be read.
 */
export async function runDiff(opts: DiffOptions): Promise<void> {
  if (!(FORMATS as readonly string[]).includes(opts.format)) {
    console.error(`--format must be one of ${FORMATS.join(", ")}, not "${opts.format}"`);
    throw new CliExit(2);
  }
  const failOn = opts.failOn ?? "breaking";
  if (failOn !== "breaking" && failOn !== "warning") {
    console.error(`--fail-on must be breaking or warning, not "${failOn}"`);
    throw new CliExit(2);
  }
  const contractDir = resolve(opts.contract);
  const headLabel = relative(process.cwd(), contractDir) || ".";
  try {
    const baseSpec = opts.base ?? defaultBase(opts.releases);
    const headSources = { label: headLabel, sources: readContractDir(contractDir) };
    const head = buildSide(headSources, "head");
    const baseSources = readBase(baseSpec, contractDir);
    // The usual CI run compares a contract with an unchanged release: the same files build the same model once.
    const base = sameSources(baseSources.sources, headSources.sources) ? head : buildSide(baseSources, "base");
    const ignorePath = opts.ignore ?? join(opts.releases, "diff-ignore.json");
    const entries = readIgnoreFile(ignorePath);
    const raw = diffContracts(base, head);
    const ignored = applyIgnores(
      locateChanges(raw.changes, headSources.sources, baseSources.sources),
      entries,
      opts.today ?? new Date().toISOString().slice(0, 10),
    );
    const report = recount(raw, ignored.changes);
    const labels = { base: baseSources.label, head: headLabel };
    if (opts.changelog) {
      const text = formatChangelog(report);
      if (typeof opts.changelog === "string") writeFileSync(opts.changelog, text);
      else process.stdout.write(text);
    } else
      process.stdout.write(
        opts.format === "junit"
          ? formatJunit(report, labels, failOn)
          : formatReport(opts.format as Format, report, labels),
      );
    for (const e of ignored.unused)
      console.error(`${ignorePath}: entry ${e.rule} ${e.tool} ${e.pointer} matches no change (stale: remove it)`);
    for (const e of ignored.expired)
      console.error(
        `${ignorePath}: entry ${e.rule} ${e.tool} ${e.pointer} expired on ${e.expires} (${e.reason}): renew it with a reason, or fix the change`,
      );
    if (ignored.expired.length > 0) throw new CliExit(1);
    if (!report.verdict.ok) throw new CliExit(1);
    if (failOn === "warning" && report.counts.warning > 0) {
      console.error(`--fail-on warning: ${report.counts.warning} warning(s)`);
      throw new CliExit(1);
    }
  } catch (e) {
    if (e instanceof DiffInputError || e instanceof IgnoreFileError) {
      console.error(e.message);
      throw new CliExit(2);
    }
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      console.error(`cannot read the contract: ${(e as Error).message}`);
      throw new CliExit(3); // a missing file is the environment's (cli/exit.ts)
    }
    throw e;
  }
}

function sameSources(a: readonly SourceFile[], b: readonly SourceFile[]): boolean {
  if (a.length !== b.length) return false;
  const texts = new Map(b.map((f) => [f.path, f.text]));
  return a.every((f) => texts.get(f.path) === f.text);
}

/** Counts and verdict without the ignored changes. */
function recount(report: DiffReport, changes: DiffReport["changes"]): DiffReport {
  const counts: Record<Level, number> = { breaking: 0, warning: 0, safe: 0 };
  for (const c of changes) if (!c.ignored) counts[c.level] += 1;
  return { ...report, changes, counts, verdict: verdictFor(report.base.version, report.head.version, counts) };
}

function defaultBase(releases: string): string {
  const newest = newestRelease(releases);
  if (newest === null)
    throw new DiffInputError(
      `no released contract in ${releases}/ to compare with: pass --base <git ref | folder>, or cut a release (copy the contract folder to ${releases}/<its version>)`,
    );
  return relative(process.cwd(), newest) || newest;
}
