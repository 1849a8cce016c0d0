/** The machine's Redis, for the scale-out tests: required, and named clearly when it is missing. */
import Redis from "ioredis";

export const REDIS_HOST = process.env.MNOTE_TEST_REDIS_HOST ?? "127.0.0.1";
export const REDIS_PORT = Number(process.env.MNOTE_TEST_REDIS_PORT ?? "6379");

export function redisUrl(db: number): string {
  return `redis://${REDIS_HOST}:${REDIS_PORT}/${db}`;
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
      `these tests need Redis at ${REDIS_HOST}:${REDIS_PORT} and it does not answer (${(e as Error).message}). ` +
        `Start it with: redis-server --daemonize yes --bind 127.0.0.1 --port ${REDIS_PORT} --save "" --appendonly no ` +
        `(.ci/run does this when it is missing).`,
    );
  }
  return client;
}
