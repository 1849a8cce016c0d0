/**
 * Section 6, codegen: `mnote-tools generate` and `generate --check`, each a process of its own, for
 * the real contract (6 tools) and for a synthetic contract of 200 tools made by
 * scripts/synthetic-contract.ts, runs interleaved; and how time grows from 6 to 200 tools. Those
 * run with --no-cache (every step, as a first run); beside them, for 6 and 200 tools, a generate
 * with an empty disk cache (cold) and one after a one-tool description edit with the cache the
 * previous runs left (warm: what an author's next run costs).
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliBin, repoRoot, scratchDir } from "./paths";
import { mustRun } from "./proc";
import { figure, medianOf, pairedRatio, round, shuffle, type Figure } from "./stats";
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

/** What a run measures: every step (--no-cache), the check, an empty cache, the cache after an edit. */
type Kind = "generate" | "check" | "cold cache" | "warm after edit";
const CACHE_KINDS: readonly Kind[] = ["cold cache", "warm after edit"];
/** The sizes the cache rows run at (the goal's two). */
const CACHE_SIZES = [6, 200];

interface Samples {
  times: Map<string, number[]>;
  cpu: Map<string, number[]>;
}

/** Runs every (size, kind) once per round, in shuffled order, after one unmeasured generate of each size. */
async function measure(ctx: SectionContext, dir: string, sizes: readonly number[], runs: number): Promise<Samples> {
  const contracts = await syntheticContracts(dir, sizes);
  const cacheOf = (n: number) => join(dir, `cache-${n}`);
  let edits = 0;
  const generate = (n: number, kind: Kind) => {
    const args = [cliBin, "generate", "--contract", contracts[n]!, "--out", join(dir, `out-${n}`), "--quiet"];
    if (kind === "check") args.push("--check");
    if (kind === "generate" || kind === "check") args.push("--no-cache");
    if (kind === "cold cache") rmSync(cacheOf(n), { recursive: true, force: true });
    if (kind === "warm after edit") editDescription(contracts[n]!, `edit ${++edits}`);
    // the output folder must lie inside the project, which is the working directory here
    return mustRun(args, { cwd: dir, cpu: true, env: { ...process.env, MNOTE_TOOLS_CACHE_DIR: cacheOf(n) } });
  };
  // one unmeasured generate each: --check has an output to compare, the files are in the page cache, the disk cache is filled
  for (const n of sizes) await generate(n, "cold cache");
  const samples: Samples = { times: new Map(), cpu: new Map() };
  const add = (map: Map<string, number[]>, key: string, x: number) => map.set(key, [...(map.get(key) ?? []), x]);
  for (let run = 0; run < runs; run++) {
    const cases = sizes.flatMap((n) =>
      (["generate", "check", ...(CACHE_SIZES.includes(n) ? CACHE_KINDS : [])] as Kind[]).map((k) => [n, k] as const),
    );
    for (const [n, kind] of shuffle(cases)) {
      const t = await generate(n, kind);
      add(samples.times, `${kind}/${n}`, t.ms);
      add(samples.cpu, `${kind}/${n}`, t.cpuMs);
    }
    ctx.log(`codegen: run ${run + 1}/${runs} done`);
  }
  return samples;
}

/** A one-tool edit: page.get's description (in every synthetic contract) gets a new marker, as an author's save. */
function editDescription(contract: string, marker: string): void {
  const file = join(contract, "tools", "page.get.tool.json");
  const tool = JSON.parse(readFileSync(file, "utf8")) as { "x-mnote-tool": { description: string } };
  tool["x-mnote-tool"].description = tool["x-mnote-tool"].description.replace(/ \(edit \d+\)$/, "") + ` (${marker})`;
  writeFileSync(file, JSON.stringify(tool, null, 2) + "\n");
}

/** Figures, ratios, growth and summary lines of each kind. */
function summarize(samples: Samples, sizes: readonly number[], smoke: boolean) {
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  const growth: Record<string, Record<string, number>> = {};
  const summary: string[] = [];
  for (const kind of ["generate", "check", ...CACHE_KINDS] as Kind[]) {
    const at = sizes.filter((n) => samples.cpu.has(`${kind}/${n}`));
    const t = (n: number) => samples.times.get(`${kind}/${n}`)!;
    const c = (n: number) => samples.cpu.get(`${kind}/${n}`)!;
    figures[kind] = {
      ...Object.fromEntries(at.map((n) => [`${n} tools`, figure(t(n), "ms")])),
      ...Object.fromEntries(at.map((n) => [`${n} tools, CPU time`, figure(c(n), "ms")])),
    };
    if (smoke || !at.includes(200)) continue;
    ratios[kind] = { "200 tools/6 tools, CPU": pairedRatio(c(200), c(6)) };
    if (!at.includes(100)) {
      summary.push(`${kind}: ${round(medianOf(c(6)))} ms CPU at 6 tools, ${round(medianOf(c(200)))} ms at 200`);
      continue;
    }
    const perTool = (a: number, b: number) => c(b).map((x, i) => (x - c(a)[i]!) / (b - a));
    Object.assign(figures[kind], {
      "per added tool, 6 to 100, CPU": figure(perTool(6, 100), "ms/tool"),
      "per added tool, 100 to 200, CPU": figure(perTool(100, 200), "ms/tool"),
    });
    const g = (growth[kind] = {
      "6": round(medianOf(c(6))),
      "100": round(medianOf(c(100))),
      "200": round(medianOf(c(200))),
      perToolMs6to100: round(medianOf(perTool(6, 100))),
      perToolMs100to200: round(medianOf(perTool(100, 200))),
      factor200over6: round(medianOf(c(200)) / medianOf(c(6))),
      wall200: round(medianOf(t(200))),
    });
    summary.push(
      `${kind}: ${g["6"]} ms CPU at 6 tools, ${g["100"]} ms at 100, ${g["200"]} ms at 200 (${g.wall200} ms wall); ${g.perToolMs6to100} ms CPU per added tool from 6 to 100, ${g.perToolMs100to200} from 100 to 200 (linear when the two agree)`,
    );
  }
  return { figures, ratios, growth, summary };
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const dir = scratchDir("codegen");
  // smoke: the real contract's size only, once (the checks: generate succeeds, --check is clean)
  // quick: 6 and 200 only (the goal's two sizes), so that --quick ends within 5 minutes at a load of 10
  const sizes: readonly number[] = ctx.smoke ? [6] : ctx.quick ? [6, 200] : SIZES;
  // 3 runs (5 before round 3): CPU time varies little, and the default run must end within 15 minutes at a load of 10
  const runs = ctx.smoke ? 1 : ctx.quick ? 2 : 3;
  try {
    const samples = await measure(ctx, dir, sizes, runs);
    const { figures, ratios, growth, summary } = summarize(samples, sizes, ctx.smoke === true);
    const seconds = (key: string) =>
      figure(
        samples.cpu.get(key)!.map((ms) => ms / 1000),
        "s CPU",
      );
    const warmRatio = ratios["warm after edit"] as FigureTree | undefined;
    const goals = ctx.smoke
      ? []
      : [
          goal("codegen.generate200", "codegen: generate 200 tools, CPU seconds", seconds("generate/200"), "<=", 3),
          goal(
            "codegen.warmEdit200over6",
            "codegen: generate after a one-tool edit, warm cache, 200/6 tools CPU",
            warmRatio!["200 tools/6 tools, CPU"] as Figure,
            "<=",
            2,
          ),
        ];
    return {
      title: "Codegen: generate and generate --check",
      notes: [
        "ms per process (lower is better): node bin/mnote-tools.js generate --contract <dir> --out <dir> --quiet, and the same with --check against the output just written (in sync: exit 0), both --no-cache. Wall time, spawn to exit; CPU time is the process's own process.cpuUsage() (user + system, every thread) written at exit by a preloaded module (bench/cpu-usage.ts): it is what the goal is on, since waiting for a core other work holds does not inflate it.",
        "cold cache: generate with an empty disk cache (MNOTE_TOOLS_CACHE_DIR, removed before each run): every step, plus storing its results. warm after edit: page.get's description gets a new marker, then generate with the cache the runs before left (the validators, types and examples' verdicts are reused; what reads descriptions runs again).",
        "6 tools: a copy of contract/. 100 and 200 tools: contract/ plus 94 or 194 synthetic tools and their kernel commands (scripts/synthetic-contract.ts: half writes, half reads, with args and results referencing the shared model).",
        `Interleaved: each of ${runs} runs does every size and kind (the cache kinds at 6 and 200 tools) in shuffled order, after one unmeasured generate of each size. per added tool = (cpu(b) - cpu(a)) / (b - a), per run; 200 tools/6 tools = cpu200 / cpu6, per run.`,
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
