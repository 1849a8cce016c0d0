/**
 * Phase 1, load: contract text in, parsed JSON with positions out. Reading the folder is the only
 * I/O; parsing takes the texts as given and sorts them, so the output never depends on the order
 * the file system listed them in.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { ContractError, type ContractProblem } from "../contract-error";
import { parseJsonWithPositions, JsonSyntaxError, type Position } from "../support/json-source";
import { sha256Hex } from "../../common/hash";
import { byPath } from "../../common/sort";

export interface SourceFile {
  /** Relative to the contract folder, forward slashes. */
  path: string;
  text: string;
}

export interface ParsedFile extends SourceFile {
  json: unknown;
  positions: Map<string, Position>;
  sha256: string;
}

export interface ParsedContract {
  files: ParsedFile[];
  /** sha256 over every file's path and bytes, in path order. */
  hash: string;
}

/** Every .json file under dir (README and other docs are not contract data). */
export function readContractDir(dir: string): SourceFile[] {
  const out: SourceFile[] = [];
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile() && entry.name.endsWith(".json")) {
        out.push({ path: relative(dir, full).split(sep).join("/"), text: readFileSync(full, "utf8") });
      }
    }
  };
  visit(dir);
  return out;
}

export function parseContract(sources: readonly SourceFile[]): ParsedContract {
  const sorted = [...sources].sort(byPath);
  const problems: ContractProblem[] = [];
  const files: ParsedFile[] = [];
  const seen = new Set<string>();
  for (const source of sorted) {
    if (seen.has(source.path)) {
      problems.push({ file: source.path, pointer: "", message: "the same path was given twice" });
      continue;
    }
    seen.add(source.path);
    try {
      const { value, positions } = parseJsonWithPositions(source.text);
      files.push({ ...source, json: value, positions, sha256: sha256Hex(source.text) });
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      problems.push({
        file: source.path,
        pointer: "",
        message: `JSON syntax error: ${e.message}`,
        position: e.position,
      });
    }
  }
  if (problems.length > 0) throw new ContractError(problems);
  const hash = sha256Hex(files.map((f) => `${f.path}\0${f.sha256}\n`).join(""));
  return { files, hash };
}
