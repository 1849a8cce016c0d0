import { diffCommand, type DiffOptions } from "../../diff/command";
import { CliExit } from "../exit";

export type { DiffOptions };

/**
 * `mnote-tools diff`: the command of diff/command.ts (shared with `mnote-diff`, the bin of
 * @mnote/diff); exit codes as it says (cli/exit.ts): 0 no error-severity change (or a new major
 * version); 1 errors need a new major, or warnings with --fail-on warning, or an expired ignore
 * entry; 2 a bad flag, or the contracts cannot be compared; 3 a bad ignore, severity or baseline
 * file, or a contract that cannot be read.
 */
export async function runDiff(opts: DiffOptions): Promise<void> {
  const code = diffCommand(opts);
  if (code !== 0) throw new CliExit(code);
}
