/**
 * Budget counters in Redis (`--store redis://...`), shared by every instance on that Redis: one
 * Lua script per call (one round trip, atomic): it reads every counter of the call, refuses when one
 * is at its limit (counting nothing, answering its remaining window from PTTL), else INCRs each and
 * starts the window (PEXPIRE) of a counter it created. Windows run on Redis' clock; a counter
 * deletes itself when its window ends.
 */
import type { Redis } from "ioredis";
import { openRedis, redisReady } from "./redis-connection";
import type { BudgetCounter, BudgetStore, BudgetTake } from "./budget-store";

const TAKE = `
local window = tonumber(ARGV[1])
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[i + 1]) then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 1 then
      redis.call('PEXPIRE', KEYS[i], window)
      ttl = window
    end
    return {i - 1, ttl}
  end
end
for i = 1, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], window) end
end
return {-1, 0}
`;

type ScriptedRedis = Redis & {
  mnoteBudgetTake(numberOfKeys: number, ...keysAndArgs: Array<string | number>): Promise<[number, number]>;
};

export interface RedisBudgetOptions {
  /** redis://host:port/db */
  url: string;
  /** Key prefix (default "mnote"), as the idempotency store's. */
  prefix?: string;
  commandTimeoutMs?: number;
}

export class RedisBudgetStore implements BudgetStore {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;
  private connected: Promise<void> | undefined;

  constructor(options: RedisBudgetOptions) {
    this.prefix = options.prefix ?? "mnote";
    this.redis = openRedis(options.url, options.commandTimeoutMs) as ScriptedRedis;
    this.redis.defineCommand("mnoteBudgetTake", { lua: TAKE });
  }

  async take(counters: readonly BudgetCounter[], windowMs: number): Promise<BudgetTake> {
    // no offline queue: the first connection is waited for (once, briefly); after that a Redis that
    // is down fails the take at once (the dispatcher reports it and the call goes on)
    if (this.redis.status !== "ready") await (this.connected ??= redisReady(this.redis, 1_000).catch(() => undefined));
    const keys = counters.map((c) => `${this.prefix}:budget:${c.key}`);
    const [over, ttl] = await this.redis.mnoteBudgetTake(
      keys.length,
      ...keys,
      windowMs,
      ...counters.map((c) => c.limit),
    );
    return over < 0 ? { ok: true } : { ok: false, over, retryAfterMs: Math.max(1, ttl) };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
