/**
 * Section 8, diff: `mnote-tools diff` on the full contract, each run a process of its own: the
 * working contract against itself as a base folder (no changes: one side built), a contract with
 * one breaking edit against it (both sides built, validated and compared; the report path, exit
 * 1), and the working contract against the newest release in contract-releases/ (what CI runs:
 * two contracts with different meta-schemas and many changes), runs interleaved. The goal is on
 * CPU time (user + system of the process, from spawn to exit), which does not count time spent
 * waiting for a core that other work holds; wall time is reported beside it.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliBin, contractDir, repoRoot, scratchDir } from "./paths";
import { mustRun, timeProcess } from "./proc";
import { figure, medianOf, pairedRatio, round, shuffle } from "./stats";
import { goal, type SectionContext, type SectionResult } from "./types";

/** A copy of contract/ with one breaking edit (an enum value of page.save's mode removed). */
function editedContract(dir: string): string {
  const out = join(dir, "contract");
  cpSync(contractDir, out, { recursive: true });
  const file = join(out, "tools", "page.save.tool.json");
  const text = readFileSync(file, "utf8");
  const edited = text.replace('"enum": ["replace", "append"]', '"enum": ["append"]');
  if (edited === text) throw new Error("bench/diff: the edit no longer applies to tools/page.save.tool.json");
  writeFileSync(file, edited);
  return out;
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const dir = scratchDir("diff");
  try {
    const edited = editedContract(dir);
    const runs = ctx.smoke ? 1 : ctx.quick ? 5 : 15;
    const cases = {
      // against the contract itself (folder form), so the figures do not depend on how far
      // contract/ is from the last release
      "no changes": () => mustRun([cliBin, "diff", "--base", "contract"], { cwd: repoRoot, cpu: true }),
      "one breaking edit": async () => {
        const t = await timeProcess([cliBin, "diff", "--base", "contract", "--contract", edited], {
          cwd: repoRoot,
          cpu: true,
        });
        if (t.code !== 1)
          throw new Error(`diff of the edited contract exited ${t.code}, not 1:\n${t.stderr || t.stdout}`);
        return t;
      },
      // the CI step: contract/ against the newest release (exit 0 or 1 depending on the contract's version)
      "against the newest release": async () => {
        const t = await timeProcess([cliBin, "diff"], { cwd: repoRoot });
        if (t.code !== 0 && t.code !== 1)
          throw new Error(`diff against the newest release exited ${t.code}:\n${t.stderr || t.stdout}`);
        return t;
      },
    };
    const times = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    if (!ctx.smoke) await cases["no changes"](); // unmeasured: files cached
    for (let run = 0; run < runs; run++) {
      for (const name of shuffle(Object.keys(cases) as Array<keyof typeof cases>)) {
        const t = await cases[name]();
        times.set(name, [...(times.get(name) ?? []), t.ms]);
        cpu.set(name, [...(cpu.get(name) ?? []), t.cpuMs]);
      }
      if ((run + 1) % 5 === 0) ctx.log(`diff: run ${run + 1}/${runs} done`);
    }
    const figures = Object.fromEntries(
      Object.keys(cases).flatMap((name) => [
        [name, figure(times.get(name)!, "ms")],
        [`${name}, CPU time`, figure(cpu.get(name)!, "ms")],
      ]),
    );
    // Both sides built and compared, in CPU seconds.
    const full = figure(
      cpu.get("one breaking edit")!.map((ms) => ms / 1000),
      "s",
    );
    return {
      title: "Diff: mnote-tools diff on the full contract",
      notes: [
        "ms per process (lower is better): node bin/mnote-tools.js diff --base contract from the repository root (contract/ against itself: the same files are built once, nothing to report); the same with --contract <a copy with one enum value removed> (both sides built, validated and compared; a breaking change without a major bump: exit 1); and node bin/mnote-tools.js diff (contract/ against the newest release, as CI runs it). Wall time, spawn to exit; CPU time (user + system of the process and its children, from /proc) as in the codegen section.",
        `Interleaved: each of ${runs} runs does both in shuffled order, after one unmeasured run.`,
      ],
      figures,
      ratios: {
        "one breaking edit/no changes, CPU": pairedRatio(cpu.get("one breaking edit")!, cpu.get("no changes")!),
      },
      goals: [
        goal("diff.full", "diff: full contract (both sides built and compared), CPU seconds (median)", full, "<=", 0.5),
      ],
      extra: { runs },
      summary: Object.keys(cases).map(
        (name) =>
          `${name}: median ${round(medianOf(times.get(name)!))} ms wall, ${round(medianOf(cpu.get(name)!))} ms CPU`,
      ),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
