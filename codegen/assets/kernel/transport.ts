/**
 * How a kernel client reaches a kernel: HTTP JSON (POST {url}/v1/commands/{command}) or a CLI
 * adapter (a process that reads one KernelRequest on stdin and writes one KernelReply on stdout).
 * Both have a timeout and fail with typed errors, so a caller can tell "the kernel said no" from
 * "the kernel could not be reached" from "the kernel answered nonsense" from "the kernel cannot be
 * used as configured" (a refused token, an adapter that cannot start: retrying cannot help).
 *
 * The declarations need no @types/node: the environment is a plain record, and Node's own types
 * appear only inside function bodies.
 */

/** Environment variables, as the CLI adapter receives them. */
export type Environment = Record<string, string | undefined>;

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

/**
 * How the kernel cannot be used as configured. token_refused: HTTP 401 or 403 (the token is wrong,
 * missing, or not this kernel's); adapter_not_found / adapter_not_executable: the CLI adapter does
 * not exist or may not be run; adapter_failed: it ran and exited with an error code without
 * answering.
 */
export type KernelMisconfigurationKind =
  | "token_refused"
  | "adapter_not_found"
  | "adapter_not_executable"
  | "adapter_failed";

/**
 * The kernel cannot be used as it is configured; asking again the same way gives the same answer.
 * The message says what to fix and never holds the token. Nothing was applied, except that an
 * adapter that ran and failed (adapter_failed: mayHaveRun) may have acted before failing.
 */
export class KernelMisconfigured extends Error {
  readonly mayHaveRun: boolean;
  constructor(
    readonly kind: KernelMisconfigurationKind,
    message: string,
  ) {
    super(message);
    this.name = "KernelMisconfigured";
    this.mayHaveRun = kind === "adapter_failed";
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
  // the protocol's credential is the bearer token: a user or password in the URL is dropped, so it
  // can appear in no message (fetch would refuse the URL, quoting it whole)
  const base = withoutCredentials(options.url.replace(/\/+$/, ""));
  const shown = base;
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
    if (response.status === 401 || response.status === 403) {
      throw new KernelMisconfigured(
        "token_refused",
        `kernel ${command}: ${shown} answers HTTP ${response.status}${problemOf(text)}: ` +
          (options.token ? "it refuses the token (check --kernel-token)" : "it wants a token (set --kernel-token)"),
      );
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
  env?: Environment;
  cwd?: string;
  /** Passed to the adapter as the TRACEPARENT and TRACESTATE environment variables (OpenTelemetry's environment carrier). */
  traceContext?: TraceContextSource;
}

export function cliTransport(options: CliTransportOptions): KernelTransport {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (command, payload) => {
    // loaded by the first command sent, not with the client: a process on the embedded or the
    // HTTP kernel never spawns, and node:child_process was a few ms of a one-shot call's CPU
    const { spawn } = await import("node:child_process");
    return new Promise((resolve, reject) => {
      let child;
      try {
        child = spawn(options.command, [...(options.args ?? [])], {
          stdio: ["pipe", "pipe", "pipe"],
          env: withTraceEnv(options.env ?? process.env, options.traceContext?.()),
          cwd: options.cwd,
        });
      } catch (e) {
        reject(spawnFailure(options.command, e as Error));
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
      child.on("error", (e) => settle(() => reject(spawnFailure(options.command, e))));
      child.on("close", (code) => {
        const text = Buffer.concat(out).toString("utf8");
        settle(() => {
          if (text.trim() === "") {
            const detail = Buffer.concat(err).toString("utf8").trim().split("\n").pop() ?? "";
            const message = `kernel adapter ${options.command} exited with ${code} and no answer${detail ? `: ${detail}` : ""}`;
            // an error code is the adapter's own verdict (a bad argument, a database it cannot open);
            // a signal (killed, out of memory) may pass, so only that stays "unavailable"
            reject(typeof code === "number" && code !== 0 ? new KernelMisconfigured("adapter_failed", message) : new KernelTransportError("unavailable", message));
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
  };
}

/** Why the adapter could not be started: missing or not executable is misconfiguration, the rest "unavailable". */
function spawnFailure(command: string, e: Error): Error {
  const code = (e as Error & { code?: string }).code;
  if (code === "ENOENT") return new KernelMisconfigured("adapter_not_found", `kernel adapter ${command}: no such program (check --kernel-cli)`);
  if (code === "EACCES" || code === "EPERM") return new KernelMisconfigured("adapter_not_executable", `kernel adapter ${command}: not executable (check --kernel-cli)`);
  return new KernelTransportError("unavailable", `kernel adapter ${command}: ${e.message}`);
}

/** The child's environment with this command's trace context, when there is one. */
function withTraceEnv(env: Environment, trace: TraceContextFields | undefined): Environment {
  if (!trace?.traceparent) return env;
  const out: Environment = { ...env, TRACEPARENT: trace.traceparent };
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

/** A URL as it may be printed or logged: no user name or password. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/+$/, "");
  } catch {
    return "the kernel URL";
  }
}

/** The kernel's own words from an error body ({"error": "..."}), short, for the message. */
function problemOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body?.error === "string") return ` (${body.error.slice(0, 200)})`;
  } catch {
    // not JSON: nothing to quote
  }
  return "";
}

function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

function causeOf(err: Error): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message ?? "unknown cause"})` : "";
}
