/**
 * The diff command itself, shared by its two front doors (docs/CONTRACT-DIFF.md): `mnote-tools diff`
 * (cli/commands/diff.ts) and `mnote-diff`, the bin of @mnote/diff (diff/bin.ts). It reads both
 * sides, judges, prints the report on stdout and the reasons on stderr, and returns the exit code;
 * an error it does not know (a bug) is thrown to the front door.
 */
import { writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { readContractDir, type SourceFile } from "../codegen/phases/load";
import { diffContracts, failOnWarnings, summarize, type Change, type DiffReport } from "./index";
import { DiffInputError, buildSide, newestRelease, readBase } from "./load/load-base";
import { FORMATS, formatChangelog, formatJunit, formatReport, type Format } from "./report/report";
import { applyIgnores, readIgnoreFile, type IgnoreEntry, type IgnoreOutcome } from "./judge/ignore";
import { locateChanges } from "./report/locate";
import { DiffConfigError, readConfigFile } from "./load/config-files";
import {
  keptAsWireBreak,
  parseCategories,
  readSeverityFile,
  resolveSeverities,
  type SeverityConfig,
} from "./judge/severity";
import { compareWithBaseline, type Baseline } from "./judge/fingerprint";
import type { Category } from "./rules";

/** The exit codes, the CLI's (cli/exit.ts EXIT; a test holds them equal). */
export const DIFF_EXIT = { ok: 0, findings: 1, usage: 2, environment: 3 } as const;

/** Ends the command with a code once it has printed what it had to say (caught in diffCommand). */
class DiffExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

export interface DiffOptions {
  contract: string;
  /** A folder holding a contract, or a git ref; default: the newest folder in releases. */
  base?: string;
  releases: string;
  format: string;
  /** breaking (default): exit 1 on errors without a new major; warning: also on warnings. */
  failOn?: string;
  /** The ignore file; default: <releases>/diff-ignore.json (missing: no entries). */
  ignore?: string;
  /** The severity file; default: <releases>/diff-rules.json (missing: every category, severity by level). */
  rules?: string;
  /** Comma-separated categories to judge (wire, source, model, kernel); replaces the severity file's `use`. */
  category?: string;
  /** A JSON report of an earlier run: changes not in it are marked new. */
  baseline?: string;
  /** Print a changelog section instead of the report (true), or write it to this file. */
  changelog?: boolean | string;
  /** YYYY-MM-DD for the ignore file's expiry dates (tests); default: today (UTC). */
  today?: string;
}

/**
 * Exit codes (the CLI's error policy, cli/exit.ts): 0 no error-severity change (or a new major
 * version); 1 errors need a new major, or warnings with --fail-on warning, or an expired ignore
 * entry; 2 a bad flag, or the contracts cannot be compared (a side does not validate, no base);
 * 3 a bad ignore, severity or baseline file (configuration), or a contract that cannot be read.
 */
export function diffCommand(opts: DiffOptions): number {
  try {
    run(opts);
    return DIFF_EXIT.ok;
  } catch (e) {
    if (e instanceof DiffExit) return e.exitCode;
    throw e;
  }
}

function run(opts: DiffOptions): void {
  const { failOn, categories } = checkFlags(opts);
  const contractDir = resolve(opts.contract);
  const headLabel = relative(process.cwd(), contractDir) || ".";
  try {
    const config = readDiffConfig(opts, categories);
    const outcome = compare(opts, config, contractDir, headLabel, failOn);
    printReport(opts, outcome, failOn);
    warnAbout(outcome, config);
    if (outcome.ignored.expired.length > 0) throw new DiffExit(DIFF_EXIT.findings);
    if (!outcome.report.verdict.ok) {
      // the changelog carries no verdict: the reason for the exit code goes to stderr
      if (opts.changelog) console.error(`FAIL: ${outcome.report.verdict.message}`);
      throw new DiffExit(DIFF_EXIT.findings);
    }
  } catch (e) {
    exitForError(e);
  }
}

type FailOn = "breaking" | "warning";

/** The flags checked before any file is read: a bad --format, --fail-on or --category exits 2. */
function checkFlags(opts: DiffOptions): { failOn: FailOn; categories: Category[] | undefined } {
  if (!(FORMATS as readonly string[]).includes(opts.format)) {
    console.error(`--format must be one of ${FORMATS.join(", ")}, not "${opts.format}"`);
    throw new DiffExit(DIFF_EXIT.usage);
  }
  const failOn = opts.failOn ?? "breaking";
  if (failOn !== "breaking" && failOn !== "warning") {
    console.error(`--fail-on must be breaking or warning, not "${failOn}"`);
    throw new DiffExit(DIFF_EXIT.usage);
  }
  try {
    return { failOn, categories: opts.category === undefined ? undefined : parseCategories(opts.category) };
  } catch (e) {
    console.error((e as Error).message);
    throw new DiffExit(DIFF_EXIT.usage);
  }
}

/** The severity, ignore and baseline files, read and validated before anything acts on them. */
interface DiffConfig {
  ignorePath: string;
  severities: SeverityConfig;
  entries: IgnoreEntry[];
  baseline: Baseline | undefined;
}

function readDiffConfig(opts: DiffOptions, categories: Category[] | undefined): DiffConfig {
  const ignorePath = opts.ignore ?? join(opts.releases, "diff-ignore.json");
  // A file named on the command line must exist (a typo would drop the policy); the defaults may be missing.
  const severities = resolveSeverities(
    readSeverityFile(opts.rules ?? join(opts.releases, "diff-rules.json"), opts.rules !== undefined),
    categories,
  );
  const entries = readIgnoreFile(ignorePath, opts.ignore !== undefined);
  const baseline = opts.baseline === undefined ? undefined : readBaseline(opts.baseline);
  return { ignorePath, severities, entries, baseline };
}

/** The judged changes between base and head, after the ignore file and the baseline. */
interface DiffOutcome {
  changes: Change[];
  ignored: IgnoreOutcome;
  report: DiffReport;
  labels: { base: string; head: string };
}

function compare(
  opts: DiffOptions,
  config: DiffConfig,
  contractDir: string,
  headLabel: string,
  failOn: FailOn,
): DiffOutcome {
  const baseSpec = opts.base ?? defaultBase(opts.releases);
  const headSources = { label: headLabel, sources: readContractDir(contractDir) };
  const head = buildSide(headSources, "head");
  const baseSources = readBase(baseSpec, contractDir);
  // The usual CI run compares a contract with an unchanged release: the same files build the same model once.
  const base = sameSources(baseSources.sources, headSources.sources) ? head : buildSide(baseSources, "base");
  const raw = diffContracts(base, head, { severities: config.severities });
  const ignored = applyIgnores(
    locateChanges(raw.changes, headSources.sources, baseSources.sources),
    config.entries,
    opts.today ?? new Date().toISOString().slice(0, 10),
  );
  let changes = ignored.changes;
  let report = summarize(raw, changes);
  if (config.baseline) {
    const compared = compareWithBaseline(changes, config.baseline);
    changes = compared.changes;
    report = { ...summarize(raw, changes), baseline: compared.summary };
  }
  if (failOn === "warning") report = failOnWarnings(report);
  return { changes, ignored, report, labels: { base: baseSources.label, head: headLabel } };
}

/** The report in the chosen format on stdout, or the changelog section (on stdout or to its file). */
function printReport(opts: DiffOptions, { report, labels }: DiffOutcome, failOn: FailOn): void {
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
}

/** On stderr: wire breaks judged outside the chosen categories, and stale or expired ignore entries. */
function warnAbout({ changes, ignored }: DiffOutcome, { severities, ignorePath }: DiffConfig): void {
  const keptWire = changes.filter((c) => !c.ignored && keptAsWireBreak(c, severities)).length;
  if (keptWire > 0)
    console.error(
      `${keptWire} wire break(s) judged although the categories judged (${severities.categories.join(", ") || "none"}) leave wire out: a wire break breaks deployed callers; to stop judging wire, say except: ["wire"] in the severity file`,
    );
  for (const e of ignored.unused)
    console.error(`${ignorePath}: entry ${e.rule} ${e.tool} ${e.pointer} matches no change (stale: remove it)`);
  for (const e of ignored.expired)
    console.error(
      `${ignorePath}: entry ${e.rule} ${e.tool} ${e.pointer} expired on ${e.expires} (${e.reason}): renew it with a reason, or fix the change`,
    );
}

/** A configuration error exits 3, contracts that cannot be compared 2, a missing file 3; the rest passes through. */
function exitForError(e: unknown): never {
  if (e instanceof DiffConfigError) {
    console.error(e.message);
    throw new DiffExit(DIFF_EXIT.environment);
  }
  if (e instanceof DiffInputError) {
    console.error(e.message);
    throw new DiffExit(DIFF_EXIT.usage);
  }
  if ((e as NodeJS.ErrnoException).code === "ENOENT") {
    console.error(`cannot read the contract: ${(e as Error).message}`);
    throw new DiffExit(DIFF_EXIT.environment); // a missing file is the environment's (cli/exit.ts)
  }
  throw e;
}

/** The findings of an earlier JSON report (validated before use). */
function readBaseline(path: string): Baseline {
  const json = readConfigFile(path, "baseline", true) as {
    changes: Array<{ fingerprint: string; rule: string; subject: string; pointer: string }>;
  };
  return {
    source: path,
    findings: json.changes.map(({ fingerprint, rule, subject, pointer }) => ({ fingerprint, rule, subject, pointer })),
  };
}

function sameSources(a: readonly SourceFile[], b: readonly SourceFile[]): boolean {
  if (a.length !== b.length) return false;
  const texts = new Map(b.map((f) => [f.path, f.text]));
  return a.every((f) => texts.get(f.path) === f.text);
}

function defaultBase(releases: string): string {
  const newest = newestRelease(releases);
  if (newest === null)
    throw new DiffInputError(
      `no released contract in ${releases}/ to compare with: pass --base <git ref | folder>, or cut a release (copy the contract folder to ${releases}/<its version>)`,
    );
  return relative(process.cwd(), newest) || newest;
}
