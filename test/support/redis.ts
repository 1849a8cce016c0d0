/**
 * Redis for the scale-out suites. Jest's global setup (test/support/redis-server.js) starts a
 * private redis-server on a free port unless MNOTE_TEST_REDIS_PORT / MNOTE_TEST_REDIS_HOST name a
 * running one, and hands the port over in MNOTE_TEST_REDIS_PORT. Without a redis-server binary the
 * suites are skipped with the reason (failed instead under MNOTE_REQUIRE_REDIS=1, as in CI).
 *
 * Jest runs suites in parallel workers against the same server: each suite owns one database
 * (REDIS_DB), which it may flush, and keys of its own only there.
 */
import Redis from "ioredis";

export const REDIS_HOST = process.env.MNOTE_TEST_REDIS_HOST ?? "127.0.0.1";
export const REDIS_PORT = Number(process.env.MNOTE_TEST_REDIS_PORT ?? "6379");

/** The database of each suite that uses Redis: one each, never shared, so a flush hits no other suite. */
export const REDIS_DB = {
  idempotencyStore: 9,
  instances: 10,
  grantStore: 12,
  uncertainAndRenew: 13,
  approval: 14,
  approvalRecords: 8,
  storeSuite: 11,
  budgets: 15,
} as const;

export function redisUrl(db: number): string {
  return `redis://${REDIS_HOST}:${REDIS_PORT}/${db}`;
}

/** Why Redis cannot be had here (no redis-server binary), or undefined. */
export function redisMissing(): string | undefined {
  return process.env.MNOTE_TEST_REDIS_SKIP || undefined;
}

/**
 * describe() for a suite that needs Redis. Without redis-server the suite is reported as skipped
 * with the reason and install line, and none of its hooks run; MNOTE_REQUIRE_REDIS=1 (CI) turns
 * that into one failing test instead.
 */
export function describeRedis(name: string, body: () => void): void {
  const missing = redisMissing();
  if (!missing) {
    describe(name, body);
    return;
  }
  if (process.env.MNOTE_REQUIRE_REDIS === "1") {
    describe(name, () => {
      it("has Redis", () => {
        throw new Error(`${missing}; MNOTE_REQUIRE_REDIS=1 makes Redis mandatory`);
      });
    });
    return;
  }
  // the summary reporter prints the reason under Jest's summary (test/support/summary-reporter.js)
  describe.skip(`${name} (skipped: ${missing})`, body);
}

/** A client on db, after checking Redis answers; a clear error when it does not. */
export async function requireRedis(db: number): Promise<Redis> {
  const client = new Redis(redisUrl(db), {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    throw new Error(
      `these tests need Redis at ${REDIS_HOST}:${REDIS_PORT} (MNOTE_TEST_REDIS_PORT) and it does not answer ` +
        `(${(e as Error).message}). Unset MNOTE_TEST_REDIS_PORT and MNOTE_TEST_REDIS_HOST to let the tests start ` +
        `their own redis-server.`,
    );
  }
  return client;
}
