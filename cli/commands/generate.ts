import { watch } from "node:fs";
import { resolve, relative } from "node:path";
import { readContractDir } from "../../codegen/phases/load";
import { generate } from "../../codegen/pipeline";
import { writeOutput } from "../../codegen/phases/write";
import { checkOutput, formatDriftReport, inSync } from "../../codegen/phases/check";
import { ContractError } from "../../codegen/contract-error";
import { CliExit } from "../exit";

interface GenerateOptions {
  contract: string;
  out: string;
  check?: boolean;
  watch?: boolean;
  quiet?: boolean;
}

/** Exit codes: 0 done / in sync, 1 generated/ is out of date, 2 the contract is invalid. */
export async function runGenerate(opts: GenerateOptions): Promise<void> {
  const code = await once(opts);
  if (!opts.watch) {
    if (code !== 0) throw new CliExit(code);
    return;
  }
  const contractDir = resolve(opts.contract);
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve(0);
  console.error(`watching ${relative(process.cwd(), contractDir) || "."} for changes (Ctrl-C to stop)`);
  watch(contractDir, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => once(opts));
    }, 100);
  });
  await new Promise(() => undefined);
}

async function once(opts: GenerateOptions): Promise<number> {
  const contractDir = resolve(opts.contract);
  const outDir = resolve(opts.out);
  const label = relative(process.cwd(), outDir) || ".";
  try {
    const { model, files } = await generate(readContractDir(contractDir));
    if (opts.check) {
      const report = checkOutput(outDir, files);
      if (inSync(report)) {
        if (!opts.quiet) console.log(`${label} is up to date with contract ${model.name} ${model.version} (${files.length} files)`);
        return 0;
      }
      console.error(formatDriftReport(report, label));
      return 1;
    }
    writeOutput(outDir, files);
    if (!opts.quiet) console.log(`wrote ${files.length} files to ${label} from contract ${model.name} ${model.version}`);
    return 0;
  } catch (e) {
    if (e instanceof ContractError) {
      console.error(e.message);
      return 2;
    }
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      console.error(`cannot read the contract: ${(e as Error).message}`);
      return 2;
    }
    throw e;
  }
}
