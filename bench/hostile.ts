/**
 * Hostile shapes (issue 12 item 3): a 1 MiB request of any shape must be answered within 50 ms of
 * CPU beyond JSON.parse. Each shape is a full request envelope whose args carry the hostile value,
 * as raw bytes, sent to the dispatcher (limits, duplicate-key scan, validation, the answer) over an
 * in-memory runtime. Per run: process CPU time (user + system) of dispatch, minus the CPU time of
 * JSON.parse of the same bytes; the figure is the median over runs. The row says whether the shape
 * was refused (and with which code) or answered, and the goal is <= 50 ms for every shape.
 */
import { figure } from "./stats";
import { goal, type FigureTree, type Goal, type SectionContext, type SectionResult } from "./types";

const MiB = 1024 * 1024;
const BUDGET_MS = 50;

/** The envelope around a hostile args value, as bytes (the value is spliced in as raw JSON text). */
function envelope(argsJson: string): Buffer {
  const head = JSON.stringify({
    toolName: "mnote.page.save",
    workspaceId: "ws_1",
    documentId: "doc_1",
    actorId: "user_1",
    sessionId: "s_bench",
    runId: "run_1",
    toolCallId: "call_1",
    traceId: "trace_1",
    capabilityScope: ["page.read", "page.write"],
    idempotencyKey: "hostile-key",
    dryRun: false,
    args: "@ARGS@",
  });
  return Buffer.from(head.replace('"@ARGS@"', argsJson), "utf8");
}

/** The four shapes of the issue, each just under 1 MiB (the default request limit). */
export function hostileShapes(): Record<string, Buffer> {
  const depth = 60;
  const zeros = 500_000;
  const wideDeep = `{"content":${"[".repeat(depth)}${"0,".repeat(zeros - 1)}0${"]".repeat(depth)}}`;
  const keys: string[] = [];
  for (let i = 0; i < 100_000; i++) keys.push(`"${i.toString(36)}":0`);
  const manyKeys = `{${keys.join(",")}}`;
  const deep = `{"content":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
  const overhead = envelope('{"content":""}').length;
  const bigString = `{"content":"${"x".repeat(MiB - overhead - 16)}"}`;
  return {
    "wide-deep array (60 deep, 500k zeros)": envelope(wideDeep),
    "100k-key object": envelope(manyKeys),
    "10k-deep nesting": envelope(deep),
    "1 MiB string": envelope(bigString),
  };
}

function cpuMs(run: () => unknown): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

async function cpuMsAsync(run: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function section(ctx: SectionContext): Promise<SectionResult> {
  const started = Date.now();
  const { createRuntime } = await import("../runtime/runtime");
  const runtime = createRuntime({ kernel: { kind: "embedded", path: ":memory:" }, statePath: ":memory:" });
  const runs = ctx.quick ? 5 : 15;
  const figures: FigureTree = {};
  const goals: Goal[] = [];
  const summary: string[] = [];
  const outcomes: Record<string, { bytes: number; answer: string }> = {};
  try {
    for (const [name, bytes] of Object.entries(hostileShapes())) {
      ctx.log(`hostile: ${name} (${bytes.length} bytes)`);
      const beyond: number[] = [];
      const parse: number[] = [];
      let answer = "";
      for (let i = 0; i < runs + 1; i++) {
        const parseMs = cpuMs(() => {
          try {
            JSON.parse(new TextDecoder().decode(bytes));
          } catch {
            // a shape JSON.parse cannot take costs its attempt, nothing more
          }
        });
        let response: { ok: boolean; error?: { code: string } | null } | undefined;
        const dispatchMs = await cpuMsAsync(async () => {
          response = (await runtime.dispatcher.dispatch(bytes)) as never;
        });
        answer = response!.ok ? "answered ok" : `refused: ${response!.error!.code}`;
        if (i === 0) continue; // warm-up
        parse.push(parseMs);
        beyond.push(Math.max(0, dispatchMs - parseMs));
      }
      const f = figure(beyond, "ms CPU");
      figures[name] = { "dispatch CPU beyond JSON.parse": f, "JSON.parse CPU": figure(parse, "ms CPU") };
      goals.push(
        goal(
          `hostile.${name.split(" ")[0]!.replace(/[^A-Za-z0-9]/g, "")}`,
          `hostile ${name}: CPU ms beyond JSON.parse`,
          f,
          "<=",
          BUDGET_MS,
        ),
      );
      outcomes[name] = { bytes: bytes.length, answer };
      summary.push(
        `${name}: ${bytes.length} bytes, ${answer}, ${f.median} ms CPU beyond JSON.parse (budget ${BUDGET_MS} ms)`,
      );
    }
  } finally {
    await runtime.close();
  }
  return {
    title: "Hostile shapes: 1 MiB requests, CPU beyond JSON.parse",
    notes: [
      "Each shape is a full page.save envelope whose args carry the hostile value, just under the 1 MiB request limit, dispatched as raw bytes over an in-memory runtime (no grant: a shape that passed every check would be answered not_authenticated).",
      `Per run: process CPU (user + system) of dispatch minus that of JSON.parse of the same bytes; median of ${runs} runs after one warm-up. Budget: ${BUDGET_MS} ms.`,
    ],
    figures,
    ratios: {},
    goals,
    extra: { outcomes },
    summary,
    seconds: (Date.now() - started) / 1000,
  };
}
