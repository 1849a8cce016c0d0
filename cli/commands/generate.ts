import { relative } from "node:path";
import { readContractDir, type SourceFile } from "../../codegen/phases/load";
import { generate } from "../../codegen/pipeline";
import { writeOutput, type WriteReport } from "../../codegen/phases/write";
import { checkOutput, formatDriftReport, inSync } from "../../codegen/phases/check";
import { ContractError } from "../../codegen/contract-error";
import { ConfigError, planFromCli, type GenerationPlan } from "../../codegen/config";
import { CliExit, EXIT } from "../exit";
import { watchFolder } from "../watch";
import { rememberResults } from "../../codegen/support/memo";
import { useDiskCache } from "../../codegen/support/disk-cache";
import { userCacheDir } from "../../common/user-cache";

interface GenerateOptions {
  config?: string;
  contract?: string;
  out?: string;
  check?: boolean;
  watch?: boolean;
  quiet?: boolean;
  /** false: --no-cache, nothing is read from or written to the disk cache. */
  cache?: boolean;
}

/**
 * Exit codes: 0 done / in sync, 1 an output folder is out of date, 2 the contract or the config is
 * invalid, 3 the config is invalid (an output folder in the wrong place or holding files generate
 * did not write, a target emitting a path outside its folder, two targets writing one path) or the
 * contract cannot be read (cli/exit.ts). Which targets run where comes from mnote-tools.config.json
 * (or --config); --contract and --out override its folders; without a config every built-in target
 * writes to generated/.
 */
export async function runGenerate(opts: GenerateOptions): Promise<void> {
  let plan: GenerationPlan;
  try {
    plan = planFromCli(opts);
  } catch (e) {
    throw new CliExit(problemExitCode(e));
  }
  // watch mode keeps the costly steps' results in memory between runs (codegen/support/memo.ts)
  rememberResults(opts.watch === true);
  // and every run keeps them on disk, in the user's own cache folder, for the next process
  // (codegen/support/disk-cache.ts); no folder that is safe to use means no cache. The drift check
  // never reads it: an entry's checksum is no proof against whoever can write the folder, and CI
  // must not trust a cache it did not write; it still stores what it made
  useDiskCache(opts.cache === false ? undefined : userCacheDir("codegen"), { read: opts.check !== true });
  const code = await once(opts, plan);
  if (!opts.watch) {
    if (code !== 0) throw new CliExit(code);
    return;
  }
  let running = Promise.resolve(0);
  // survives rename-saves and removed and recreated folders (cli/watch.ts)
  await watchFolder(plan.contractDir, () => {
    running = running.then(() => once(opts, plan));
  });
  console.error(`watching ${relative(process.cwd(), plan.contractDir) || "."} for changes (Ctrl-C to stop)`);
  await new Promise(() => undefined);
}

/**
 * The one place a problem with the input becomes an exit code: it prints the message and returns
 * 2 for a bad contract, 3 for a bad config or a contract that cannot be read; anything else is not
 * an input problem and is thrown on (cli/exit.ts maps it).
 */
function problemExitCode(e: unknown): number {
  if (e instanceof ContractError) {
    console.error(e.message);
    return EXIT.usage;
  }
  if (e instanceof ConfigError) {
    console.error(`invalid config: ${e.message}`);
    return EXIT.environment;
  }
  if ((e as NodeJS.ErrnoException).code === "ENOENT") {
    console.error(`cannot read the contract: ${(e as Error).message}`);
    return EXIT.environment; // a missing file is the environment's (cli/exit.ts)
  }
  throw e;
}

async function once(opts: GenerateOptions, plan: GenerationPlan): Promise<number> {
  const label = (dir: string) => relative(process.cwd(), dir) || ".";
  let sources: SourceFile[];
  try {
    sources = readContractDir(plan.contractDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    console.error(`cannot read the contract: ${(e as Error).message}`);
    return EXIT.environment;
  }
  try {
    const { model, outputs } = await generate(sources, plan.targets);
    if (opts.check) {
      let code = 0;
      for (const { out, files } of outputs) {
        const report = checkOutput(out, files, label(out));
        if (inSync(report)) {
          if (!opts.quiet)
            console.log(
              `${label(out)} is up to date with contract ${model.name} ${model.version} (${files.length} files)`,
            );
        } else {
          console.error(formatDriftReport(report, label(out)));
          code = 1;
        }
      }
      return code;
    }
    for (const { out, files } of outputs) {
      const report = writeOutput(out, files, label(out));
      if (!opts.quiet) console.log(writeSummary(report, files.length, label(out), `${model.name} ${model.version}`));
    }
    return 0;
  } catch (e) {
    return problemExitCode(e);
  }
}

/**
 * What a write changed, in one line: "out is up to date with contract X (48 files; nothing written)",
 * or "out: 2 of 48 files written, 1 removed (a.ts, b.ts; removed c.ts) from contract X", naming at
 * most five files.
 */
export function writeSummary(report: WriteReport, total: number, out: string, contract: string): string {
  const { written, removed } = report;
  if (written.length + removed.length === 0)
    return `${out} is up to date with contract ${contract} (${total} files; nothing written)`;
  const names = [...written, ...removed.map((p) => `removed ${p}`)];
  const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, and ${names.length - 5} more` : "");
  const gone = removed.length ? `, ${removed.length} removed` : "";
  return `${out}: ${written.length} of ${total} files written${gone} (${shown}) from contract ${contract}`;
}
