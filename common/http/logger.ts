/**
 * The one logger of the three servers (`serve`, `mcp`, `kernel serve`): pino, JSON lines on stderr
 * (stdout is the MCP channel on stdio, and where `serve` prints its address), with levels,
 * redaction, and one schema for the events an operator alerts on.
 *
 * Never logged: tokens (any field named token or authorization) and page content (args, result,
 * title, content, blocks, body, at the top level or one level down): pino replaces them with
 * "[redacted]", so a careless caller cannot leak them either. A token the server generated is
 * written to a 0600 file (cli/token-file.ts) and only that file's path is printed, by
 * `showGeneratedTokenFile`.
 *
 * The one line written per tool call (tool_call) takes a faster road: pino's path redaction costs
 * more than the rest of the line (about 20 µs of a serve request's ~130 µs of CPU), so that line is
 * built field by field from the CallRecord's schema only (ids, codes, flags, a count: nothing a
 * secret or page content can be in, and nothing else a caller adds) and written by an unredacted
 * twin of the logger, with the same options, destination and level.
 *
 * The default destination (stderr) takes the log line off a request's path (issue 46): a line is
 * appended to a buffer, and the buffer goes to stderr in one synchronous write per turn of the
 * event loop (setImmediate: after the answers that turn wrote), at once for a fatal line, and on
 * the process's 'exit' (process.exit, an uncaught exception, the end of the event loop). The write
 * itself is pino's SonicBoom in sync mode (partial writes and EAGAIN on a full pipe handled), so no
 * line is ever in flight on another thread: what a SIGKILL (or a signal nobody handles) ends is at
 * most the lines of the turn it interrupts. pino's own asynchronous destination
 * (`destination({ sync: false })`, writes from libuv's thread pool, flushSync on exit) was measured
 * beside it and is the equivalent, not better: it too lost no line on process.exit or an uncaught
 * exception (40,000 lines into a slow pipe), and its CPU per line was within the noise of this one
 * (docs/BENCHMARKS.md, "Serve and MCP stdio, second pass"); this one also writes a fatal line at once.
 */
import {
  pino,
  stdTimeFunctions,
  destination,
  type Logger as PinoLogger,
  type Level,
  type DestinationStream,
} from "pino";
import { isSpanContextValid, trace } from "@opentelemetry/api";

export type Logger = PinoLogger;

/** Each logger createLogger made, and its unredacted twin for lines built only from safe fields. */
const SAFE_TWIN = new WeakMap<PinoLogger, PinoLogger>();
export type LogLevel = Level;

/** Field names whose values never reach a log line (pino redact paths). */
export const REDACTED_FIELDS = [
  "token",
  "hostToken",
  "authorization",
  "args",
  "result",
  "title",
  "content",
  "blocks",
  "body",
  "text",
] as const;

const REDACT_PATHS = REDACTED_FIELDS.flatMap((f) => [f, `*.${f}`]).concat([
  "headers.authorization",
  "req.headers.authorization",
  "*.headers.authorization",
]);

export interface LoggerOptions {
  /** Which server writes (`serve`, `mcp`, `kernel`); every line carries it. */
  service: string;
  /** trace | debug | info | warn | error | fatal | silent (env MNOTE_TOOLS_LOG_LEVEL; default info). */
  level?: string;
  /** Where lines go (default: stderr, one write per event-loop turn, flushed on exit and for a fatal line). */
  destination?: DestinationStream;
}

const LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/** A pino logger with the servers' redaction, ISO timestamps and `service`/`pid` on every line. */
export function createLogger(options: LoggerOptions): Logger {
  const level = options.level ?? process.env.MNOTE_TOOLS_LOG_LEVEL ?? "info";
  if (!LEVELS.includes(level)) {
    // the CLI checks --log-level and the variable itself; this is for other callers: blame the source
    const source = options.level !== undefined ? "--log-level" : "MNOTE_TOOLS_LOG_LEVEL";
    throw new Error(`${source} must be one of ${LEVELS.join(", ")}, not "${level}"`);
  }
  const common = {
    base: { service: options.service, pid: process.pid },
    timestamp: stdTimeFunctions.isoTime,
    // the level as a word: an operator greps for "error", not 50
    formatters: { level: (label: string) => ({ level: label }) },
    // a line written while a span is active names it, so a log line and its trace can be joined
    mixin: activeSpanFields,
  };
  const stream = options.destination ?? stderrPerTurn();
  const log = pino({ ...common, level, redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, stream);
  // the twin writes only what log would (logEvent asks log's level first), so it lets every level through
  SAFE_TWIN.set(log, pino({ ...common, level: "trace" }, stream));
  return log;
}

/** A destination whose lines reach `target` in one write per event-loop turn (see the top of this file). */
export interface BatchedDestination extends DestinationStream {
  /** Writes what is buffered now (synchronously, when the target is), then calls done (pino's logger.flush). */
  flush(done?: (err?: Error) => void): void;
}

/** Lines buffered, then written to target once per turn, at once for a fatal line, and on exit. */
export function batchedDestination(target: { write(text: string): unknown }): BatchedDestination {
  let pending = "";
  const flush = (done?: (err?: Error) => void) => {
    if (pending !== "") {
      const text = pending;
      pending = "";
      target.write(text);
    }
    done?.();
  };
  process.on("exit", () => flush());
  return {
    write(line: string) {
      if (pending === "") setImmediate(() => flush());
      pending += line;
      // the line before a crash is the one an operator needs: it does not wait for the turn
      if (line.includes('"level":"fatal"')) flush();
    },
    flush,
  };
}

let stderrDestination: BatchedDestination | undefined;

/** The one stderr destination of this process (one buffer, one exit hook, whatever the loggers). */
function stderrPerTurn(): BatchedDestination {
  return (stderrDestination ??= batchedDestination(destination({ fd: 2, sync: true })));
}

/**
 * trace_id and span_id (the OpenTelemetry log data model's names) of the active span, when there
 * is one with a valid context; nothing otherwise (tracing off, or outside any call).
 */
export function activeSpanFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}

/**
 * The schema of the events every server logs the same way. `event` names the line; the other
 * fields are ids, outcomes and counts, never content.
 */
export interface LogEvents {
  /** One per tool call (serve, mcp): the dispatcher's CallRecord. */
  tool_call: {
    toolName: string | null;
    toolCallId: string | null;
    traceId: string | null;
    sessionId: string | null;
    ok: boolean;
    code: string | null;
    effect: string;
    commandId: string | null;
    replayed: boolean;
    ms: number;
    /** Why the kernel cannot be used, for mnote_tool_kernel_misconfigured (never a token). */
    cause?: string;
  };
  /** The idempotency store could not be reached; logged once per 100 failures. */
  store_unavailable: { message: string; count: number; fallback: string };
  /** The start-up check of the kernel (serve, mcp): info when it answers, warn when it does not (yet). */
  kernel_check: { kernel: string; ok: boolean; message: string };
  /** An HTTP answer of 400 or more (warn for 4xx, error for 5xx). */
  http_error: { method: string; path: string; status: number; message: string };
  /** A configuration that works but may surprise (a Redis that forgets, no shared approval key), said at start. */
  start_warning: { message: string };
}

/** Writes one event of the shared schema at the given level. */
export function logEvent<K extends keyof LogEvents>(
  log: Logger,
  level: "info" | "warn" | "error",
  event: K,
  fields: LogEvents[K],
): void {
  const twin = event === "tool_call" ? SAFE_TWIN.get(log) : undefined;
  if (twin) {
    if (log.isLevelEnabled(level)) twin[level](toolCallLine(fields as ToolCallFields), "tool_call");
    return;
  }
  const line: Record<string, unknown> = { event, ...fields };
  log[level](line, String(event));
}

/** A tool_call record as the dispatcher gives it: the schema's fields and the approval facts. */
type ToolCallFields = LogEvents["tool_call"] & {
  approval?: { decision?: unknown; level?: unknown; approvedBy?: unknown };
  reason?: unknown;
};

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/**
 * The tool_call line, field by field: strings, booleans and a number from the record's schema only,
 * in the order the record has them (what the redacted logger wrote before, minus nothing: none of
 * these names is a redacted one). Whatever else the object holds is not read.
 */
function toolCallLine(r: ToolCallFields): Record<string, unknown> {
  const line: Record<string, unknown> = {
    event: "tool_call",
    toolName: text(r.toolName),
    toolCallId: text(r.toolCallId),
    traceId: text(r.traceId),
    sessionId: text(r.sessionId),
    ok: r.ok === true,
    code: text(r.code),
    effect: text(r.effect),
    commandId: text(r.commandId),
    replayed: r.replayed === true,
    ms: typeof r.ms === "number" ? r.ms : null,
  };
  if (r.cause !== undefined) line.cause = text(r.cause);
  const a = r.approval;
  if (a !== undefined && a !== null) {
    const approval: Record<string, unknown> = { decision: text(a.decision), level: text(a.level) };
    if (a.approvedBy !== undefined) approval.approvedBy = text(a.approvedBy);
    line.approval = approval;
  }
  if (r.reason !== undefined) line.reason = text(r.reason);
  return line;
}

/** Counts store failures and logs the first of every 100, so a Redis outage does not flood the log. */
export function storeErrorLogger(log: Logger, fallback = "the kernel's idempotency record"): (error: unknown) => void {
  let count = 0;
  return (error) => {
    if (count++ % 100 === 0)
      logEvent(log, "error", "store_unavailable", {
        message: (error as Error)?.message ?? String(error),
        count,
        fallback,
      });
  };
}

/**
 * Says where the token the server generated is (a file only its owner can read), as one plain line
 * on stderr, not a log line; the token itself is never printed.
 */
export function showGeneratedTokenFile(
  service: string,
  flag: string,
  path: string,
  write: (text: string) => void = (t) => void process.stderr.write(t),
): void {
  write(`mnote-tools ${service}: no ${flag} given; generated a bearer token into ${path} (readable by you only)\n`);
}
