/**
 * The runtime's whole state on PostgreSQL (`--state postgres://...`): one bounded pool shared by the
 * grant store and the idempotency store, the schema migrated on open (under the advisory lock,
 * pg-migrations.ts), the approval tokens' key kept in the database so every instance verifies every
 * other's tokens, and expired rows purged on open and then every purgeEveryMs, on the database's
 * clock.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { openPgPool, query, type PgPoolOptions } from "./pg-pool";
import { migrate } from "./pg-migrations";
import { PgGrantStore } from "./pg-grant-store";
import { PgIdempotencyStore } from "./pg-idempotency-store";

export interface PgStateOptions extends PgPoolOptions {
  /** Apply missing migrations on open (default true); `state migrate` does it alone. */
  migrate?: boolean;
  /** How often expired rows are deleted (default 60 s; 0: never, only on open). */
  purgeEveryMs?: number;
}

export interface PgState {
  pool: pg.Pool;
  grants: PgGrantStore;
  idempotency: PgIdempotencyStore;
  /** The approval tokens' HMAC key kept in the database: made by the first instance, read by all. */
  approvalSecret(): Promise<Buffer>;
  /** Deletes expired rows of every table now. */
  purge(): Promise<number>;
  close(): Promise<void>;
}

export async function openPgState(options: PgStateOptions): Promise<PgState> {
  const pool = openPgPool(options);
  try {
    if (options.migrate !== false) await migrate(pool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw e;
  }
  // both stores release the pool; it ends with the last (the runtime closes each of them)
  let users = 2;
  let timer: NodeJS.Timeout | undefined;
  const release = async () => {
    if (--users !== 0) return;
    if (timer) clearInterval(timer);
    await pool.end().catch(() => undefined);
  };
  const grants = new PgGrantStore(pool, release);
  const idempotency = new PgIdempotencyStore(pool, release, options.migrate !== false || (await hasServerSteps(pool)));
  const purge = async () => (await grants.purgeExpired()) + (await idempotency.purgeExpired());
  // a purge that fails (Postgres down) is tried again next time; reads ignore expired rows meanwhile
  await purge().catch(() => undefined);
  const every = options.purgeEveryMs ?? 60_000;
  if (every > 0) {
    timer = setInterval(() => void purge().catch(() => undefined), every);
    timer.unref();
  }
  return {
    pool,
    grants,
    idempotency,
    purge,
    approvalSecret: () => approvalSecret(pool),
    async close() {
      users = 1;
      await release();
    },
  };
}

/** Whether the schema has migration 3's functions (an instance opened with migrate off may find an older one). */
async function hasServerSteps(pool: pg.Pool): Promise<boolean> {
  const found = await query(pool, "SELECT 1 FROM mnote_schema_migrations WHERE version = 3").catch(() => undefined);
  return found?.rowCount === 1;
}

async function approvalSecret(pool: pg.Pool): Promise<Buffer> {
  await query(pool, "INSERT INTO mnote_approval_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", [
    randomBytes(32),
  ]);
  const result = await query<{ secret: Buffer }>(pool, "SELECT secret FROM mnote_approval_secret WHERE id = 1");
  return result.rows[0]!.secret;
}
