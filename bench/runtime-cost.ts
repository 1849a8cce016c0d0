/**
 * Section "runtimeCost": what the runtime itself costs, with the kernel and the stores taken out.
 *
 * The six tools run against an in-memory kernel that answers at once (each command's reply was
 * recorded once from the reference kernel at set-up, then handed back from a Map: no SQLite, no
 * disk) and in-memory grant and idempotency stores (Maps). Three comparisons, all in one child
 * process per round, interleaved in short slices:
 *
 * - dispatcher vs floor: JSON.stringify(await dispatch(text)) against JSON.parse(text) +
 *   JSON.stringify(response) of the same envelopes.
 * - dispatcher vs the MCP SDK: the same six tools over the SDK's InMemoryTransport, requests
 *   pre-built, answered (a) by the dispatcher behind a bare JSON-RPC loop and (b) by the SDK's
 *   McpServer with zod input schemas whose handlers call the same in-memory kernel.
 * - the real `mnote-tools mcp` server (runtime/transports/mcp-server.ts, on the SDK's low-level
 *   Server) over the same transport, against (b).
 */
import { benchApproval } from "./approval";
import { readFileSync } from "node:fs";
import { runWorker } from "./child";
import { consume, measure, measureSliced, type MicroSamples, type MicroTask, type SlicedSamples } from "./micro";
import { demoSeedPath } from "./paths";
import { ALL_SCOPES, IDS } from "./requests";
import { figure, medianOf, pairedRatio } from "./stats";
import { goal, type FigureTree, type SectionContext, type SectionResult } from "./types";

/** The six tools' model arguments (bench data: a valid call of each, checked at set-up). */
const ARGS: Record<string, Record<string, unknown>> = {
  "mnote.page.get": {},
  "mnote.page.save": { content: [{ type: "paragraph", text: "hello from the bench" }], mode: "append" },
  "mnote.page.update_title": { title: "Bench title" },
  "mnote.page.update_options": { options: { wideLayout: true } },
  "mnote.artifact.create_summary": { summary: "A short summary of the page." },
  "mnote.artifact.create_ai_note": { title: "Bench note", content: "An AI note written by the bench." },
};

interface WorkerOptions {
  slices: number;
  sliceTime: number;
  warmupTime: number;
  /** Profiling: only this task (e.g. "dispatch/six"), measured for time ms. */
  only?: string;
  time?: number;
}

type Reply = { commandId: string | null; replayed: boolean; result: unknown };

/** A grant for the bench's get session on the demo workspace, a day long, every scope. */
function benchGrant() {
  return {
    sessionId: IDS.getSession,
    workspaceId: IDS.workspaceId,
    documentId: IDS.getDocument,
    actorId: IDS.actorId,
    capabilityScope: [...ALL_SCOPES],
    expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
  };
}

type Grant = ReturnType<typeof benchGrant>;

/** Builds the request envelope of a tool with the bench's arguments and grant (a new toolCallId each). */
async function envelopeBuilder(grant: Grant) {
  const { toolByName } = await import("../generated/registry");
  const { buildRequest } = await import("../runtime/transports/request-builder");
  let n = 0;
  return (name: string, key: string) =>
    buildRequest(toolByName(name)!, ARGS[name]!, grant, {
      runId: "run_bench",
      toolCallId: `call_${++n}`,
      idempotencyKey: key,
    });
}

type Envelope = Awaited<ReturnType<typeof envelopeBuilder>>;

/** What the reference kernel answered, once per command: the in-memory kernel hands it back. */
interface Recorded {
  replies: Map<string, Reply>;
  access: unknown;
}

/**
 * Step 1: every tool once through a dispatcher on the seeded reference kernel, whose kernel calls
 * are recorded (a real answer per command, and the access check's).
 */
async function recordReplies(grant: Grant, names: readonly string[], envelope: Envelope): Promise<Recorded> {
  const { createRuntime } = await import("../runtime/runtime");
  const { createDispatcher } = await import("../runtime/dispatch/dispatcher");
  const { seedKernel } = await import("../kernel/seed");
  const { memoryIdempotencyStore } = await import("./memory-stores");
  const real = createRuntime({
    kernel: { kind: "embedded", path: ":memory:" },
    // the bench measures the calls themselves: its loops would use a budget up (docs/RELIABILITY.md)
    budgets: null,
    statePath: ":memory:",
    approval: benchApproval(),
  });
  seedKernel(real.embeddedKernel!, JSON.parse(readFileSync(demoSeedPath, "utf8")));
  await real.grants.put(grant);
  const recorded: Recorded = { replies: new Map(), access: undefined };
  const recording = {
    accessCheck: async (payload: never) => (recorded.access = await real.kernel.accessCheck(payload)),
    call: async (command: string, payload: unknown) => {
      const reply = (await real.kernel.call(command as never, payload as never)) as Reply;
      recorded.replies.set(command, reply);
      return reply;
    },
  };
  const recorder = createDispatcher({
    kernel: recording as never,
    grants: real.grants,
    idempotency: memoryIdempotencyStore(),
    kernelTimeoutMs: null,
    approval: benchApproval(),
  });
  for (const name of names) {
    const r = await recorder.dispatch(envelope(name, `record-${name}`));
    if (!r.ok) throw new Error(`${name} failed at set-up: ${JSON.stringify(r.error)}`);
  }
  await real.close();
  return recorded;
}

/** Step 2: a dispatcher on the in-memory kernel (the recorded replies, at once) and in-memory stores. */
async function inMemoryDispatcher(recorded: Recorded, grant: Grant) {
  const { createDispatcher } = await import("../runtime/dispatch/dispatcher");
  const { memoryGrantStore, memoryIdempotencyStore } = await import("./memory-stores");
  const kernel = {
    accessCheck: async () => recorded.access as never,
    // never asked here: every answer arrives at once
    commandStatus: async () => {
      throw new Error("the in-memory kernel never loses an answer");
    },
    call: async (command: string) => recorded.replies.get(command) as never,
  };
  const grants = memoryGrantStore();
  await grants.put(grant);
  const dispatcher = createDispatcher({
    kernel,
    grants,
    idempotency: memoryIdempotencyStore(),
    kernelTimeoutMs: null,
    approval: benchApproval(),
  });
  return { kernel, grants, dispatcher };
}

/** Request texts with a hole for a fresh idempotency key (a write is never a replay). */
function requestTexts(names: readonly string[], envelope: Envelope) {
  const templates = names.map((name) => {
    const text = JSON.stringify(envelope(name, "KEY-HOLE"));
    const [head, tail] = text.split('"KEY-HOLE"') as [string, string | undefined];
    return { name, head, tail, write: tail !== undefined };
  });
  let keys = 0;
  const textOf = (i: number) => {
    const t = templates[i % templates.length]!;
    return t.write ? `${t.head}"bench-${++keys}"${t.tail}` : t.head;
  };
  return { templates, textOf };
}

async function setup() {
  const { toolList } = await import("../generated/registry");
  const grant = benchGrant();
  const names = toolList.map((t) => t.name).filter((n) => ARGS[n]);
  if (names.length !== 6) throw new Error(`the bench knows ${names.length} of the contract's tools`);
  // one builder for recording and templates: toolCallIds never repeat
  const envelope = await envelopeBuilder(grant);
  const recorded = await recordReplies(grant, names, envelope);
  const { kernel, grants, dispatcher } = await inMemoryDispatcher(recorded, grant);
  const { templates, textOf } = requestTexts(names, envelope);
  // one real answer per tool, checked: the floor stringifies these
  const responses = [];
  for (let i = 0; i < templates.length; i++) {
    const r = await dispatcher.dispatch(textOf(i));
    if (!r.ok) throw new Error(`${templates[i]!.name} failed on the in-memory kernel: ${JSON.stringify(r.error)}`);
    if (r.audit.replayed) throw new Error("a bench write was a replay");
    responses.push(r);
  }
  return { dispatcher, kernel, grant, grants, templates, textOf, responses, names };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** A bare JSON-RPC client on one end of an InMemoryTransport pair: send, await the reply by id. */
async function rpcClient(
  connect: (serverSide: import("@modelcontextprotocol/sdk/inMemory.js").InMemoryTransport) => Promise<void>,
) {
  const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map<number, (m: unknown) => void>();
  clientSide.onmessage = (m) => {
    const id = (m as { id?: number }).id;
    if (id !== undefined) (pending.get(id)?.(m), pending.delete(id));
  };
  await connect(serverSide);
  await clientSide.start();
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: { isError?: boolean; structuredContent?: { ok?: boolean } }; error?: unknown }>(
      (resolve) => {
        const mine = ++id;
        pending.set(mine, resolve as never);
        void clientSide.send({ jsonrpc: "2.0", id: mine, method, params } as never);
      },
    );
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "0" },
  });
  await clientSide.send({ jsonrpc: "2.0", method: "notifications/initialized" } as never);
  return request;
}

/** The dispatcher behind the transport with nothing else: envelope in, envelope out. */
async function dispatcherOverTransport(s: Setup) {
  return rpcClient(async (serverSide) => {
    serverSide.onmessage = (m) => {
      const msg = m as { id?: number; method?: string; params?: unknown };
      if (msg.id === undefined) return;
      if (msg.method !== "tools/call") {
        void serverSide.send({ jsonrpc: "2.0", id: msg.id, result: {} } as never);
        return;
      }
      void s.dispatcher
        .dispatch(msg.params)
        .then((response) => serverSide.send({ jsonrpc: "2.0", id: msg.id!, result: response as never }));
    };
    await serverSide.start();
  });
}

/** The SDK's McpServer with zod input schemas; each handler asks the same kernel what the dispatcher asks. */
async function sdkServer(s: Setup) {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { toolByName } = await import("../generated/registry");
  const server = new McpServer({ name: "sdk-only", version: "0.0.0" });
  const shapes = (await import("./sdk-tool-shapes")).sdkToolShapes();
  const context = {
    workspaceId: s.grant.workspaceId,
    documentId: s.grant.documentId,
    actorId: s.grant.actorId,
    traceId: "trace_sdk",
    sessionId: s.grant.sessionId,
    runId: "run_sdk",
    toolCallId: "call_sdk",
  };
  for (const name of s.names) {
    const tool = toolByName(name)!;
    server.registerTool(
      tool.providerName,
      { description: name, inputSchema: shapes[name]! },
      async (args: Record<string, unknown>) => {
        await s.kernel.accessCheck();
        const reply = (await s.kernel.call(tool.kernelCommand)) as unknown as Reply;
        return {
          content: [{ type: "text" as const, text: JSON.stringify(reply.result) }],
          structuredContent: { ok: true, result: reply.result, args },
        };
      },
    );
  }
  return rpcClient(async (serverSide) => server.connect(serverSide));
}

/** The real `mnote-tools mcp` server over the same transport. */
async function ourMcpServer(s: Setup) {
  const { createMcpServer } = await import("../runtime/transports/mcp-server");
  const server = createMcpServer({
    dispatch: (r) => s.dispatcher.dispatch(r),
    grants: s.grants,
    sessionId: s.grant.sessionId,
  });
  return rpcClient(async (serverSide) => server.connect(serverSide));
}

async function tasks(s: Setup): Promise<MicroTask[]> {
  const { toolByName } = await import("../generated/registry");
  const B = 12; // two rounds of the six tools per batch
  const direct = await dispatcherOverTransport(s);
  const sdk = await sdkServer(s);
  const mcp = await ourMcpServer(s);
  const calls = s.names.map((name) => ({ name: toolByName(name)!.providerName, arguments: ARGS[name] }));
  let fi = 0;
  let di = 0;
  let ti = 0;
  let si = 0;
  let mi = 0;
  const check = (ok: boolean | undefined, who: string) => {
    if (!ok) throw new Error(`${who}: a call failed`);
  };
  const six = (name: string, fn: () => Promise<void> | void, async = true): MicroTask => ({
    name,
    batch: B,
    async,
    fn: async
      ? async () => {
          for (let k = 0; k < B; k++) await fn();
        }
      : () => {
          for (let k = 0; k < B; k++) void fn();
        },
  });
  return [
    six(
      "floor/six",
      () => {
        const i = fi++;
        consume(JSON.parse(s.textOf(i)));
        consume(JSON.stringify(s.responses[i % s.responses.length]));
      },
      false,
    ),
    six("dispatch/six", async () => {
      const text = JSON.stringify(await s.dispatcher.dispatch(s.textOf(di++)));
      if (text.charCodeAt(6) !== 116 /* {"ok":t */) throw new Error(`dispatch failed: ${text}`);
      consume(text);
    }),
    six("transport+dispatch/six", async () => {
      const r = await direct("tools/call", JSON.parse(s.textOf(ti++)));
      check((r.result as { ok?: boolean } | undefined)?.ok, "dispatcher over the transport");
      consume(r);
    }),
    six("sdk/six", async () => {
      const r = await sdk("tools/call", calls[si++ % calls.length]);
      check(r.result !== undefined && !r.result.isError, "SDK McpServer");
      consume(r);
    }),
    six("mcp/six", async () => {
      const r = await mcp("tools/call", calls[mi++ % calls.length]);
      check(r.result?.structuredContent?.ok, "mnote-tools mcp server");
      consume(r);
    }),
  ];
}

export type WorkerResult = Record<string, SlicedSamples>;

/** In the child: every contender, interleaved in slices. */
export async function worker(
  _contender: string,
  options: WorkerOptions,
): Promise<WorkerResult | Record<string, MicroSamples>> {
  const s = await setup();
  const all = await tasks(s);
  if (options.only) {
    return measure(
      all.filter((t) => t.name === options.only),
      { time: options.time ?? 1000, warmupTime: options.warmupTime },
    );
  }
  return measureSliced(all, options);
}

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
    const result = (await runWorker<WorkerResult>("runtimeCost", "all", options)) as WorkerResult;
    for (const [task, r] of Object.entries(result)) {
      perSlice.set(task, [...(perSlice.get(task) ?? []), ...r.perSlice]);
      samples.set(task, [...(samples.get(task) ?? []), ...r.nsPerOp]);
    }
    ctx.log(`runtimeCost: round ${round + 1}/${rounds} done`);
  }
  const us = (key: string) =>
    figure(
      samples.get(key)!.map((ns) => ns / 1000),
      "µs/op",
      rounds,
    );
  const ratio = (a: string, b: string) => pairedRatio(perSlice.get(a)!, perSlice.get(b)!);
  const figures: FigureTree = {
    "six tools, round robin": {
      floor: us("floor/six"),
      dispatch: us("dispatch/six"),
      "transport + dispatch": us("transport+dispatch/six"),
      "mnote-tools mcp server": us("mcp/six"),
      "MCP SDK McpServer (zod)": us("sdk/six"),
    },
  };
  const vsFloor = ratio("dispatch/six", "floor/six");
  const vsSdk = ratio("transport+dispatch/six", "sdk/six");
  const mcpVsSdk = ratio("mcp/six", "sdk/six");
  return {
    title: "The runtime's own cost (in-memory kernel and stores)",
    notes: [
      "µs per call (lower is better), the six tools in turn (page.get, page.save, update_title, update_options, create_summary, create_ai_note), every write with a fresh idempotency key.",
      "The kernel is in memory and answers at once: each command's reply was recorded once from the reference kernel at set-up and is handed back from a Map. Grants and idempotency records are Maps too. What is left is the dispatcher: parse with limits, envelope and request validation, grant and scope checks, access check, idempotency claim and record (key and fingerprint hashes), response validation.",
      "floor: JSON.parse of the request text plus JSON.stringify of the response. dispatch: JSON.stringify(await dispatcher.dispatch(text)).",
      "transport + dispatch: pre-built tools/call messages over the MCP SDK's InMemoryTransport to a bare JSON-RPC loop that hands params to the dispatcher. MCP SDK McpServer (zod): the same messages and transport, the SDK's McpServer with zod input schemas for the six tools, each handler asking the same in-memory kernel for the access check and the command. mnote-tools mcp server: runtime/transports/mcp-server.ts (the SDK's low-level Server, the generated definitions, the request builder, the dispatcher) on the same transport.",
      "The MCP rows here are in one process over an in-memory transport, for the profile: the goal against the MCP SDK is taken end to end, over stdio and Streamable HTTP, in section mcp.",
      `Interleaved: in each of ${rounds} processes every contender takes turns in ${options.slices} slices of ${options.sliceTime} ms, a new shuffled order each slice; ratios are per slice, median and p10..p90 over slices.`,
    ],
    figures,
    ratios: {
      "six tools": {
        "dispatch / floor": vsFloor,
        "transport + dispatch / SDK": vsSdk,
        "mnote-tools mcp / SDK": mcpVsSdk,
      },
    },
    goals: [goal("runtimeCost.floor", "dispatcher (in-memory kernel) / floor, six-tool mix", vsFloor, "<=", 2)],
    extra: {
      rounds,
      slices: rounds * options.slices,
      options,
      medians: Object.fromEntries([...perSlice].map(([k, v]) => [k, medianOf(v)])),
    },
    seconds: (Date.now() - started) / 1000,
  };
}
