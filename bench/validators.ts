/**
 * Section 1, validators: ns per validation of the mnote.page.save request envelope, valid, invalid
 * at the first field and invalid at the last field, for the generated standalone validator, ajv
 * compiling the same schema at run time, zod 4, TypeBox's TypeCompiler and a hand-written check.
 * Each contender runs in its own process, contenders in shuffled order, for several rounds; every
 * contender must agree on every input first.
 */
import { runWorker } from "./child";
import { consume, measureSliced, type MicroTask, type SlicedSamples } from "./micro";
import { validatorPools, type Envelope } from "./requests";
import { figure, pairedRatio, shuffle } from "./stats";
import { goal, type FigureTree, type Goal, type SectionContext, type SectionResult } from "./types";
import { CONTENDERS, contenderCheck, type Check, type Contender } from "./validator-contenders";

const POOL = 256;
export const CASES = ["valid", "invalidFirst", "invalidLast"] as const;
type Case = (typeof CASES)[number];
const EXPECTED: Record<Case, boolean> = { valid: true, invalidFirst: false, invalidLast: false };

interface WorkerOptions {
  slices: number;
  sliceTime: number;
  warmupTime: number;
  /** Only this contender (for a CPU profile of it alone). */
  only?: string;
}

/** The A/A control: the generated validator a second time, from a fresh copy of its module. */
const CONTROL = "generated (A/A copy)";

async function controlCheck(): Promise<Check> {
  const path = require.resolve("../generated/validators");
  const cached = require.cache[path];
  delete require.cache[path];
  try {
    const { validatePageSaveRequest } =
      (await import("../generated/validators")) as typeof import("../generated/validators");
    return (v) => validatePageSaveRequest(v);
  } finally {
    if (cached) require.cache[path] = cached;
  }
}

export type WorkerResult = Record<string, SlicedSamples>;

/**
 * In the child: every contender and case (and the A/A control) interleaved in short slices, in a
 * new shuffled order each slice; task names are "<case>/<contender>".
 */
export async function worker(_contender: string, options: WorkerOptions): Promise<WorkerResult> {
  const pools = validatorPools(POOL);
  const checks: Array<[string, Check]> = [];
  if (options.only) checks.push([options.only, await contenderCheck(options.only as Contender)]);
  else {
    for (const c of CONTENDERS) checks.push([c, await contenderCheck(c)]);
    checks.push([CONTROL, await controlCheck()]);
    if (checks[0]![1] === checks[checks.length - 1]![1]) throw new Error("the A/A copy is the same function");
  }
  const tasks: MicroTask[] = [];
  for (const [name, check] of checks) {
    for (const c of CASES) {
      const pool = pools[c];
      const agreed = pool.filter((r) => check(r) === EXPECTED[c]).length;
      if (agreed !== POOL) throw new Error(`${name} disagrees on ${POOL - agreed} ${c} inputs`);
      tasks.push({
        name: `${c}/${name}`,
        batch: pool.length,
        fn: () => {
          let n = 0;
          for (let i = 0; i < pool.length; i++) if (check(pool[i])) n++;
          consume(n);
        },
      });
    }
  }
  return measureSliced(tasks, options);
}

// ---- agreement: the contenders against each other on mutated requests ----

type Mutation = [string, (r: Envelope) => void];

function lastBlock(r: Envelope): Record<string, unknown> {
  const content = r.args.content as Array<Record<string, unknown>>;
  return content[content.length - 1]!;
}

const MUTATIONS: Mutation[] = [
  ["no workspaceId", (r) => delete r.workspaceId],
  ["no idempotencyKey", (r) => delete r.idempotencyKey],
  ["no dryRun", (r) => delete r.dryRun],
  ["no args", (r) => delete (r as Record<string, unknown>).args],
  ["extra key", (r) => (r.extra = 1)],
  ["toolName of another tool", (r) => (r.toolName = "mnote.page.get")],
  ["toolName a number", (r) => (r.toolName = 7)],
  ["empty identifier", (r) => (r.documentId = "")],
  ["identifier starting with _", (r) => (r.actorId = "_user")],
  ["identifier of 129 characters", (r) => (r.runId = "r".repeat(129))],
  ["identifier of 128 characters", (r) => (r.runId = "r".repeat(128))],
  ["identifier with a space", (r) => (r.traceId = "trace 1")],
  ["idempotency key with a space", (r) => (r.idempotencyKey = "key 1")],
  ["idempotency key of 257 characters", (r) => (r.idempotencyKey = "k".repeat(257))],
  ["dryRun a string", (r) => (r.dryRun = "false")],
  ["no scopes", (r) => (r.capabilityScope = [])],
  ["duplicate scopes", (r) => (r.capabilityScope = ["page.read", "page.read"])],
  ["unknown scope", (r) => (r.capabilityScope = ["page.admin"])],
  ["nine scopes", (r) => (r.capabilityScope = Array(9).fill("page.read"))],
  ["locale fr", (r) => (r.locale = "fr")],
  ["locale en", (r) => (r.locale = "en")],
  ["args an array", (r) => (r.args = [] as never)],
  ["args extra key", (r) => (r.args.extra = true)],
  ["content not an array", (r) => (r.args.content = {})],
  [
    "content of 501 blocks",
    (r) => (r.args.content = Array.from({ length: 501 }, () => ({ type: "paragraph", text: "x" }))),
  ],
  [
    "content of 500 blocks",
    (r) => (r.args.content = Array.from({ length: 500 }, () => ({ type: "paragraph", text: "x" }))),
  ],
  ["empty content", (r) => (r.args.content = [])],
  ["mode merge", (r) => (r.args.mode = "merge")],
  ["baseRevision -1", (r) => (r.args.baseRevision = -1)],
  ["baseRevision 1.5", (r) => (r.args.baseRevision = 1.5)],
  ["baseRevision 2^53", (r) => (r.args.baseRevision = 2 ** 53)],
  ["baseRevision 2^53-1", (r) => (r.args.baseRevision = 2 ** 53 - 1)],
  ["block without type", (r) => delete lastBlock(r).type],
  ["block without text", (r) => delete lastBlock(r).text],
  ["block extra key", (r) => (lastBlock(r).extra = 1)],
  ["block type image", (r) => (lastBlock(r).type = "image")],
  ["block text of 20001 characters", (r) => (lastBlock(r).text = "a".repeat(20001))],
  ["block text of 20000 characters", (r) => (lastBlock(r).text = "文".repeat(20000))],
  ["block id with a space", (r) => (lastBlock(r).id = "bad id")],
  ["block id empty", (r) => (lastBlock(r).id = "")],
  ["block level a string", (r) => (lastBlock(r).level = "2")],
  ["block level 3", (r) => (lastBlock(r).level = 3)],
  ["block checked a string", (r) => (lastBlock(r).checked = "yes")],
  ["block language of 33 characters", (r) => (lastBlock(r).language = "l".repeat(33))],
];

/** Whole values that are no request at all. */
const NOT_REQUESTS: Array<[string, unknown]> = [
  ["null", null],
  ["a string", "{}"],
  ["an array", []],
  ["a number", 42],
  ["an empty object", {}],
];

export interface Agreement {
  inputs: number;
  contenders: number;
  disagreements: Array<{ input: string; answers: Record<string, boolean> }>;
}

/** Every contender on the pools and on every mutation of 16 valid requests: all must answer alike. */
export async function agreement(): Promise<Agreement> {
  const checks = new Map<Contender, Check>();
  for (const c of CONTENDERS) checks.set(c, await contenderCheck(c));
  const pools = validatorPools(POOL);
  const inputs: Array<{ name: string; value: unknown; expected?: boolean }> = [];
  for (const c of CASES)
    pools[c].forEach((value, i) => inputs.push({ name: `${c} #${i}`, value, expected: EXPECTED[c] }));
  for (let i = 0; i < 16; i++) {
    for (const [name, mutate] of MUTATIONS) {
      const value = structuredClone(pools.valid[i]!);
      mutate(value);
      inputs.push({ name: `${name} (request #${i})`, value });
    }
  }
  for (const [name, value] of NOT_REQUESTS) inputs.push({ name, value, expected: false });
  const disagreements: Agreement["disagreements"] = [];
  for (const input of inputs) {
    const answers: Record<string, boolean> = {};
    for (const [name, check] of checks) answers[name] = check(input.value);
    const values = Object.values(answers);
    const reference = input.expected ?? values[0];
    if (values.some((v) => v !== reference)) disagreements.push({ input: input.name, answers });
  }
  return { inputs: inputs.length, contenders: checks.size, disagreements };
}

// ---- the section ----

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const agreed = await agreement();
  ctx.log(
    `validators: ${agreed.contenders} contenders agree on ${agreed.inputs - agreed.disagreements.length}/${agreed.inputs} inputs`,
  );
  if (agreed.disagreements.length > 0) {
    throw new Error(
      `validators disagree:\n${agreed.disagreements
        .slice(0, 10)
        .map((d) => `${d.input}: ${JSON.stringify(d.answers)}`)
        .join("\n")}`,
    );
  }
  const rounds = ctx.quick ? 2 : 3;
  const options: WorkerOptions = ctx.quick
    ? { slices: 6, sliceTime: 25, warmupTime: 100 }
    : { slices: 12, sliceTime: 40, warmupTime: 200 };
  // per task: every slice's median (paired across tasks by slice), and every sample
  const perSlice = new Map<string, number[]>();
  const samples = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const result = await runWorker<WorkerResult>("validators", "all", options);
    for (const [task, r] of Object.entries(result)) {
      perSlice.set(task, [...(perSlice.get(task) ?? []), ...r.perSlice]);
      samples.set(task, [...(samples.get(task) ?? []), ...r.nsPerOp]);
    }
    ctx.log(`validators: round ${round + 1}/${rounds} done`);
  }
  const slices = rounds * options.slices;
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  const goals: Goal[] = [];
  for (const c of CASES) {
    const byContender: FigureTree = {};
    for (const contender of [...CONTENDERS, CONTROL])
      byContender[contender] = figure(samples.get(`${c}/${contender}`)!, "ns/op", rounds);
    figures[c] = byContender;
    const gen = perSlice.get(`${c}/generated`)!;
    // other / generated: above 1, the generated validator is faster
    const caseRatios: FigureTree = {};
    for (const other of [...CONTENDERS, CONTROL]) {
      if (other === "generated") continue;
      caseRatios[`${other}/generated`] = pairedRatio(perSlice.get(`${c}/${other}`)!, gen);
    }
    ratios[c] = caseRatios;
    goals.push(
      goal(
        `validators.${c}.ajv`,
        `validator, ${label(c)}: ajv / generated`,
        caseRatios["ajv/generated"] as never,
        ">=",
        0.95,
      ),
    );
    goals.push(
      goal(
        `validators.${c}.zod`,
        `validator, ${label(c)}: zod / generated`,
        caseRatios["zod/generated"] as never,
        ">=",
        3,
      ),
    );
  }
  return {
    title: "Validators: the mnote.page.save request envelope",
    notes: [
      "ns per validation (lower is better), each tinybench sample a pass over 256 distinct requests; median, p10, p90 over every sample of every round.",
      "valid: well-formed PageSaveRequest envelopes with 1 to 8 blocks. invalidFirst: toolName breaks the ToolName pattern. invalidLast: the last key of the last block (level) is outside 1..3.",
      `Interleaved: in each of ${rounds} processes, every contender and case takes turns in ${options.slices} slices of ${options.sliceTime} ms (tinybench runs, a new shuffled order each slice). Ratios are other ns / generated ns per slice (${slices} slices), median and p10..p90 over slices: above 1, the generated validator is faster.`,
      "generated (A/A copy) is the generated validator again, from a second copy of its module: its ratio to generated shows what noise alone does to a ratio on this machine.",
      `Agreement: all ${agreed.contenders} contenders gave the same answer on ${agreed.inputs} inputs (the pools, ${MUTATIONS.length} mutations of each of 16 valid requests, and ${NOT_REQUESTS.length} non-objects).`,
    ],
    figures,
    ratios,
    goals,
    extra: {
      agreement: { inputs: agreed.inputs, contenders: agreed.contenders, disagreements: agreed.disagreements.length },
      rounds,
      slices,
      options,
    },
    seconds: (Date.now() - started) / 1000,
  };
}

function label(c: Case): string {
  return c === "valid" ? "valid" : c === "invalidFirst" ? "invalid first field" : "invalid last field";
}
