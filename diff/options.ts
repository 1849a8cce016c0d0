/**
 * The options of the diff command, one table for both of its front doors: `mnote-tools diff`
 * (commander, cli/main.ts) and `mnote-diff`, the bin of @mnote/diff (node:util parseArgs,
 * diff/bin.ts). Imports nothing, so the CLI reads it without loading the diff.
 */

/** One option: its flag, its value (`<x>` required, `[x]` optional, none: a switch), help, default. */
export interface DiffOptionSpec {
  flag: `--${string}`;
  value?: `<${string}>` | `[${string}]`;
  description: string;
  default?: string;
}

/** What the command does, for the help of both front doors. */
export const DIFF_DESCRIPTION =
  "compare contract/ with a base version and report breaking, warning and safe changes (exit 1: breaking changes need a new major version; 3: a bad ignore, severity or baseline file)";

export const DIFF_OPTIONS: readonly DiffOptionSpec[] = [
  {
    flag: "--base",
    value: "<ref-or-dir>",
    description: "a git ref or a folder holding a contract (default: the newest release in --releases)",
  },
  {
    flag: "--format",
    value: "<format>",
    description: "human, json, markdown (PR comments), github (workflow annotations), junit or sarif (code scanning)",
    default: "human",
  },
  {
    flag: "--fail-on",
    value: "<level>",
    description: "breaking (breaking changes without a new major) or warning (warnings too)",
    default: "breaking",
  },
  {
    flag: "--ignore",
    value: "<file>",
    description:
      "accepted changes with a reason and an expiry date (default: <releases>/diff-ignore.json; a named file must exist)",
  },
  {
    flag: "--rules",
    value: "<file>",
    description:
      "severity per rule and the categories judged (default: <releases>/diff-rules.json; a named file must exist; schema: mnote-tools/diff-rules.schema.json)",
  },
  {
    flag: "--category",
    value: "<list>",
    description:
      'judge only these categories, comma-separated: wire, source, model, kernel (wire breaks are judged anyway, until the severity file says except: ["wire"])',
  },
  {
    flag: "--baseline",
    value: "<file>",
    description: "a JSON report of an earlier run: changes it does not have are marked new",
  },
  {
    flag: "--changelog",
    value: "[file]",
    description: "print (or write to file) a changelog section for the release instead of the report",
  },
  { flag: "--contract", value: "<dir>", description: "the contract folder", default: "contract" },
  { flag: "--releases", value: "<dir>", description: "the folder of released contracts", default: "contract-releases" },
];

/** The option's key in DiffOptions, as commander names it: --fail-on is failOn. */
export function optionKey(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
