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
import {
  CONTENDERS,
  contenderCheck,
  contenderChecks,
  SCHEMAS,
  type Check,
  type Checks,
  type Contender,
  type SchemaName,
} from "./validator-contenders";

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
 * new shuffled order each slice; task names are "<case>/<contender>". Each pool is cut to the
 * inputs every contender answers as expected, so all of them time the same inputs (the section's
 * agreement check reports the others loudly).
 */
export async function worker(_contender: string, options: WorkerOptions): Promise<WorkerResult> {
  const full = validatorPools(POOL);
  const checks: Array<[string, Check]> = [];
  if (options.only) checks.push([options.only, await contenderCheck(options.only as Contender)]);
  else {
    for (const c of CONTENDERS) checks.push([c, await contenderCheck(c)]);
    checks.push([CONTROL, await controlCheck()]);
    if (checks[0]![1] === checks[checks.length - 1]![1]) throw new Error("the A/A copy is the same function");
  }
  const pools = Object.fromEntries(
    CASES.map((c) => [c, full[c].filter((r) => checks.every(([, check]) => check(r) === EXPECTED[c]))]),
  ) as Record<Case, Envelope[]>;
  const tasks: MicroTask[] = [];
  for (const [name, check] of checks) {
    for (const c of CASES) {
      const pool = pools[c];
      if (pool.length === 0) throw new Error(`no ${c} input on which every contender agrees`);
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

/** Mutations for the block rules: which field a block type may carry, and a divider's text. */
const BLOCK_RULES: Mutation[] = [
  ["heading with level 3", (r) => setLast(r, { type: "heading", text: "Title", level: 3 })],
  ["paragraph with a level", (r) => setLast(r, { type: "paragraph", text: "a", level: 1 })],
  ["quote with checked", (r) => setLast(r, { type: "quote", text: "a", checked: false })],
  ["heading with checked", (r) => setLast(r, { type: "heading", text: "a", level: 1, checked: true })],
  ["heading with language", (r) => setLast(r, { type: "heading", text: "a", language: "ts" })],
  ["to_do with checked", (r) => setLast(r, { type: "to_do", text: "a", checked: true })],
  ["to_do with a level", (r) => setLast(r, { type: "to_do", text: "a", level: 2 })],
  ["to_do with language", (r) => setLast(r, { type: "to_do", text: "a", language: "ts" })],
  ["code with language", (r) => setLast(r, { type: "code", text: "let x", language: "ts" })],
  ["code with checked", (r) => setLast(r, { type: "code", text: "let x", checked: true })],
  ["divider with empty text", (r) => setLast(r, { type: "divider", text: "" })],
  ["divider with text", (r) => setLast(r, { type: "divider", text: "-" })],
  ["divider with a level", (r) => setLast(r, { type: "divider", text: "", level: 1 })],
  ["divider with language", (r) => setLast(r, { type: "divider", text: "", language: "ts" })],
  ["numbered item with language", (r) => setLast(r, { type: "numbered_list_item", text: "1", language: "x" })],
];

function setLast(r: Envelope, block: Record<string, unknown>): void {
  const content = r.args.content as unknown[];
  content[content.length - 1] = block;
}

/** Whole values that are no request at all. */
const NOT_REQUESTS: Array<[string, unknown]> = [
  ["null", null],
  ["a string", "{}"],
  ["an array", []],
  ["a number", 42],
  ["an empty object", {}],
];

/** page.update_title args: the title rule (one line, 1 to 500 characters, one visible). */
const TITLES: Array<[string, unknown]> = [
  ["a title", { title: "Plan for Q3" }],
  ["a Chinese title", { title: "第一段 计划" }],
  ["spaces around a word", { title: "  x  " }],
  ["500 characters", { title: "a".repeat(500) }],
  ["501 characters", { title: "a".repeat(501) }],
  ["empty", { title: "" }],
  ["only a space", { title: " " }],
  ["only a zero-width space", { title: "\u200b" }],
  ["zero-width joiner and BOM only", { title: "\u200d\ufeff" }],
  ["a BOM before a letter", { title: "\ufeffA" }],
  ["a soft hyphen after a letter", { title: "A\u00ad" }],
  ["a line break", { title: "one\ntwo" }],
  ["a tab", { title: "one\ttwo" }],
  ["a NUL", { title: "a\u0000" }],
  ["DEL", { title: "a\u007f" }],
  ["a C1 control", { title: "a\u0085" }],
  ["a line separator", { title: "a\u2028b" }],
  ["Hangul filler only", { title: "\u3164" }],
  ["with baseRevision", { title: "x", baseRevision: 4 }],
  ["baseRevision -1", { title: "x", baseRevision: -1 }],
  ["no title", { baseRevision: 1 }],
  ["an extra key", { title: "x", extra: 1 }],
  ["a number", { title: 7 }],
  ["not an object", "title"],
];

const GRANT = {
  sessionId: "sess_1",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write"],
  expiresAt: "2026-12-31T23:59:59Z",
};

/** Session grants: the RFC 3339 expiresAt without a leap second, and the rest of the grant. */
const GRANTS: Array<[string, unknown]> = [
  ["a grant", GRANT],
  ["with traceId and locale", { ...GRANT, traceId: "trace_1", locale: "en" }],
  ["an offset", { ...GRANT, expiresAt: "2026-12-31T23:59:59.999+08:00" }],
  ["a negative offset", { ...GRANT, expiresAt: "2026-07-01T05:00:00-05:30" }],
  ["a leap second", { ...GRANT, expiresAt: "2026-12-31T23:59:60Z" }],
  ["a leap second with an offset", { ...GRANT, expiresAt: "2027-01-01T07:59:60+08:00" }],
  ["29 February of a leap year", { ...GRANT, expiresAt: "2028-02-29T00:00:00Z" }],
  ["29 February of another year", { ...GRANT, expiresAt: "2026-02-29T00:00:00Z" }],
  ["31 April", { ...GRANT, expiresAt: "2026-04-31T00:00:00Z" }],
  ["month 13", { ...GRANT, expiresAt: "2026-13-01T00:00:00Z" }],
  ["hour 24", { ...GRANT, expiresAt: "2026-01-01T24:00:00Z" }],
  ["minute 60", { ...GRANT, expiresAt: "2026-01-01T00:60:00Z" }],
  ["no time zone", { ...GRANT, expiresAt: "2026-01-01T00:00:00" }],
  ["a date only", { ...GRANT, expiresAt: "2026-01-01" }],
  ["an offset of 24 hours", { ...GRANT, expiresAt: "2026-01-01T00:00:00+24:00" }],
  ["65 characters", { ...GRANT, expiresAt: `2026-01-01T00:00:00.${"1".repeat(44)}Z` }],
  ["no expiresAt", { ...GRANT, expiresAt: undefined }],
  ["expiresAt a number", { ...GRANT, expiresAt: 1_800_000_000_000 }],
  ["duplicate scopes", { ...GRANT, capabilityScope: ["page.read", "page.read"] }],
  ["locale fr", { ...GRANT, locale: "fr" }],
  ["an extra key", { ...GRANT, extra: true }],
  ["traceId with a space", { ...GRANT, traceId: "trace 1" }],
];

interface Input {
  schema: SchemaName;
  name: string;
  value: unknown;
  /** Known answer; otherwise ajv compiling the contract's schema at run time is the reference. */
  expected?: boolean;
}

export interface Agreement {
  inputs: number;
  contenders: number;
  /** Inputs per schema. */
  bySchema: Record<string, number>;
  /** How many inputs each contender answers unlike the reference. */
  byContender: Record<string, number>;
  disagreements: Array<{ schema: string; input: string; expected: boolean; answers: Record<string, boolean> }>;
}

function agreementInputs(): Input[] {
  const pools = validatorPools(POOL);
  const inputs: Input[] = [];
  const schema = "PageSaveRequest" as const;
  for (const c of CASES)
    pools[c].forEach((value, i) => inputs.push({ schema, name: `${c} #${i}`, value, expected: EXPECTED[c] }));
  for (let i = 0; i < 16; i++) {
    for (const [name, mutate] of [...MUTATIONS, ...BLOCK_RULES]) {
      const value = structuredClone(pools.valid[i]!);
      mutate(value);
      inputs.push({ schema, name: `${name} (request #${i})`, value });
    }
  }
  for (const [name, value] of NOT_REQUESTS) inputs.push({ schema, name, value, expected: false });
  for (const [name, value] of TITLES) inputs.push({ schema: "PageUpdateTitleArgs", name, value });
  for (const [name, value] of GRANTS) inputs.push({ schema: "SessionGrant", name, value: withoutUndefined(value) });
  return inputs;
}

function withoutUndefined(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

/**
 * Every contender on every input of every schema (the pools, the mutations of 16 valid requests,
 * the block rules, titles and grants): each answer is compared with the expected one, or with
 * ajv's reading of the contract's own schema where none is written down.
 */
export async function agreement(): Promise<Agreement> {
  const checks = new Map<Contender, Checks>();
  for (const c of CONTENDERS) checks.set(c, await contenderChecks(c));
  const inputs = agreementInputs();
  const byContender: Record<string, number> = Object.fromEntries(CONTENDERS.map((c) => [c, 0]));
  const bySchema: Record<string, number> = Object.fromEntries(SCHEMAS.map((s) => [s, 0]));
  const disagreements: Agreement["disagreements"] = [];
  for (const input of inputs) {
    bySchema[input.schema]!++;
    const answers: Record<string, boolean> = {};
    for (const [name, c] of checks) answers[name] = c[input.schema](input.value);
    const expected = input.expected ?? answers.ajv!;
    const wrong = Object.entries(answers).filter(([, a]) => a !== expected);
    for (const [name] of wrong) byContender[name]!++;
    if (wrong.length > 0) disagreements.push({ schema: input.schema, input: input.name, expected, answers });
  }
  return { inputs: inputs.length, contenders: checks.size, bySchema, byContender, disagreements };
}

// ---- the section ----

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const agreed = await agreement();
  ctx.log(
    `validators: ${agreed.contenders} contenders agree on ${agreed.inputs - agreed.disagreements.length}/${agreed.inputs} inputs`,
  );
  // a contender that answers unlike the contract fails the run loudly, but the others are still measured
  const failures = agreementFailures(agreed);
  const { rounds, options } = plan(ctx);
  const { perSlice, samples } = await measureRounds(ctx, rounds, options);
  const slices = rounds * options.slices;
  const { figures, ratios, goals } = judge(agreed, perSlice, samples, rounds);
  return {
    title: "Validators: the mnote.page.save request envelope",
    notes: notes(agreed, rounds, options, slices),
    figures,
    ratios,
    goals,
    failures,
    extra: {
      agreement: {
        inputs: agreed.inputs,
        contenders: agreed.contenders,
        bySchema: agreed.bySchema,
        byContender: agreed.byContender,
        disagreements: agreed.disagreements.length,
        examples: agreed.disagreements.slice(0, 10),
      },
      rounds,
      slices,
      options,
    },
    seconds: (Date.now() - started) / 1000,
  };
}

/** One failure per contender that answers unlike the contract, with up to five of its inputs. */
function agreementFailures(agreed: Agreement): string[] {
  return Object.entries(agreed.byContender)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => {
      const examples = agreed.disagreements
        .filter((d) => d.answers[name] !== d.expected)
        .slice(0, 5)
        .map((d) => `${d.schema} "${d.input}" (expected ${d.expected})`);
      return `validators: ${name} answers unlike the contract on ${n} of ${agreed.inputs} inputs, e.g. ${examples.join("; ")}; its figures are over the inputs where every contender agrees`;
    });
}

/** How many rounds (processes) and slices: fewer and shorter with --quick, one tiny one with --smoke. */
function plan(ctx: SectionContext): { rounds: number; options: WorkerOptions } {
  const smoke = ctx.smoke === true;
  const rounds = smoke ? 1 : ctx.quick ? 2 : 3;
  const options: WorkerOptions = smoke
    ? { slices: 1, sliceTime: 5, warmupTime: 5 }
    : ctx.quick
      ? { slices: 6, sliceTime: 25, warmupTime: 100 }
      : { slices: 12, sliceTime: 40, warmupTime: 200 };
  return { rounds, options };
}

/** Per task, over every round: every slice's median (paired across tasks by slice), and every sample. */
async function measureRounds(
  ctx: SectionContext,
  rounds: number,
  options: WorkerOptions,
): Promise<{ perSlice: Map<string, number[]>; samples: Map<string, number[]> }> {
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
  return { perSlice, samples };
}

/** The ns/op figures per case and contender, the ratios to generated, and the goals on ajv's and zod's. */
function judge(
  agreed: Agreement,
  perSlice: Map<string, number[]>,
  samples: Map<string, number[]>,
  rounds: number,
): { figures: FigureTree; ratios: FigureTree; goals: Goal[] } {
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  const goals: Goal[] = [];
  const failing = new Set(
    Object.entries(agreed.byContender)
      .filter(([, n]) => n > 0)
      .map(([c]) => c),
  );
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
    for (const [other, target] of [
      ["ajv", 0.95],
      ["zod", 3],
    ] as const) {
      const flag = failing.has(other) || failing.has("generated") ? " (DISAGREES with the contract)" : "";
      goals.push(
        goal(
          `validators.${c}.${other}`,
          `validator, ${label(c)}: ${other} / generated${flag}`,
          caseRatios[`${other}/generated`] as never,
          ">=",
          target,
        ),
      );
    }
  }
  return { figures, ratios, goals };
}

function notes(agreed: Agreement, rounds: number, options: WorkerOptions, slices: number): string[] {
  return [
    "ns per validation (lower is better), each tinybench sample a pass over the pool of 256 distinct requests (cut to the inputs every contender answers as expected); median, p10, p90 over every sample of every round.",
    "valid: well-formed PageSaveRequest envelopes with 1 to 8 blocks, every block carrying only the fields its type allows. invalidFirst: toolName breaks the ToolName pattern. invalidLast: the last key of the last block (level) is outside 1..3 (or on a type that may not carry it).",
    `Interleaved: in each of ${rounds} processes, every contender and case takes turns in ${options.slices} slices of ${options.sliceTime} ms (tinybench runs, a new shuffled order each slice). Ratios are other ns / generated ns per slice (${slices} slices), median and p10..p90 over slices: above 1, the generated validator is faster.`,
    "generated (A/A copy) is the generated validator again, from a second copy of its module: its ratio to generated shows what noise alone does to a ratio on this machine.",
    `Agreement: every contender implements contract 2.0.0's rules: the block rules (only heading carries level, only to_do checked, only code language; a divider has empty text), the title rule (page.update_title's args) and the RFC 3339 expiresAt without a leap second (SessionGrant). All ${agreed.contenders} contenders answer ${agreed.inputs} inputs (${Object.entries(
      agreed.bySchema,
    )
      .map(([s, n]) => `${n} ${s}`)
      .join(
        ", ",
      )}: the pools, ${MUTATIONS.length + BLOCK_RULES.length} mutations of each of 16 valid requests, ${NOT_REQUESTS.length} non-objects, ${TITLES.length} titles, ${GRANTS.length} grants), each compared with the expected answer or, where none is written, with ajv's reading of the contract's schema; only PageSaveRequest is timed. Disagreements per contender: ${Object.entries(
      agreed.byContender,
    )
      .map(([c, n]) => `${c} ${n}`)
      .join(", ")}.`,
    "zod and TypeBox count string lengths in UTF-16 units (JSON Schema counts code points) and zod's z.iso.datetime refuses a lower-case t or z, a space for T and an offset without a colon, which RFC 3339 allows: no input sits on those differences.",
  ];
}

function label(c: Case): string {
  return c === "valid" ? "valid" : c === "invalidFirst" ? "invalid first field" : "invalid last field";
}
