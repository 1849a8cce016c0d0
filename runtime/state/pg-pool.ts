/**
 * The PostgreSQL connection of the runtime's state: one bounded pool per process, failing fast.
 *
 * - Bounded: at most `max` connections (default 8: a keyed write holds one for a statement at a
 *   time, so 8 concurrent writes each find one and their commits share the server's WAL flushes),
 *   so N instances hold at most N x max of the server's connection slots; a call that finds every
 *   connection busy waits at most connectTimeoutMs, then fails.
 * - Prepared: every statement is named (prepared()), so each connection parses and plans it once,
 *   not on every call.
 * - Fast failure: a connection attempt, a statement and an idle transaction are each bounded, so a
 *   Postgres that is down or stuck is an error the caller can act on, not a hang.
 * - Every failure of the server or the network (refused, reset, timed out, shut down, too many
 *   connections, a serialization failure) becomes a StoreUnavailableError, whose code the
 *   dispatcher reads as mnote_tool_store_unavailable (retryable), as with SQLite and Redis; an
 *   error of ours (a SQL mistake) is left as it is, a bug.
 */
import { createHash } from "node:crypto";
import pg from "pg";

export interface PgPoolOptions {
  /** postgres://user:password@host:port/db */
  url: string;
  /** Most connections this process opens (default 8). */
  max?: number;
  /** Longest wait for a connection, new or from the pool (default 2000 ms). */
  connectTimeoutMs?: number;
  /** Longest statement, enforced by the server and by the client (default 5000 ms). */
  statementTimeoutMs?: number;
}

/** The code isStoreUnavailable (common/sqlite.ts) recognises for a store other than SQLite. */
export const STORE_UNAVAILABLE_CODE = "MNOTE_STORE_UNAVAILABLE";

/** Postgres cannot be used right now, through no fault of the request: retry later. */
export class StoreUnavailableError extends Error {
  readonly code = STORE_UNAVAILABLE_CODE;
  constructor(message: string, cause?: unknown) {
    super(`PostgreSQL is unavailable: ${message}`, { cause });
    this.name = "StoreUnavailableError";
  }
}

/**
 * SQLSTATE classes and codes that say "the server cannot serve this now": 08 connection exception,
 * 53 insufficient resources (too many connections, disk full), 57P operator intervention (admin or
 * crash shutdown, cannot connect now), 58 system error, 40001/40P01 serialization failure and
 * deadlock (the transaction was rolled back whole), 55P03 lock not available, 57014 statement
 * timeout (query_canceled).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|58)|^(40001|40P01|55P03|57014)$/;
/** Node's network errors, by code. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
/** pg's own words for a lost or never-made connection (these errors carry no code). */
const LOST =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection terminated unexpectedly|not queryable/i;

export function isPgUnavailable(e: unknown): boolean {
  if (e instanceof StoreUnavailableError) return true;
  if (typeof e !== "object" || e === null) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  const message = (e as { message?: unknown }).message;
  return typeof message === "string" && LOST.test(message);
}

/** The error as the runtime should see it: unavailable, or the original (a bug). */
export function storeError(e: unknown): unknown {
  if (e instanceof StoreUnavailableError || !isPgUnavailable(e)) return e;
  return new StoreUnavailableError((e as Error).message, e);
}

/** The pool's default size: one connection per write in flight for 8 concurrent writes. */
export const DEFAULT_POOL_MAX = 8;

/** Statement text -> its name: the set of texts is fixed (ours), so this stays small. */
const names = new Map<string, string>();

/**
 * A named statement: pg prepares it on a connection the first time and then only binds and
 * executes it (no parse, no plan per call). The name is a hash of the text, so two texts never
 * share a name and the same text always has the same one.
 */
export function prepared(text: string, values: unknown[] = []): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined) {
    name = `mnote_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values };
}

export function openPgPool(options: PgPoolOptions): pg.Pool {
  const statementTimeout = options.statementTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? DEFAULT_POOL_MAX,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
    idleTimeoutMillis: 10_000,
    // the server gives up on a statement, and the client on an answer a little later (a dead link)
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout + 1_000,
    idle_in_transaction_session_timeout: statementTimeout * 2,
    application_name: "mnote-tools",
  });
  // an idle connection that dies (a server restart) is dropped by the pool; the next query reconnects
  pool.on("error", () => undefined);
  // and one in use: its failure reaches the caller as the query's rejection, not as an uncaught event
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/** One query through the pool, as a prepared statement, its failure mapped (storeError). */
export async function query<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  try {
    return await pool.query<R>(prepared(text, values));
  } catch (e) {
    throw storeError(e);
  }
}

/**
 * fn inside BEGIN ... COMMIT on one connection; rolled back on any error. A connection that broke
 * is destroyed, not returned to the pool. When the connection is lost before COMMIT is answered,
 * the outcome is unknown to us: the caller gets StoreUnavailableError and must treat the effect as
 * possible (the dispatcher then relies on the kernel's own record, never writes twice).
 */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw storeError(e);
  }
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    if (isPgUnavailable(e)) broken = e as Error;
    else await client.query("ROLLBACK").catch((r: Error) => (broken = r));
    throw storeError(e);
  } finally {
    client.release(broken);
  }
}
