/** The options every runtime verb shares (call, serve, mcp), and turning them into a Runtime. */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { KernelChoice, Runtime } from "../runtime/runtime";
import type { CallRecord } from "../runtime/dispatch/dispatcher";
import type { Logger } from "../common/http/logger";
import { nonEmpty, option, parseHttpUrl, parseMs, parseRedisUrl } from "./options";
import { environmentError, usageError } from "./exit";
import { parseState, stateLocation } from "./state-url";

export interface RuntimeCliOptions {
  db: string;
  state: string;
  kernelUrl?: string;
  kernelToken?: string;
  kernelCli?: string;
  kernelTimeout: number;
  idempotencyTtl: number;
  lease: number;
  store?: string;
  grants?: string;
  approvalPolicy?: string;
  approvalTtl: number;
  budgets: "on" | "off";
}

export const DEFAULT_DB = ".mnote/kernel.db";
export const DEFAULT_STATE = ".mnote/runtime.db";

/**
 * One runtime option as plain data: what commander is given (cli/main.ts) and what `call` parses
 * without commander (cli/fast-options.ts), so the two cannot disagree on a name, a parser, a
 * default or a variable.
 */
export interface RuntimeOptionSpec {
  /** "--name <value>": every runtime option is a long flag that takes one value. */
  flags: string;
  description: string;
  parse?: (text: string) => unknown;
  default?: unknown;
  env?: string;
  choices?: readonly string[];
}

/** --db, --state, the kernel options, the stores and the durations of call, serve and mcp, in --help's order. */
export const RUNTIME_OPTIONS: readonly RuntimeOptionSpec[] = [
  {
    flags: "--db <path>",
    description: "the embedded reference kernel's database",
    parse: nonEmpty,
    default: DEFAULT_DB,
    env: "MNOTE_TOOLS_DB",
  },
  {
    flags: "--state <path|url>",
    description:
      "the runtime's state (session grants, idempotency records, approval nonces): a SQLite file, or postgres://user@host:5432/db shared by several instances",
    parse: parseState,
    default: DEFAULT_STATE,
    env: "MNOTE_TOOLS_STATE",
  },
  {
    flags: "--kernel-url <url>",
    description: "use a remote kernel over HTTP instead of the embedded one (checked at start-up by serve and mcp)",
    parse: parseHttpUrl,
    env: "MNOTE_KERNEL_URL",
  },
  {
    flags: "--kernel-token <token>",
    description: "bearer token for the remote kernel",
    parse: nonEmpty,
    env: "MNOTE_KERNEL_TOKEN",
  },
  {
    flags: "--kernel-cli <command>",
    description:
      'use a kernel CLI adapter (request on stdin, reply on stdout), e.g. "mnote-cli kernel"; split on spaces',
    parse: nonEmpty,
    env: "MNOTE_KERNEL_CLI",
  },
  {
    flags: "--kernel-timeout <ms>",
    description: "longest wait for one kernel command",
    parse: parseMs,
    default: 10_000,
    env: "MNOTE_KERNEL_TIMEOUT",
  },
  {
    flags: "--idempotency-ttl <ms>",
    description: "how long a keyed write is remembered",
    parse: parseMs,
    default: 24 * 60 * 60 * 1000,
  },
  {
    flags: "--store <url>",
    description:
      "where idempotency records live: the state file (default) or redis://host:port/db, shared by several instances",
    parse: parseRedisUrl,
    env: "MNOTE_TOOLS_STORE",
  },
  {
    flags: "--grants <url>",
    description:
      "where session grants live: the state file (default) or redis://host:port/db, for instances on several machines",
    parse: parseRedisUrl,
    env: "MNOTE_TOOLS_GRANTS",
  },
  {
    flags: "--approval-policy <file>",
    description:
      "the host's approval policy (JSON, contract/envelope/approval-policy.schema.json): tighten or loosen each tool's allow/ask/deny, per workspace and per session; deny wins (docs/APPROVAL.md). The tokens' key is MNOTE_APPROVAL_SECRET, else one kept in the state file",
    parse: nonEmpty,
    env: "MNOTE_APPROVAL_POLICY",
  },
  {
    // on (the default) counts the contract's budgets; off is for benchmarks and hosts that limit calls in front
    flags: "--budgets <on|off>",
    description:
      "count every tool's budget (the contract's calls per window per session, person and page, as --approval-policy lowers them; docs/RELIABILITY.md). off counts none: only for benchmarks and hosts that limit calls in front of mnote-tools",
    default: "on",
    env: "MNOTE_BUDGETS",
    choices: ["on", "off"],
  },
  {
    flags: "--approval-ttl <ms>",
    description: "how long an approval token is good for",
    parse: parseMs,
    default: 10 * 60 * 1000,
  },
  {
    flags: "--lease <ms>",
    description:
      "how long a keyed write holds its key without a heartbeat (the running process renews it every third of it); a process that dies frees the key within it",
    parse: parseMs,
    default: 5_000,
  },
];

/** The runtime options added to a commander command (call, serve, mcp). */
export function addRuntimeOptions(command: Command): Command {
  for (const spec of RUNTIME_OPTIONS) {
    const o = option(spec.flags, spec.description, spec.parse, { default: spec.default as string, env: spec.env });
    command.addOption(spec.choices ? o.choices(spec.choices) : o);
  }
  return command;
}

/**
 * The embedded kernel's database must be there already: a mistyped --db would otherwise become a
 * new, empty database, and every call would then answer "session expired" or "not found" instead
 * of naming the typo. `kernel seed` is the command that creates one; ":memory:" is an empty one.
 */
export function requireKernelDatabase(path: string): void {
  if (path === ":memory:" || existsSync(path)) return;
  throw environmentError(
    `the kernel database ${path} does not exist (check --db; mnote-tools kernel seed <file> --db ${path} creates one)`,
  );
}

/** Which kernel the options name: a remote one over HTTP or a CLI adapter, or the embedded one. */
export function kernelChoice(opts: RuntimeCliOptions): KernelChoice {
  const timeoutMs = opts.kernelTimeout;
  if (opts.kernelUrl && opts.kernelCli)
    throw usageError("--kernel-url and --kernel-cli both name a kernel: give one (or neither, for the embedded one)");
  if (opts.kernelUrl) return { kind: "http", url: opts.kernelUrl, token: opts.kernelToken, timeoutMs };
  if (opts.kernelCli) {
    const [command, ...args] = opts.kernelCli.trim().split(/\s+/);
    return { kind: "cli", command: command!, args, timeoutMs };
  }
  requireKernelDatabase(opts.db);
  return { kind: "embedded", path: opts.db };
}

/** A warning as one plain line on stderr (call; the servers log a start_warning line instead). */
function plainWarning(message: string): void {
  process.stderr.write(`mnote-tools: warning: ${message}\n`);
}

/** The runtime the options describe (its state opened, its kernel chosen; nothing asked of the kernel yet). */
export async function runtimeFrom(
  opts: RuntimeCliOptions,
  extra: {
    onCall?: (r: CallRecord) => void;
    onStoreError?: (e: unknown) => void;
    warn?: (message: string) => void;
  } = {},
): Promise<Runtime> {
  // a server says its warnings as JSON log lines (start_warning); call, as plain lines on stderr
  const warn = extra.warn ?? plainWarning;
  const { createRuntime } = await import("../runtime/runtime");
  const choice = kernelChoice(opts);
  // the shared stores first: one that does not answer stops the command before any warning is said
  const idempotency = opts.store ? await redisIdempotencyStore(opts.store, warn) : undefined;
  const grants = opts.grants ? await redisGrantStore(opts.grants) : undefined;
  const approval = await approvalFrom(opts, warn);
  const location = stateLocation(opts.state);
  const pg = location.kind === "postgres" ? await pgState(location.url) : undefined;
  // the tokens' key: the host's, else the one kept in Postgres (shared by every instance on it)
  if (pg && !approval.secret)
    approval.secret = await pg.approvalSecret().catch((e: Error) => {
      throw environmentError(`--state ${withoutPassword(opts.state)}: cannot use PostgreSQL (${e.message})`);
    });
  // a store that --store or --grants replaces gives its share of the pool back (else it would never end)
  if (pg && opts.store) await pg.idempotency.close();
  if (pg && opts.grants) await pg.grants.close();
  return createRuntime({
    approval,
    idempotency: idempotency ?? pg?.idempotency,
    grants: grants ?? pg?.grants,
    budgets: opts.budgets === "off" ? null : await budgetStoreFor(opts, pg),
    onStoreError: storeErrorNaming(opts.store, extra.onStoreError),
    kernel: choice,
    // with Postgres, the local SQLite state holds nothing shared: it lives in memory
    statePath: location.kind === "file" ? location.path : ":memory:",
    idempotencyTtlMs: opts.idempotencyTtl,
    leaseMs: opts.lease,
    // a remote kernel's transport times out first; this is the dispatcher's last resort
    kernelTimeoutMs: choice.kind === "embedded" ? undefined : choice.timeoutMs! + 5_000,
    onCall: extra.onCall,
  });
}

/**
 * The approval options: the policy file read, parsed and checked before anything uses it, and the
 * secret from MNOTE_APPROVAL_SECRET (never an option: command lines are visible to every user of
 * the machine). A policy or secret that cannot be used stops the command (exit 3).
 */
export async function approvalFrom(opts: RuntimeCliOptions, warn: (message: string) => void = plainWarning) {
  const { approvalPolicyFrom, ApprovalPolicyError } = await import("../runtime/approval/policy");
  const { secretFromText } = await import("../runtime/approval/secret");
  const { readFileSync } = await import("node:fs");
  let policy;
  if (opts.approvalPolicy !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.approvalPolicy, "utf8");
    } catch (e) {
      throw environmentError(`--approval-policy ${opts.approvalPolicy}: ${(e as Error).message}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw environmentError(`--approval-policy ${opts.approvalPolicy}: not JSON (${(e as Error).message})`);
    }
    try {
      policy = approvalPolicyFrom(value);
    } catch (e) {
      if (e instanceof ApprovalPolicyError)
        throw environmentError(`--approval-policy ${opts.approvalPolicy}: ${e.message}`);
      throw e;
    }
  }
  const text = process.env.MNOTE_APPROVAL_SECRET;
  let secret: Buffer | undefined;
  if (text !== undefined && text !== "") {
    try {
      secret = secretFromText(text);
    } catch (e) {
      throw environmentError((e as Error).message);
    }
  } else if (opts.store && stateLocation(opts.state).kind === "file") {
    warn(
      // (with a postgres:// state the key is kept in Postgres, shared by every instance)
      "--store is shared but MNOTE_APPROVAL_SECRET is not set: each state file keeps its own approval key, so an approval token is honoured only by instances on the same state file",
    );
  }
  return { policy, secret, ttlMs: opts.approvalTtl };
}

/**
 * The state on Postgres, its schema migrated (under the advisory lock). A Postgres that cannot be
 * reached at start stops the command (exit 3): without it no grant can be read, so no call could
 * succeed; once running, an outage answers mnote_tool_store_unavailable (retryable) until it is back.
 */
export async function pgState(url: string, migrate = true) {
  const { openPgState } = await import("../runtime/state/pg-state");
  try {
    return await openPgState({ url, migrate });
  } catch (e) {
    // unreachable, or refusing us (a wrong password, no such database): the operator's to fix
    throw environmentError(`--state ${withoutPassword(url)}: cannot use PostgreSQL (${(e as Error).message})`);
  }
}

/**
 * Where the budget counters live (docs/RELIABILITY.md, "Budgets"): with the idempotency records
 * (Redis with --store, else Postgres with a postgres:// state), so instances sharing those share
 * every budget; undefined: the state file's SQLite.
 */
async function budgetStoreFor(opts: RuntimeCliOptions, pg: { pool: import("pg").Pool } | undefined) {
  if (opts.store) {
    const { RedisBudgetStore } = await import("../runtime/state/budget-redis");
    return new RedisBudgetStore({ url: opts.store });
  }
  if (!pg) return undefined;
  const { PgBudgetStore } = await import("../runtime/state/budget-pg");
  return new PgBudgetStore(pg.pool);
}

/** The store error handler, its errors prefixed with the --store URL they come from (never a password). */
function storeErrorNaming(store: string | undefined, onStoreError?: (e: unknown) => void) {
  if (!store || !onStoreError) return onStoreError;
  const label = withoutPassword(store);
  return (e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    onStoreError(new Error(`--store ${label}: ${message}`, { cause: e }));
  };
}

/** Idempotency records in Redis, shared by every instance pointed at the same URL. */
export async function redisIdempotencyStore(url: string, warn: (message: string) => void = plainWarning) {
  const { RedisIdempotencyStore } = await import("../runtime/state/redis-idempotency-store");
  const store = new RedisIdempotencyStore({ url });
  // a Redis that does not answer at start is a mistake to name now (a port typo would otherwise start
  // silently and log store_unavailable at the first keyed write), as --grants does; an outage once
  // running is not fatal: writes then rely on the kernel's record (store_unavailable, with the URL)
  try {
    await answersWithin(() => store.ping());
  } catch (e) {
    await store.close();
    throw environmentError(`--store ${withoutPassword(url)}: Redis does not answer (${(e as Error).message})`);
  }
  // A Redis that forgets on restart (neither AOF nor RDB) loses the uncertain writes a model's retry
  // needs, and the used approval nonces: said loudly here (docs/RELIABILITY.md, "What each store
  // keeps"); the approval key is bound to the store's identity, so a forgotten nonce's token is dead.
  if ((await store.persistence()) === "forgets")
    warn(
      '--store Redis keeps nothing across a restart (appendonly no, save ""): after a restart a model\'s retry of a write whose answer was lost may write it again, and approval tokens issued before it stop working; turn on AOF (appendonly yes) or RDB snapshots',
    );
  return store;
}

/**
 * A start-up ping given three tries (each waits up to 2 s for the connection): a Redis that is there
 * answers the first at once, even on a loaded machine where one try could run out of time.
 */
async function answersWithin(ping: () => Promise<void>, tries = 3): Promise<void> {
  for (let n = 1; ; n++) {
    try {
      return await ping();
    } catch (e) {
      if (n >= tries) throw e;
    }
  }
}

/** Session grants in Redis, for instances on several machines. */
export async function redisGrantStore(url: string) {
  const { RedisGrantStore } = await import("../runtime/state/redis-grant-store");
  const grants = new RedisGrantStore(url);
  try {
    await answersWithin(() => grants.ping());
  } catch (e) {
    grants.close();
    // without its grants no call can be verified: a Redis that is down at start stops the command
    throw environmentError(`--grants ${withoutPassword(url)}: Redis does not answer (${(e as Error).message})`);
  }
  return grants;
}

/** A URL as it may be printed: a password in it is replaced. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(the URL)";
  }
}

/**
 * The tool_call log line of each call: info when it succeeded, warn when it failed (a refusal, a
 * caller's mistake, a kernel that is down), error when the kernel cannot be used as configured,
 * which needs an operator (with the cause: which token or adapter, never the token itself).
 */
export async function toolCallLogger(log: Logger): Promise<(r: CallRecord) => void> {
  const { ERR } = await import("../generated/registry");
  const { logEvent } = await import("../common/http/logger");
  return (r) => logEvent(log, r.ok ? "info" : r.code === ERR.kernelMisconfigured ? "error" : "warn", "tool_call", r);
}

/** How a log line or an error names the kernel: never a token, never a password in a URL. */
export function kernelLabel(choice: KernelChoice): string {
  if (choice.kind === "http") return withoutPassword(choice.url);
  if (choice.kind === "cli") return `the kernel adapter "${[choice.command, ...(choice.args ?? [])].join(" ")}"`;
  return `the embedded kernel ${choice.path}`;
}

/**
 * The start-up check of serve and mcp (runtime/kernel-check.ts), said in the log: a kernel that
 * refuses the token or whose adapter cannot start stops the command (exit 3); a kernel that does
 * not answer yet is a warning, and calls answer kernel_unavailable (retryable) until it does.
 */
export async function checkKernelAtStartup(runtime: Runtime, opts: RuntimeCliOptions, log: Logger): Promise<void> {
  const { checkKernel } = await import("../runtime/kernel-check");
  const { logEvent } = await import("../common/http/logger");
  const { ERR } = await import("../generated/registry");
  const kernel = kernelLabel(kernelChoice(opts));
  const check = await checkKernel(runtime.kernel, Math.min(opts.kernelTimeout, 5_000));
  if (check.ok) return logEvent(log, "info", "kernel_check", { kernel, ok: true, message: "the kernel answers" });
  if (check.misconfigured) throw environmentError(`cannot use the kernel: ${check.message}`);
  logEvent(log, "warn", "kernel_check", {
    kernel,
    ok: false,
    message: `the kernel does not answer (${check.message}); serving anyway: calls answer ${ERR.kernelUnavailable} until it does`,
  });
}
