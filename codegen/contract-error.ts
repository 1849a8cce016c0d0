/** Every way a contract can be wrong is reported as file + JSON pointer (+ line/column when known). */
import type { Position } from "./support/json-source";

export interface ContractProblem {
  /** Path relative to the contract folder, with forward slashes. */
  file: string;
  pointer: string;
  message: string;
  position?: Position;
}

export function formatProblem(p: ContractProblem): string {
  const where = p.position ? `${p.file}:${p.position.line}:${p.position.column}` : p.file;
  return `${where} at ${p.pointer === "" ? "(root)" : p.pointer}: ${p.message}`;
}

export class ContractError extends Error {
  constructor(readonly problems: ContractProblem[]) {
    super(
      problems.length === 1
        ? `invalid contract: ${formatProblem(problems[0]!)}`
        : `invalid contract (${problems.length} problems):\n` + problems.map((p) => "  " + formatProblem(p)).join("\n"),
    );
    this.name = "ContractError";
  }
}
