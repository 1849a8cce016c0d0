/**
 * A Redis connection that fails fast: no offline queue and a short command timeout, so an
 * unreachable Redis is an error the caller can act on (route around, refuse retryably), not a hang.
 */
import Redis from "ioredis";

export function openRedis(url: string, commandTimeoutMs = 1_000): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // connection errors surface per command; keep them off the process's error handler
  redis.on("error", () => undefined);
  return redis;
}

/** Resolves once the connection is ready and answers PING; rejects after timeoutMs otherwise. */
export async function redisReady(redis: Redis, timeoutMs = 2_000): Promise<void> {
  if (redis.status !== "ready") {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`Redis at ${redis.options.host}:${redis.options.port} did not answer within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      redis.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  await redis.ping();
}
