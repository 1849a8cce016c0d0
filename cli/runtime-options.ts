/** The options every runtime verb shares (call, serve, mcp), and turning them into a Runtime. */
import type { Command } from "commander";
import type { KernelChoice, Runtime } from "../runtime/runtime";
import type { CallRecord } from "../runtime/dispatch/dispatcher";

export interface RuntimeCliOptions {
  db: string;
  state: string;
  kernelUrl?: string;
  kernelToken?: string;
  kernelCli?: string;
  kernelTimeout: string;
  idempotencyTtl: string;
  lease: string;
  store?: string;
  grants?: string;
}

export const DEFAULT_DB = ".mnote/kernel.db";
export const DEFAULT_STATE = ".mnote/runtime.db";

export function addRuntimeOptions(command: Command): Command {
  return command
    .option(
      "--db <path>",
      "the embedded reference kernel's database (env MNOTE_TOOLS_DB)",
      process.env.MNOTE_TOOLS_DB ?? DEFAULT_DB,
    )
    .option(
      "--state <path>",
      "the runtime's state: session grants and idempotency records (env MNOTE_TOOLS_STATE)",
      process.env.MNOTE_TOOLS_STATE ?? DEFAULT_STATE,
    )
    .option(
      "--kernel-url <url>",
      "use a remote kernel over HTTP instead of the embedded one (env MNOTE_KERNEL_URL)",
      process.env.MNOTE_KERNEL_URL,
    )
    .option(
      "--kernel-token <token>",
      "bearer token for the remote kernel (env MNOTE_KERNEL_TOKEN)",
      process.env.MNOTE_KERNEL_TOKEN,
    )
    .option(
      "--kernel-cli <command>",
      'use a kernel CLI adapter (request on stdin, reply on stdout), e.g. "mnote-cli kernel"; split on spaces (env MNOTE_KERNEL_CLI)',
      process.env.MNOTE_KERNEL_CLI,
    )
    .option("--kernel-timeout <ms>", "longest wait for one kernel command", "10000")
    .option("--idempotency-ttl <ms>", "how long a keyed write is remembered", String(24 * 60 * 60 * 1000))
    .option(
      "--store <url>",
      "where idempotency records live: the state file (default) or redis://host:port/db, shared by several instances (env MNOTE_TOOLS_STORE)",
      process.env.MNOTE_TOOLS_STORE,
    )
    .option(
      "--grants <url>",
      "where session grants live: the state file (default) or redis://host:port/db, for instances on several machines (env MNOTE_TOOLS_GRANTS)",
      process.env.MNOTE_TOOLS_GRANTS,
    )
    .option(
      "--lease <ms>",
      "how long a keyed write holds its key without a heartbeat (the running process renews it every third of it); a process that dies frees the key within it",
      "5000",
    );
}

export function kernelChoice(opts: RuntimeCliOptions): KernelChoice {
  const timeoutMs = positiveInt(opts.kernelTimeout, "--kernel-timeout");
  if (opts.kernelUrl) return { kind: "http", url: opts.kernelUrl, token: opts.kernelToken, timeoutMs };
  if (opts.kernelCli) {
    const [command, ...args] = opts.kernelCli.trim().split(/\s+/);
    return { kind: "cli", command: command!, args, timeoutMs };
  }
  return { kind: "embedded", path: opts.db };
}

export async function runtimeFrom(
  opts: RuntimeCliOptions,
  extra: { onCall?: (r: CallRecord) => void; onStoreError?: (e: unknown) => void } = {},
): Promise<Runtime> {
  const { createRuntime } = await import("../runtime/runtime");
  const choice = kernelChoice(opts);
  return createRuntime({
    idempotency: opts.store ? await redisIdempotencyStore(opts.store) : undefined,
    grants: opts.grants ? await redisGrantStore(opts.grants) : undefined,
    onStoreError: extra.onStoreError,
    kernel: choice,
    statePath: opts.state,
    idempotencyTtlMs: positiveInt(opts.idempotencyTtl, "--idempotency-ttl"),
    leaseMs: positiveInt(opts.lease, "--lease"),
    // a remote kernel's transport times out first; this is the dispatcher's last resort
    kernelTimeoutMs: choice.kind === "embedded" ? undefined : choice.timeoutMs! + 5_000,
    onCall: extra.onCall,
  });
}

export function positiveInt(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not "${text}"`);
  return n;
}

function redisUrl(url: string, option: string): string {
  if (!/^rediss?:\/\//.test(url)) throw new Error(`${option} must be a redis:// URL, not "${url}"`);
  return url;
}

/** Idempotency records in Redis, shared by every instance pointed at the same URL. */
export async function redisIdempotencyStore(url: string) {
  const { RedisIdempotencyStore } = await import("../runtime/state/redis-idempotency-store");
  const store = new RedisIdempotencyStore({ url: redisUrl(url, "--store") });
  // a Redis that is down at start is not fatal: writes then rely on the kernel's record
  await store.ping().catch(() => undefined);
  return store;
}

/** Session grants in Redis, for instances on several machines. */
export async function redisGrantStore(url: string) {
  const { RedisGrantStore } = await import("../runtime/state/redis-grant-store");
  const grants = new RedisGrantStore(redisUrl(url, "--grants"));
  await grants.ping();
  return grants;
}
