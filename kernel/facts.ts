/**
 * The contract facts the reference kernel works from. Every fact comes from a generated registry
 * (by default this contract's, generated/registry.ts): which commands exist, which capability each
 * needs, which page options are wired and their initial values, the page block limit and how bodySummary
 * is cut. Nothing here repeats a value: a contract change plus `npm run generate` changes the
 * kernel's answers. A test passes another contract's registry.
 */
import * as generatedRegistry from "../generated/registry";

/** What the kernel reads from a generated registry (any contract's: the shapes are the same). */
export interface ContractFacts {
  readonly contract: { readonly name: string; readonly version: string };
  readonly kernelCommands: { readonly [name: string]: { readonly name: string; readonly effect: "read" | "write" } };
  readonly toolList: ReadonlyArray<{ readonly kernelCommand: string; readonly capability: string }>;
  readonly capabilities: {
    readonly [scope: string]: { readonly requires: readonly string[]; readonly deniedReason: string };
  };
  readonly capabilityScopes: readonly string[];
  readonly limits: { readonly [name: string]: number };
  readonly truncations: { readonly [name: string]: { readonly length: number; readonly marker: string } };
  readonly optionSets: {
    readonly [typeName: string]: {
      readonly [field: string]: { readonly runtimeSupport: string; readonly initialValue: unknown };
    };
  };
}

/** This contract's facts. */
export const generatedFacts: ContractFacts = generatedRegistry;

/** The facts in the form the handlers use, checked once at start-up. */
export interface KernelFacts {
  readonly contract: ContractFacts;
  /** The most blocks a page may hold (limit pageBlocks). */
  readonly pageBlocks: number;
  /** How bodySummary is cut. */
  readonly bodySummary: { readonly length: number; readonly marker: string };
  /** Page options: which the kernel stores (wired), and what a page reports for one never set (x-mnote-initialValue). */
  readonly wiredOptions: ReadonlySet<string>;
  readonly optionDefaults: Readonly<Record<string, unknown>>;
  /** The capability each command needs: the one of the tool the contract maps to it. */
  readonly capabilityByCommand: ReadonlyMap<string, string>;
}

/** Thrown at start-up when the contract lacks a fact or a command lacks a handler. */
export class KernelStartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KernelStartupError";
  }
}

/** The kernel's facts from a contract's; a missing one is a start-up error naming it. */
export function kernelFacts(contract: ContractFacts): KernelFacts {
  const where = `contract ${contract.contract.name} ${contract.contract.version}`;
  const pageBlocks = contract.limits.pageBlocks;
  if (typeof pageBlocks !== "number")
    throw new KernelStartupError(
      `${where} names no limit "pageBlocks" (x-mnote-limit): the kernel cannot bound a page body`,
    );
  const bodySummary = contract.truncations.bodySummary;
  if (!bodySummary)
    throw new KernelStartupError(
      `${where} has no truncation "bodySummary" (x-mnote-truncate): the kernel cannot cut bodySummary`,
    );
  const options = contract.optionSets.PageOptions;
  if (!options)
    throw new KernelStartupError(
      `${where} has no PageOptions fields with x-mnote-runtimeSupport: the kernel cannot tell which options it stores`,
    );
  const fields = Object.entries(options);
  return {
    contract,
    pageBlocks,
    bodySummary,
    wiredOptions: new Set(fields.filter(([, f]) => f.runtimeSupport === "wired").map(([name]) => name)),
    optionDefaults: Object.fromEntries(fields.map(([name, f]) => [name, f.initialValue])),
    capabilityByCommand: new Map(contract.toolList.map((t) => [t.kernelCommand, t.capability])),
  };
}
