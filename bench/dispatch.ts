/**
 * Section 2, dispatch in process on the in-memory reference kernel: mnote.page.get and
 * mnote.page.save per call, text in and text out (JSON.stringify(await dispatch(text))), against
 * the floor for the same payloads (JSON.parse of the request text plus JSON.stringify of the
 * response object), and where the time goes, each phase measured on its own with the same inputs.
 * Beside each, the same requests through a dispatcher on a stub kernel (the reference kernel's
 * replies recorded once at set-up and handed back at once, same state stores): the dispatcher's
 * own cost, apart from the kernel's.
 */
import { benchApproval } from "./approval";
import { readFileSync } from "node:fs";
import { runWorker } from "./child";
import { consume, measure, measureSliced, type MicroSamples, type MicroTask, type SlicedSamples } from "./micro";
import { demoSeedPath } from "./paths";
import { ALL_SCOPES, benchSeed, getTexts, IDS, saveTemplates, type SaveTemplate } from "./requests";
import { figure, medianOf, pairedRatio } from "./stats";
import { goal, type FigureTree, type SectionContext, type SectionResult } from "./types";

const POOL = 256;
const CONTENDERS = ["dispatch", "floor", "phases"] as const;
const GET_PHASES = ["parse", "validate", "authorize", "kernel", "wrap", "stringify"] as const;
const SAVE_PHASES = ["parse", "validate", "authorize", "idempotency", "kernel", "wrap", "stringify"] as const;

interface WorkerOptions {
  slices: number;
  sliceTime: number;
  warmupTime: number;
  /** Profiling: only dispatch of this tool ("get" or "save"), measured for time ms. */
  only?: string;
  time?: number;
}

async function setup() {
  const { createRuntime } = await import("../runtime/runtime");
  const { seedKernel } = await import("../kernel/seed");
  const runtime = createRuntime({
    kernel: { kind: "embedded", path: ":memory:" },
    // the bench measures the calls themselves: its loops would use a budget up (docs/RELIABILITY.md)
    budgets: null,
    statePath: ":memory:",
    approval: benchApproval(),
  });
  const kernel = runtime.embeddedKernel!;
  seedKernel(kernel, benchSeed(JSON.parse(readFileSync(demoSeedPath, "utf8"))));
  const expiresAt = new Date(Date.now() + 24 * 3600_000).toISOString();
  for (const [sessionId, documentId] of [
    [IDS.getSession, IDS.getDocument],
    [IDS.saveSession, IDS.saveDocument],
  ] as const) {
    await runtime.grants.put({
      sessionId,
      workspaceId: IDS.workspaceId,
      documentId,
      actorId: IDS.actorId,
      capabilityScope: [...ALL_SCOPES],
      expiresAt,
    });
  }
  const gets = getTexts(POOL);
  const saves = saveTemplates(POOL);
  let keys = 0;
  const saveText = (t: SaveTemplate) => t.head + JSON.stringify(`bench-${++keys}`) + t.tail;
  // one real answer per pooled request: the floor stringifies these, and they prove the calls succeed
  const getResponses: unknown[] = [];
  for (const text of gets) getResponses.push(await runtime.dispatcher.dispatch(text));
  const saveResponses: unknown[] = [];
  for (const t of saves) saveResponses.push(await runtime.dispatcher.dispatch(saveText(t)));
  for (const r of [...getResponses, ...saveResponses] as Array<{
    ok: boolean;
    error?: { code: string };
    audit: { replayed?: boolean };
  }>) {
    if (!r.ok) throw new Error(`a bench request failed: ${JSON.stringify(r.error)}`);
    if (r.audit.replayed) throw new Error("a bench save was a replay");
  }
  const stub = await stubDispatcher(runtime, gets[0]!, saveText(saves[0]!));
  return { runtime, kernel, gets, saves, saveText, getResponses, saveResponses, stub };
}

/**
 * A dispatcher on a stub kernel: every kernel answer (access check per document, reply per command)
 * recorded once from the reference kernel through a first dispatch of each tool, then handed back at
 * once. Its grant and idempotency stores are SQLite stores on the runtime's own state database, as
 * the reference-kernel dispatcher's are.
 */
async function stubDispatcher(
  runtime: Awaited<ReturnType<typeof import("../runtime/runtime").createRuntime>>,
  ...texts: string[]
) {
  const { createDispatcher } = await import("../runtime/dispatch/dispatcher");
  const { SqliteGrantStore } = await import("../runtime/state/grant-store");
  const { SqliteIdempotencyStore } = await import("../runtime/state/sqlite-idempotency-store");
  const access = new Map<string, unknown>();
  const replies = new Map<string, unknown>();
  let recording = true;
  const real = runtime.kernel;
  const kernel = {
    accessCheck: async (payload: { context: { documentId: string } }) => {
      if (recording) access.set(payload.context.documentId, await real.accessCheck(payload as never));
      return access.get(payload.context.documentId) as never;
    },
    commandStatus: async () => {
      throw new Error("the stub kernel never loses an answer");
    },
    call: async (command: string, payload: unknown) => {
      if (recording) replies.set(command, await real.call(command as never, payload as never));
      return replies.get(command) as never;
    },
  };
  const dispatcher = createDispatcher({
    kernel: kernel as never,
    grants: new SqliteGrantStore(runtime.state),
    idempotency: new SqliteIdempotencyStore(runtime.state),
    kernelTimeoutMs: null,
    approval: benchApproval(),
  });
  for (const text of texts) {
    const r = await dispatcher.dispatch(text);
    if (!r.ok) throw new Error(`a stub-kernel request failed at set-up: ${JSON.stringify(r.error)}`);
  }
  recording = false;
  return dispatcher;
}

type Setup = Awaited<ReturnType<typeof setup>>;

function dispatchTasks(s: Setup, on: "dispatch" | "stub" = "dispatch"): MicroTask[] {
  const dispatch = on === "dispatch" ? s.runtime.dispatcher.dispatch : s.stub.dispatch;
  let gi = 0;
  let si = 0;
  return [
    {
      name: `${on}/get`,
      batch: 16,
      async: true,
      fn: async () => {
        for (let k = 0; k < 16; k++) {
          const text = JSON.stringify(await dispatch(s.gets[gi++ % POOL]!));
          if (text.charCodeAt(6) !== 116 /* {"ok":t */) throw new Error(`page.get failed: ${text}`);
          consume(text);
        }
      },
    },
    {
      name: `${on}/save`,
      batch: 16,
      async: true,
      fn: async () => {
        for (let k = 0; k < 16; k++) {
          const text = JSON.stringify(await dispatch(s.saveText(s.saves[si++ % POOL]!)));
          if (text.charCodeAt(6) !== 116) throw new Error(`page.save failed: ${text}`);
          consume(text);
        }
      },
    },
  ];
}

function floorTasks(s: Setup, validate: ValidateRequest): MicroTask[] {
  let gi = 0;
  let si = 0;
  let vgi = 0;
  let vsi = 0;
  return [
    // the floor the goal names: the same parse and stringify, with the tool's generated
    // request validator between them (what any validating JSON endpoint does at the least)
    {
      name: "validatedFloor/get",
      batch: 256,
      fn: () => {
        for (let k = 0; k < 256; k++) {
          const i = vgi++ % POOL;
          if (!validate.get(JSON.parse(s.gets[i]!))) throw new Error("invalid bench request");
          consume(JSON.stringify(s.getResponses[i]));
        }
      },
    },
    {
      name: "validatedFloor/save",
      batch: 256,
      fn: () => {
        for (let k = 0; k < 256; k++) {
          const i = vsi++ % POOL;
          if (!validate.save(JSON.parse(s.saveText(s.saves[i]!)))) throw new Error("invalid bench request");
          consume(JSON.stringify(s.saveResponses[i]));
        }
      },
    },
    {
      name: "floor/get",
      batch: 256,
      fn: () => {
        for (let k = 0; k < 256; k++) {
          const i = gi++ % POOL;
          consume(JSON.parse(s.gets[i]!));
          consume(JSON.stringify(s.getResponses[i]));
        }
      },
    },
    {
      name: "floor/save",
      batch: 256,
      fn: () => {
        for (let k = 0; k < 256; k++) {
          const i = si++ % POOL;
          consume(JSON.parse(s.saveText(s.saves[i]!)));
          consume(JSON.stringify(s.saveResponses[i]));
        }
      },
    },
  ];
}

/** The generated request validators of the two tools (each covers the envelope too). */
interface ValidateRequest {
  get: (value: unknown) => boolean;
  save: (value: unknown) => boolean;
}

async function requestValidators(): Promise<ValidateRequest> {
  const { toolByName } = await import("../generated/registry");
  return {
    get: toolByName("mnote.page.get")!.validateRequest,
    save: toolByName("mnote.page.save")!.validateRequest,
  };
}

export type WorkerResult = Record<string, SlicedSamples>;

/**
 * In the child: dispatch, floor and every phase, for page.get and page.save, interleaved in short
 * slices in a new shuffled order each slice (task names "dispatch/get", "floor/save",
 * "phases/get/kernel", ...). With options.only, dispatch of that tool alone (for a CPU profile).
 */
export async function worker(
  _contender: string,
  options: WorkerOptions,
): Promise<WorkerResult | Record<string, MicroSamples>> {
  const s = await setup();
  try {
    if (options.only) {
      return await measure(
        dispatchTasks(s).filter((t) => t.name === `dispatch/${options.only}`),
        { time: options.time ?? 1000, warmupTime: options.warmupTime },
      );
    }
    return await measureSliced(
      [
        ...dispatchTasks(s),
        ...dispatchTasks(s, "stub"),
        ...floorTasks(s, await requestValidators()),
        ...(await phaseTasks(s)),
      ],
      options,
    );
  } finally {
    await s.runtime.close();
  }
}

type Tool = NonNullable<ReturnType<(typeof import("../generated/registry"))["toolByName"]>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request envelopes as the dispatcher reads them
type Req = Record<string, any>;

/** Calls per measured batch of a phase task. */
const PHASE_BATCH = 64;

/** A phase task: body(i) on the pooled request i, PHASE_BATCH times per batch. */
function syncPhase(name: string, body: (i: number) => unknown): MicroTask {
  let i = 0;
  return {
    name,
    batch: PHASE_BATCH,
    fn: () => {
      for (let k = 0; k < PHASE_BATCH; k++) consume(body(i++ % POOL));
    },
  };
}

/** As syncPhase, for a phase that awaits. */
function asyncPhase(name: string, body: (i: number) => Promise<unknown>): MicroTask {
  let i = 0;
  return {
    name,
    batch: PHASE_BATCH,
    async: true,
    fn: async () => {
      for (let k = 0; k < PHASE_BATCH; k++) consume(await body(i++ % POOL));
    },
  };
}

/** The call context the dispatcher hands the kernel, taken from a request envelope. */
function contextOf(r: Req) {
  return {
    workspaceId: r.workspaceId,
    documentId: r.documentId,
    actorId: r.actorId,
    traceId: r.traceId,
    sessionId: r.sessionId,
    runId: r.runId,
    toolCallId: r.toolCallId,
  };
}

/**
 * The steps both tools share (validate, authorize, wrap), as the dispatcher composes them from the
 * generated validators, the grant store and the kernel's access check.
 */
async function sharedSteps(s: Setup) {
  const { validateIdentifier, validateToolName } = await import("../generated/validators");
  const { capabilities } = await import("../generated/registry");
  const { getAtPointer } = await import("../common/json-pointer");
  const kernel = s.kernel;
  const grants = s.runtime.grants;
  const validate = (tool: Tool, r: Req) => {
    // the dispatcher runs the tool's request validator (it covers the envelope) and the echo checks
    let ok = tool.validateRequest(r);
    ok = validateToolName(r.toolName) && ok;
    for (const f of ["toolCallId", "traceId", "workspaceId", "documentId", "sessionId"])
      ok = validateIdentifier(r[f]) && ok;
    if (!ok) throw new Error("invalid bench request");
    return ok;
  };
  const authorize = async (tool: Tool, r: Req) => {
    const grant = (await grants.get(r.sessionId))!;
    if (Date.parse(grant.expiresAt) <= Date.now()) throw new Error("expired");
    const agrees =
      grant.workspaceId === r.workspaceId &&
      grant.documentId === r.documentId &&
      grant.actorId === r.actorId &&
      r.capabilityScope.every((c: string) => grant.capabilityScope.includes(c as never));
    if (!agrees || !r.capabilityScope.includes(tool.capability)) throw new Error("mismatch");
    const access = (await kernel.accessCheck({ context: contextOf(r) })).result;
    for (const needed of [...capabilities[tool.capability].requires, tool.capability])
      if (!access.granted.includes(needed)) throw new Error("denied");
    return tool.unwiredFields.filter((f) => getAtPointer(r.args, f.pointer) !== undefined).length;
  };
  const wrap = (tool: Tool, r: Req, result: unknown, effect: "read" | "write", commandId: string | null) => {
    const audit: Record<string, unknown> = { effect, commandId, workspaceId: r.workspaceId, documentId: r.documentId };
    if (effect === "write") audit.replayed = false;
    const response = {
      ok: true,
      toolName: r.toolName,
      toolCallId: r.toolCallId,
      traceId: r.traceId,
      result,
      audit,
      error: null,
    };
    if (!tool.validateResponse(response))
      throw new Error(`invalid response ${JSON.stringify(tool.validateResponse.errors)}`);
    return response;
  };
  return { validate, authorize, wrap };
}

type Steps = Awaited<ReturnType<typeof sharedSteps>>;

async function getPhaseTasks(s: Setup, steps: Steps): Promise<MicroTask[]> {
  const { readRequest, DEFAULT_LIMITS } = await import("../runtime/dispatch/limits");
  const { toolByName } = await import("../generated/registry");
  const getTool = toolByName("mnote.page.get")!;
  const getObjects: Req[] = s.gets.map((t) => JSON.parse(t));
  return [
    syncPhase("phases/get/parse", (i) => readRequest(s.gets[i]!, DEFAULT_LIMITS)),
    syncPhase("phases/get/validate", (i) => steps.validate(getTool, getObjects[i]!)),
    asyncPhase("phases/get/authorize", (i) => steps.authorize(getTool, getObjects[i]!)),
    asyncPhase("phases/get/kernel", (i) =>
      s.kernel.call("page.snapshot.read", { context: contextOf(getObjects[i]!), args: getObjects[i]!.args }),
    ),
    syncPhase("phases/get/wrap", (i) =>
      steps.wrap(getTool, getObjects[i]!, (s.getResponses[i] as { result: unknown }).result, "read", null),
    ),
    syncPhase("phases/get/stringify", (i) => JSON.stringify(s.getResponses[i])),
  ];
}

async function savePhaseTasks(s: Setup, steps: Steps): Promise<MicroTask[]> {
  const { readRequest, DEFAULT_LIMITS } = await import("../runtime/dispatch/limits");
  const { toolByName } = await import("../generated/registry");
  const { idempotencyScope, requestFingerprint, commandIdFor } = await import("../runtime/dispatch/keys");
  const { SqliteIdempotencyStore } = await import("../runtime/state/sqlite-idempotency-store");
  const { openDatabase } = await import("../common/sqlite");
  const saveTool = toolByName("mnote.page.save")!;
  const kernel = s.kernel;
  // the runtime's store, on an in-memory state database of its own (as createRuntime opens one)
  const idempotency = new SqliteIdempotencyStore(openDatabase(":memory:"));
  const saveObjects: Req[] = s.saves.map((t) => JSON.parse(t.head + '"k"' + t.tail));
  const saveReply = { commandName: "page.body.save", revision: 1 };
  // one counter for both write phases: every claim and every kernel write is a new one
  let fresh = 0;
  return [
    syncPhase("phases/save/parse", (i) => readRequest(s.saveText(s.saves[i]!), DEFAULT_LIMITS)),
    syncPhase("phases/save/validate", (i) => steps.validate(saveTool, saveObjects[i]!)),
    asyncPhase("phases/save/authorize", (i) => steps.authorize(saveTool, saveObjects[i]!)),
    asyncPhase("phases/save/idempotency", async (i) => {
      const r = saveObjects[i]!;
      const scope = idempotencyScope({
        workspaceId: r.workspaceId,
        actorId: r.actorId,
        toolName: saveTool.name,
        idempotencyKey: `phase-${++fresh}`,
      });
      const fingerprint = requestFingerprint(r.documentId, r.args);
      const claim = await idempotency.claim(scope, fingerprint, 30_000);
      if (claim.kind !== "claimed") throw new Error(`claim ${claim.kind}`);
      await idempotency.complete(
        scope,
        claim.token,
        fingerprint,
        { commandId: commandIdFor("page.body.save", scope), result: saveReply },
        86_400_000,
      );
      return claim;
    }),
    asyncPhase("phases/save/kernel", (i) => {
      const r = saveObjects[i]!;
      // scope and fingerprint are the idempotency phase's work; here they are plain unique strings
      const n = ++fresh;
      return kernel.call("page.body.save", {
        context: contextOf(r),
        args: r.args,
        dryRun: false,
        write: {
          commandId: `page_body_save_${n}`,
          idempotencyKey: `k${n}`,
          idempotencyScope: `scope-${n}`,
          fingerprint: "f".repeat(64),
          ttlMs: 86_400_000,
        },
      } as never);
    }),
    syncPhase("phases/save/wrap", (i) =>
      steps.wrap(
        saveTool,
        saveObjects[i]!,
        (s.saveResponses[i] as { result: unknown }).result,
        "write",
        (s.saveResponses[i] as { audit: { commandId: string } }).audit.commandId,
      ),
    ),
    syncPhase("phases/save/stringify", (i) => JSON.stringify(s.saveResponses[i])),
  ];
}

/**
 * The dispatcher's steps, each on its own, with the same requests: the same functions it calls
 * (readRequest, the generated validators, the grant store, the kernel, the idempotency store, the
 * key derivations), composed the way runtime/dispatch/dispatcher.ts composes them. Nothing in the
 * dispatcher is changed or instrumented.
 */
async function phaseTasks(s: Setup): Promise<MicroTask[]> {
  const steps = await sharedSteps(s);
  return [...(await getPhaseTasks(s, steps)), ...(await savePhaseTasks(s, steps))];
}

// ---- the section ----

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const rounds = ctx.smoke ? 1 : ctx.quick ? 2 : 3;
  const options: WorkerOptions = ctx.smoke
    ? { slices: 1, sliceTime: 5, warmupTime: 5 }
    : ctx.quick
      ? { slices: 4, sliceTime: 40, warmupTime: 150 }
      : { slices: 10, sliceTime: 60, warmupTime: 300 };
  const perSlice = new Map<string, number[]>();
  const samples = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const result = (await runWorker<WorkerResult>("dispatch", "all", options)) as WorkerResult;
    for (const [task, r] of Object.entries(result)) {
      perSlice.set(task, [...(perSlice.get(task) ?? []), ...r.perSlice]);
      samples.set(task, [...(samples.get(task) ?? []), ...r.nsPerOp]);
    }
    ctx.log(`dispatch: round ${round + 1}/${rounds} done`);
  }

  const us = (key: string) =>
    figure(
      samples.get(key)!.map((ns) => ns / 1000),
      "µs/op",
      rounds,
    );
  const figures: FigureTree = {};
  const ratios: FigureTree = {};
  const shares: Record<string, Record<string, number>> = {};
  const goals = [];
  for (const tool of ["get", "save"] as const) {
    const phases = tool === "get" ? GET_PHASES : SAVE_PHASES;
    const phaseFigures: FigureTree = {};
    for (const p of phases) phaseFigures[p] = us(`phases/${tool}/${p}`);
    figures[tool] = {
      dispatch: us(`dispatch/${tool}`),
      "dispatch (stub kernel)": us(`stub/${tool}`),
      floor: us(`floor/${tool}`),
      "floor + validator": us(`validatedFloor/${tool}`),
      phases: phaseFigures,
    };
    const ratio = pairedRatio(perSlice.get(`dispatch/${tool}`)!, perSlice.get(`floor/${tool}`)!);
    const stubRatio = pairedRatio(perSlice.get(`stub/${tool}`)!, perSlice.get(`validatedFloor/${tool}`)!);
    ratios[tool] = {
      "dispatch/floor": ratio,
      "dispatch (stub kernel)/floor": pairedRatio(perSlice.get(`stub/${tool}`)!, perSlice.get(`floor/${tool}`)!),
      "dispatch (stub kernel)/floor + validator": stubRatio,
      "dispatch/dispatch (stub kernel)": pairedRatio(perSlice.get(`dispatch/${tool}`)!, perSlice.get(`stub/${tool}`)!),
    };
    shares[tool] = phaseShares(perSlice, tool, phases);
    goals.push(goal(`dispatch.${tool}`, `dispatch page.${tool}: dispatch / floor`, ratio, "<=", 1.5));
    // issue 46: the dispatcher's own cost, apart from the kernel's, against a validating floor
    if (tool === "get")
      goals.push(
        goal(
          "dispatch.getStub",
          "dispatch page.get on a stub kernel: dispatch / (floor + validator)",
          stubRatio,
          "<=",
          2,
        ),
      );
  }
  return {
    title: "Dispatch in process (in-memory reference kernel)",
    notes: sectionNotes(rounds, options),
    figures,
    ratios,
    goals,
    extra: { shares, rounds, slices: rounds * options.slices, options },
    summary: Object.entries(shares).map(
      ([tool, share]) =>
        `where page.${tool}'s time goes (phase median / dispatch median): ` +
        Object.entries(share)
          .sort((a, b) => b[1] - a[1])
          .map(([p, x]) => `${p} ${(x * 100).toFixed(0)}%`)
          .join(", "),
    ),
    seconds: (Date.now() - started) / 1000,
  };
}

/** Each phase's median over the dispatch median, and the rest as unattributed. */
function phaseShares(
  perSlice: ReadonlyMap<string, number[]>,
  tool: "get" | "save",
  phases: readonly string[],
): Record<string, number> {
  const total = medianOf(perSlice.get(`dispatch/${tool}`)!);
  const share: Record<string, number> = {};
  let attributed = 0;
  for (const p of phases) {
    const m = medianOf(perSlice.get(`phases/${tool}/${p}`)!);
    attributed += m;
    share[p] = round3(m / total);
  }
  share.unattributed = round3(Math.max(0, total - attributed) / total);
  return share;
}

/** What the section's rows mean and how they were taken. */
function sectionNotes(rounds: number, options: WorkerOptions): string[] {
  return [
    "µs per call (lower is better). dispatch: JSON.stringify(await dispatcher.dispatch(requestText)), text in and text out, on a runtime with the in-memory reference kernel and in-memory state, seeded with the demo workspace.",
    "page.get reads doc_1 (3 blocks, every include flag on). page.save writes 1 to 4 blocks to a page of its own in mode replace without baseRevision, each call with a new idempotency key: every call is a fresh write (claim, kernel transaction, record), never a replay.",
    "dispatch (stub kernel): the same requests through a dispatcher whose kernel hands back the reference kernel's answers recorded at set-up (access check per document, reply per command), at once, with the same SQLite state stores: the dispatcher's own cost. dispatch/dispatch (stub kernel) is how much the reference kernel adds.",
    "floor: JSON.parse of the same request text plus JSON.stringify of the same response object: the least any JSON tool endpoint does. floor + validator: the same with the tool's generated request validator between them (issue 46's goal: the stub-kernel dispatch at most 2x this).",
    "phases: each step of the dispatcher measured on its own with the same requests (parse = readRequest with limits; validate = envelope, tool request and echo validators; authorize = grant lookup and kernel access check; idempotency = scope, fingerprint, claim and complete; kernel = the kernel command; wrap = success envelope and response validation; stringify). share = phase median / dispatch median; unattributed is the rest (await turns, the onCall record, allocation).",
    `Interleaved: in each of ${rounds} processes, dispatch, floor and every phase take turns in ${options.slices} slices of ${options.sliceTime} ms (tinybench runs, a new shuffled order each slice); the ratio is dispatch / floor per slice, median and p10..p90 over slices; shares use the medians over slices.`,
  ];
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
