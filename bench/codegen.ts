/**
 * Section 6, codegen: `mnote-tools generate` and `generate --check`, each a process of its own, for
 * the real contract (6 tools) and for a synthetic contract of 200 tools made by
 * scripts/synthetic-contract.ts, runs interleaved; and how time grows from 6 to 200 tools.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { cliBin, repoRoot, scratchDir } from "./paths";
import { mustRun } from "./proc";
import { figure, medianOf, pairedRatio, round, shuffle } from "./stats";
import { goal, type FigureTree, type SectionContext, type SectionResult } from "./types";

export const SIZES = [6, 100, 200] as const;

export async function syntheticContracts(
  dir: string,
  sizes: readonly number[] = SIZES,
): Promise<Record<number, string>> {
  const out: Record<number, string> = {};
  for (const n of sizes) {
    out[n] = join(dir, `contract-${n}`);
    await mustRun([join(repoRoot, "dist", "scripts", "synthetic-contract.js"), out[n]!, String(n)]);
  }
  return out;
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const dir = scratchDir("codegen");
  // smoke: the real contract's size only, once (the checks: generate succeeds, --check is clean)
  // quick: 6 and 200 only (the goal's two sizes), so that --quick ends within 5 minutes at a load of 10
  const sizes: readonly number[] = ctx.smoke ? [6] : ctx.quick ? [6, 200] : SIZES;
  try {
    const contracts = await syntheticContracts(dir, sizes);
    // 3 runs (5 before round 3): CPU time varies little, and the default run must end within 15 minutes at a load of 10
    const runs = ctx.smoke ? 1 : ctx.quick ? 2 : 3;
    const times = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const generate = (n: number, check: boolean) => {
      const args = [cliBin, "generate", "--contract", contracts[n]!, "--out", join(dir, `out-${n}`), "--quiet"];
      if (check) args.push("--check");
      // the output folder must lie inside the project, which is the working directory here
      return mustRun(args, { cwd: dir, cpu: true });
    };
    // one unmeasured generate each, so --check has an output to compare and the files are cached
    for (const n of sizes) await generate(n, false);
    for (let run = 0; run < runs; run++) {
      for (const [n, check] of shuffle(
        sizes.flatMap(
          (n) =>
            [
              [n, false],
              [n, true],
            ] as const,
        ),
      )) {
        const key = `${check ? "check" : "generate"}/${n}`;
        const t = await generate(n, check);
        times.set(key, [...(times.get(key) ?? []), t.ms]);
        cpu.set(key, [...(cpu.get(key) ?? []), t.cpuMs]);
      }
      ctx.log(`codegen: run ${run + 1}/${runs} done`);
    }
    const figures: FigureTree = {};
    const ratios: FigureTree = {};
    const growth: Record<string, Record<string, number>> = {};
    const summary: string[] = [];
    const cpuOf = (key: string) => cpu.get(key)!;
    for (const verb of ["generate", "check"] as const) {
      const t = (n: number) => times.get(`${verb}/${n}`)!;
      const c = (n: number) => cpuOf(`${verb}/${n}`);
      figures[verb] = {
        ...Object.fromEntries(sizes.map((n) => [`${n} tools`, figure(t(n), "ms")])),
        ...Object.fromEntries(sizes.map((n) => [`${n} tools, CPU time`, figure(c(n), "ms")])),
      };
      if (ctx.smoke) continue;
      const perTool = (a: number, b: number) => c(b).map((x, i) => (x - c(a)[i]!) / (b - a));
      ratios[verb] = { "200 tools/6 tools, CPU": pairedRatio(c(200), c(6)) };
      if (!sizes.includes(100)) {
        summary.push(`${verb}: ${round(medianOf(c(6)))} ms CPU at 6 tools, ${round(medianOf(c(200)))} ms at 200`);
        continue;
      }
      Object.assign(figures[verb], {
        "per added tool, 6 to 100, CPU": figure(perTool(6, 100), "ms/tool"),
        "per added tool, 100 to 200, CPU": figure(perTool(100, 200), "ms/tool"),
      });
      growth[verb] = {
        "6": round(medianOf(c(6))),
        "100": round(medianOf(c(100))),
        "200": round(medianOf(c(200))),
        perToolMs6to100: round(medianOf(perTool(6, 100))),
        perToolMs100to200: round(medianOf(perTool(100, 200))),
        factor200over6: round(medianOf(c(200)) / medianOf(c(6))),
        wall200: round(medianOf(t(200))),
      };
      const g = growth[verb]!;
      summary.push(
        `${verb}: ${g["6"]} ms CPU at 6 tools, ${g["100"]} ms at 100, ${g["200"]} ms at 200 (${g.wall200} ms wall); ${g.perToolMs6to100} ms CPU per added tool from 6 to 100, ${g.perToolMs100to200} from 100 to 200 (linear when the two agree)`,
      );
    }
    const goals = ctx.smoke
      ? []
      : [
          goal(
            "codegen.generate200",
            "codegen: generate 200 tools, CPU seconds",
            figure(
              cpuOf("generate/200").map((ms) => ms / 1000),
              "s CPU",
            ),
            "<=",
            3,
          ),
        ];
    return {
      title: "Codegen: generate and generate --check",
      notes: [
        "ms per process (lower is better): node bin/mnote-tools.js generate --contract <dir> --out <dir> --quiet, and the same with --check against the output just written (in sync: exit 0). Wall time, spawn to exit; CPU time is the process's own process.cpuUsage() (user + system, every thread) written at exit by a preloaded module (bench/cpu-usage.ts): it is what the goal is on, since waiting for a core other work holds does not inflate it.",
        "6 tools: a copy of contract/. 100 and 200 tools: contract/ plus 94 or 194 synthetic tools and their kernel commands (scripts/synthetic-contract.ts: half writes, half reads, with args and results referencing the shared model).",
        `Interleaved: each of ${runs} runs does all six in shuffled order, after one unmeasured generate of each size. per added tool = (cpu(b) - cpu(a)) / (b - a), per run; 200 tools/6 tools = cpu200 / cpu6, per run.`,
      ],
      figures,
      ratios,
      goals,
      extra: { runs, growth },
      summary,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
