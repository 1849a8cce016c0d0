/** @mnote/runtime/redis: the grant and idempotency stores on Redis. Needs the optional peer ioredis. */
export { RedisGrantStore } from "./state/redis-grant-store";
export { RedisIdempotencyStore, type RedisStoreOptions } from "./state/redis-idempotency-store";
export { openRedis, redisReady } from "./state/redis-connection";
