/**
 * Hostile shapes (issue 12 item 3, issue 21): a 1 MiB request of any shape must be refused within
 * 50 ms of CPU in all, JSON.parse included. Each shape is a full request envelope whose args carry
 * the hostile value, just under the 1 MiB limit (the envelope included), as raw bytes, sent to the
 * dispatcher (pre-scan, parse, limits, duplicate-member check, validation, the answer) over an
 * in-memory runtime. Per run: process CPU time (user + system) of the dispatch, and of JSON.parse
 * of the same bytes alone; the goal is on the total, and the part beyond JSON.parse is reported
 * beside it. The row says whether the shape was refused (and with which code) or answered.
 */
import { benchApproval } from "./approval";
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

/** args of `{"content": <open * n> core <close * n>}` with n as large as 1 MiB allows. */
function nested(open: string, core: string, close: string): { n: number; args: string } {
  const n = Math.floor((MiB - envelope(`{"content":${core}}`).length) / (open.length + close.length));
  return { n, args: `{"content":${open.repeat(n)}${core}${close.repeat(n)}}` };
}

/** args of `{"content": <before> unit,unit,... <after>}` with as many units as 1 MiB allows. */
function repeated(before: string, unit: string, after: string): { n: number; args: string } {
  const n = Math.floor((MiB - envelope(`{"content":${before}${after}}`).length + 1) / (unit.length + 1));
  return { n, args: `{"content":${before}${Array.from({ length: n }, () => unit).join(",")}${after}}` };
}

const thousands = (n: number) => `${Math.round(n / 1000)}k`;

/**
 * The shapes, each just under 1 MiB with its envelope (the default request limit): the four
 * at full size (the nesting is about 524k levels, not 10k), and four more whose cost is JSON.parse
 * itself or the walk after it.
 */
export function hostileShapes(): Record<string, Buffer> {
  const depth = 60;
  const wideDeep = repeated("[".repeat(depth), "0", "]".repeat(depth));
  const keys: string[] = [];
  let size = envelope('{"content":{}}').length;
  for (let k = 0; ; k++) {
    const member = `"${k.toString(36)}":0`;
    if (size + member.length + 1 > MiB) break;
    keys.push(member);
    size += member.length + 1;
  }
  const textRoom = MiB - envelope('{"content":""}').length;
  const deepArrays = nested("[", "", "]");
  const deepObjects = nested('{"a":', "0", "}");
  const emptyObjects = repeated("[", "{}", "]");
  const shortStrings = repeated("[", '"a"', "]");
  const shapes: Record<string, string> = {
    [`wide-deep array (${depth} deep, ${thousands(wideDeep.n)} zeros)`]: wideDeep.args,
    [`${thousands(keys.length)}-key object`]: `{"content":{${keys.join(",")}}}`,
    [`${thousands(deepArrays.n)}-deep nesting`]: deepArrays.args,
    [`${thousands(deepObjects.n)}-deep objects`]: deepObjects.args,
    "1 MiB string": `{"content":"${"x".repeat(textRoom)}"}`,
    "1 MiB of \\u escapes": `{"content":"${"\\u0041".repeat(Math.floor(textRoom / 6))}"}`,
    [`${thousands(emptyObjects.n)} empty objects`]: emptyObjects.args,
    [`${thousands(shortStrings.n)} short strings`]: shortStrings.args,
  };
  return Object.fromEntries(Object.entries(shapes).map(([name, args]) => [name, envelope(args)]));
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
  const runtime = createRuntime({
    kernel: { kind: "embedded", path: ":memory:" },
    // the bench measures the calls themselves: its loops would use a budget up (docs/RELIABILITY.md)
    budgets: null,
    statePath: ":memory:",
    approval: benchApproval(),
  });
  const runs = ctx.smoke ? 1 : ctx.quick ? 5 : 15;
  const figures: FigureTree = {};
  const goals: Goal[] = [];
  const summary: string[] = [];
  const failures: string[] = [];
  const outcomes: Record<string, { bytes: number; answer: string }> = {};
  try {
    for (const [name, bytes] of Object.entries(hostileShapes())) {
      ctx.log(`hostile: ${name} (${bytes.length} bytes)`);
      const total: number[] = [];
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
        total.push(dispatchMs);
        beyond.push(Math.max(0, dispatchMs - parseMs));
      }
      const f = figure(total, "ms CPU");
      figures[name] = {
        "dispatch CPU, total": f,
        "dispatch CPU beyond JSON.parse": figure(beyond, "ms CPU"),
        "JSON.parse alone, CPU": figure(parse, "ms CPU"),
      };
      goals.push(
        goal(`hostile.${name.replace(/[^A-Za-z0-9]/g, "")}`, `hostile ${name}: CPU ms in all`, f, "<=", BUDGET_MS),
      );
      // no hostile shape is a valid page.save: an ok answer would be a hole in the limits
      if (answer === "answered ok") failures.push(`hostile: ${name} was answered ok, not refused`);
      outcomes[name] = { bytes: bytes.length, answer };
      summary.push(
        `${name}: ${bytes.length} bytes, ${answer}, ${f.median} ms CPU in all (budget ${BUDGET_MS} ms); JSON.parse alone ${figure(parse, "ms").median} ms`,
      );
    }
  } finally {
    await runtime.close();
  }
  return {
    title: "Hostile shapes: 1 MiB requests, CPU in all",
    notes: [
      "Each shape is a full page.save envelope whose args carry the hostile value, just under the 1 MiB request limit with the envelope, dispatched as raw bytes over an in-memory runtime (no grant: a shape that passed every check would be answered not_authenticated).",
      `Per run: process CPU (user + system) of the dispatch (total), of JSON.parse of the same bytes alone, and the difference (beyond JSON.parse; 0 when the dispatch refuses before parsing); median of ${runs} runs after one warm-up. Budget: ${BUDGET_MS} ms in all.`,
    ],
    figures,
    ratios: {},
    goals,
    failures,
    extra: { outcomes },
    summary,
    seconds: (Date.now() - started) / 1000,
  };
}
