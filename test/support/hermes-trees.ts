/**
 * The real Hermes Agent trees the real-Hermes suites run on, side by side (issue 42):
 * - v0.18.0: MNOTE_HERMES_SRC (default shared/hermes-agent-v0.18.0, test/support/hermes-setup.js);
 * - v0.21: MNOTE_HERMES_NEXT_SRC (default shared/hermes-agent-v0.21, base v0.21.4), with the
 *   stand-ins for the modules that tree could not hold, MNOTE_HERMES_STANDINS (default
 *   shared/hermes-agent-v0.21-standins; what each replaces: test/hermes/hermes_boot.py and the
 *   tree's SOURCE.md).
 * A tree that is not there is skipped with the reason; one that is named but incomplete is a
 * failure (namedButMissing), since CI names the folders on purpose. Hermes' code is never in the repo.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedDir, repoRoot } from "./paths";
import { tempDir } from "./tmp";

export interface HermesTree {
  /** "v0.18.0" or "v0.21", for titles. */
  name: string;
  /** The variable that names it. */
  variable: string;
  src: string;
  /** Present and complete: the suites run on it. */
  present: boolean;
  /** Why it is skipped (undefined when present). */
  skip?: string;
  /** Extra environment for the Python driver (the stand-ins' folder on v0.21). */
  env: Record<string, string>;
}

const isHermes = (src: string) =>
  src !== "" && existsSync(join(src, "hermes_cli", "plugins.py")) && existsSync(join(src, "model_tools.py"));

function tree(name: string, variable: string, standins?: string): HermesTree {
  const src = process.env[variable] ?? "";
  const needsStandins = standins !== undefined;
  const hasStandins = !needsStandins || existsSync(join(standins, "shim_boot.py"));
  const present = isHermes(src) && hasStandins;
  const skip = present
    ? undefined
    : src === ""
      ? `skipped: the Hermes Agent ${name} modules not found (shared/hermes-agent-${name === "v0.21" ? "v0.21" : "v0.18.0"} beside the checkout, or set ${variable})`
      : `skipped: ${variable}=${src} is not a complete Hermes Agent ${name} tree${needsStandins ? " with its stand-ins (MNOTE_HERMES_STANDINS)" : ""}`;
  return { name, variable, src, present, skip, env: needsStandins ? { MNOTE_HERMES_STANDINS: standins } : {} };
}

export const HERMES_TREES: HermesTree[] = [
  tree("v0.18.0", "MNOTE_HERMES_SRC"),
  tree("v0.21", "MNOTE_HERMES_NEXT_SRC", process.env.MNOTE_HERMES_STANDINS ?? ""),
];

/** The v0.21 tree (approve gate, ctx.state, the split loader). */
export const HERMES_NEXT = HERMES_TREES[1]!;

/** Trees named but not there: each a failing test in the suite that calls this (not a skip). */
export function namedButMissing(): void {
  for (const t of HERMES_TREES)
    if (t.src !== "" && !t.present)
      it(`${t.variable} holds the Hermes Agent ${t.name} modules`, () => {
        throw new Error(`${t.variable}=${t.src} has no hermes_cli/plugins.py and model_tools.py (or no stand-ins)`);
      });
}

/** Runs a Python driver (real_hermes.py by default) on a tree; resolves with its JSON report. */
export async function runHermesDriver(
  t: HermesTree,
  config: Record<string, unknown>,
  script = join(repoRoot, "test", "hermes", "real_hermes.py"),
  env: Record<string, string> = {},
): Promise<any> {
  const file = join(tempDir("mnote-real-hermes-"), "config.json");
  writeFileSync(file, JSON.stringify(config));
  const child = spawn("python3", [script, t.src, join(generatedDir, "hermes-plugin", "mnote"), file], {
    env: { PATH: process.env.PATH, HOME: tempDir("mnote-home-"), ...t.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => err.push(d));
  const status = await new Promise<number | null>((r) => child.on("close", r));
  if (status !== 0) throw new Error(`real Hermes run failed: ${Buffer.concat(err).toString("utf8")}`);
  // Hermes' own prompt may print to stdout before the report: the report is the last line
  const lines = Buffer.concat(out).toString("utf8").trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!);
}
