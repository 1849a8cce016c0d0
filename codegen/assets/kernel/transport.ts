/**
 * How a kernel client reaches a kernel: HTTP JSON (POST {url}/v1/commands/{command}) or a CLI
 * adapter (a process that reads one KernelRequest on stdin and writes one KernelReply on stdout).
 * Both have a timeout and fail with typed errors, so a caller can tell "the kernel said no" from
 * "the kernel could not be reached" from "the kernel answered nonsense".
 */
import { spawn } from "node:child_process";

/** Sends one command and resolves with the kernel's raw reply (parsed JSON, not yet checked). */
export type KernelTransport = (command: string, payload: unknown) => Promise<unknown>;

/** W3C trace context to send with one command (https://www.w3.org/TR/trace-context/). */
export interface TraceContextFields {
  traceparent?: string;
  tracestate?: string;
}

/**
 * Asked once per command, in the caller's async context, for the trace context to propagate (for
 * example OpenTelemetry's propagation.inject of the active context). This package has no
 * dependencies, so it takes the fields rather than a tracer.
 */
export type TraceContextSource = () => TraceContextFields;

export type KernelFailureKind = "timeout" | "unavailable" | "protocol";

/** The kernel could not be asked, or did not answer usably. Whether it acted is unknown. */
export class KernelTransportError extends Error {
  constructor(
    readonly kind: KernelFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "KernelTransportError";
  }
}

/** The kernel answered and refused: nothing was applied. */
export class KernelRefusal extends Error {
  constructor(
    readonly code: string,
    readonly reason?: string,
    readonly field?: string,
  ) {
    super(`kernel refused: ${code}${reason ? ` (${reason})` : ""}`);
    this.name = "KernelRefusal";
  }
}

export interface HttpTransportOptions {
  /** Base URL of the kernel, e.g. http://127.0.0.1:8788 */
  url: string;
  /** Sent as a bearer token when set. */
  token?: string;
  timeoutMs?: number;
  /** Sent as the traceparent and tracestate headers. */
  traceContext?: TraceContextSource;
}

export function httpTransport(options: HttpTransportOptions): KernelTransport {
  const base = options.url.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (command, payload) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const trace = options.traceContext?.() ?? {};
    if (trace.traceparent) headers.traceparent = trace.traceparent;
    if (trace.tracestate) headers.tracestate = trace.tracestate;
    let response: Response;
    try {
      response = await fetch(`${base}/v1/commands/${encodeURIComponent(command)}`, {
        method: "POST",
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const err = e as Error;
      if (err.name === "TimeoutError" || err.name === "AbortError") {
        throw new KernelTransportError("timeout", `kernel ${command}: no answer within ${timeoutMs} ms`);
      }
      throw new KernelTransportError("unavailable", `kernel ${command}: ${err.message}${causeOf(err)}`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (e) {
      const err = e as Error;
      const kind = err.name === "TimeoutError" || err.name === "AbortError" ? "timeout" : "unavailable";
      throw new KernelTransportError(kind, `kernel ${command}: the answer was cut off: ${err.message}`);
    }
    if (response.status >= 500 && !looksLikeJson(text)) {
      throw new KernelTransportError("unavailable", `kernel ${command}: HTTP ${response.status}`);
    }
    return parseReply(command, text);
  };
}

export interface CliTransportOptions {
  /** The adapter program, e.g. mnote-cli. */
  command: string;
  args?: readonly string[];
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Passed to the adapter as the TRACEPARENT and TRACESTATE environment variables (OpenTelemetry's environment carrier). */
  traceContext?: TraceContextSource;
}

export function cliTransport(options: CliTransportOptions): KernelTransport {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return (command, payload) =>
    new Promise((resolve, reject) => {
      let child;
      try {
        child = spawn(options.command, [...(options.args ?? [])], {
          stdio: ["pipe", "pipe", "pipe"],
          env: withTraceEnv(options.env ?? process.env, options.traceContext?.()),
          cwd: options.cwd,
        });
      } catch (e) {
        reject(new KernelTransportError("unavailable", `kernel adapter ${options.command}: ${(e as Error).message}`));
        return;
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        settle(() => reject(new KernelTransportError("timeout", `kernel ${command}: the adapter gave no answer within ${timeoutMs} ms`)));
      }, timeoutMs);
      child.stdout.on("data", (d: Buffer) => out.push(d));
      child.stderr.on("data", (d: Buffer) => err.push(d));
      child.on("error", (e) => settle(() => reject(new KernelTransportError("unavailable", `kernel adapter ${options.command}: ${e.message}`))));
      child.on("close", (code) => {
        const text = Buffer.concat(out).toString("utf8");
        settle(() => {
          if (text.trim() === "") {
            const detail = Buffer.concat(err).toString("utf8").trim().split("\n").pop() ?? "";
            reject(new KernelTransportError("unavailable", `kernel adapter ${options.command} exited with ${code} and no answer${detail ? `: ${detail}` : ""}`));
            return;
          }
          try {
            resolve(parseReply(command, text));
          } catch (e) {
            reject(e);
          }
        });
      });
      child.stdin.on("error", () => undefined); // the adapter may exit before reading; close reports it
      child.stdin.end(JSON.stringify({ command, payload }));
    });
}

/** The child's environment with this command's trace context, when there is one. */
function withTraceEnv(env: NodeJS.ProcessEnv, trace: TraceContextFields | undefined): NodeJS.ProcessEnv {
  if (!trace?.traceparent) return env;
  const out: NodeJS.ProcessEnv = { ...env, TRACEPARENT: trace.traceparent };
  if (trace.tracestate) out.TRACESTATE = trace.tracestate;
  else delete out.TRACESTATE;
  return out;
}

function parseReply(command: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new KernelTransportError("protocol", `kernel ${command}: the answer is not JSON`);
  }
}

function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

function causeOf(err: Error): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message ?? "unknown cause"})` : "";
}
