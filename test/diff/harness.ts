/**
 * Test contracts for the diff, built in memory from contract/: each side is the real contract with
 * a few JSON edits, built with buildModel like the CLI does. Examples are stripped from every file
 * because the diff ignores them and buildModel validates them, so an edit that narrows a schema
 * would otherwise fail on an example instead of reaching the diff.
 */
import { readContractDir, type SourceFile } from "../../codegen/phases/load";
import { buildModel } from "../../codegen/pipeline";
import type { ContractModel } from "../../codegen/model";
import { splitPointer } from "../../common/json-pointer";
import { contractDir } from "../support/paths";

export const REMOVE = Symbol("remove");

export interface Edit {
  file: string;
  /** JSON pointer inside the file; absent: the whole file. "-" as the last token appends. */
  at?: string;
  value: unknown;
}

export const set = (file: string, at: string, value: unknown): Edit => ({ file, at, value });
export const unset = (file: string, at: string): Edit => ({ file, at, value: REMOVE });
export const putFile = (file: string, json: unknown): Edit => ({ file, value: json });
export const dropFile = (file: string): Edit => ({ file, value: REMOVE });

let pristine: Map<string, unknown> | undefined;

function files(): Map<string, unknown> {
  if (!pristine) {
    pristine = new Map();
    for (const f of readContractDir(contractDir)) {
      const json = JSON.parse(f.text) as Record<string, unknown>;
      delete json["x-mnote-examples"];
      pristine.set(f.path, json);
    }
  }
  return pristine;
}

/** A fresh copy of a contract file (examples stripped), to build an edited version of it. */
export function original<T = Record<string, unknown>>(path: string): T {
  const json = files().get(path);
  if (json === undefined) throw new Error(`no contract file ${path}`);
  return structuredClone(json) as T;
}

export function sourcesWith(edits: readonly Edit[]): SourceFile[] {
  const out = new Map<string, unknown>();
  for (const [path, json] of files()) out.set(path, structuredClone(json));
  for (const edit of edits) {
    if (edit.at === undefined) {
      if (edit.value === REMOVE) out.delete(edit.file);
      else out.set(edit.file, structuredClone(edit.value));
      continue;
    }
    const tokens = splitPointer(edit.at);
    const last = tokens.pop()!;
    let parent = out.get(edit.file) as Record<string, unknown> | unknown[] | undefined;
    for (const t of tokens) parent = (parent as Record<string, unknown>)?.[t] as Record<string, unknown> | undefined;
    if (parent === undefined || parent === null || typeof parent !== "object")
      throw new Error(`${edit.file}: nothing at ${edit.at}`);
    if (Array.isArray(parent)) {
      if (edit.value === REMOVE) parent.splice(Number(last), 1);
      else if (last === "-") parent.push(structuredClone(edit.value));
      else parent[Number(last)] = structuredClone(edit.value);
    } else if (edit.value === REMOVE) delete parent[last];
    else parent[last] = structuredClone(edit.value);
  }
  return [...out].map(([path, json]) => ({ path, text: JSON.stringify(json, null, 2) }));
}

const cache = new Map<string, ContractModel>();

export function modelWith(edits: readonly Edit[]): ContractModel {
  const key = JSON.stringify(edits.map((e) => [e.file, e.at, e.value === REMOVE ? "<remove>" : e.value]));
  let model = cache.get(key);
  if (!model) {
    // pinned, so the version rules are tested against a fixed base whatever contract/ says today
    model = buildModel(sourcesWith([set("contract.json", "/version", "1.0.0"), ...edits]));
    cache.set(key, model);
  }
  return model;
}
