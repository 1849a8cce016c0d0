/**
 * The idempotency store on Redis, for several runtime instances behind a load balancer.
 *
 * One key per idempotency scope: `<prefix>:idem:<scope>` (scope is the sha256 hex of workspace,
 * actor, tool and key), holding a JSON record {state, fp, token, outcome?}. Its Redis expiry is
 * the lease while the write runs (state "pending") and the idempotency window once it is done
 * (state "done"), so one time unit, milliseconds (PX), covers both. Each operation is one Lua
 * script, so claim, complete and release are atomic and check the fingerprint on every path.
 *
 * Redis is a fast path, not the guard: the kernel refuses to apply a command twice on its own.
 * The connection fails fast (redis-connection.ts) so an unreachable Redis surfaces as an error the
 * dispatcher routes around instead of a hang.
 */
import type { Redis } from "ioredis";
import { openRedis, redisReady } from "./redis-connection";
import type { Claim, IdempotencyStore, StoredOutcome } from "./idempotency-store";
import { randomBytes } from "node:crypto";

const CLAIM = `
local current = redis.call('GET', KEYS[1])
if current then
  local record = cjson.decode(current)
  if record.fp ~= ARGV[1] then return {'conflict'} end
  if record.state == 'done' then return {'replay', record.outcome} end
  return {'in_progress'}
end
redis.call('SET', KEYS[1], cjson.encode({state = 'pending', fp = ARGV[1], token = ARGV[2]}), 'PX', ARGV[3])
return {'claimed'}
`;

const COMPLETE = `
local current = redis.call('GET', KEYS[1])
if current then
  local record = cjson.decode(current)
  if record.token ~= ARGV[1] then return 0 end
end
redis.call('SET', KEYS[1], cjson.encode({state = 'done', fp = ARGV[2], token = ARGV[1], outcome = ARGV[3]}), 'PX', ARGV[4])
return 1
`;

const RELEASE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local record = cjson.decode(current)
if record.token == ARGV[1] and record.state == 'pending' then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface ScriptedRedis extends Redis {
  mnoteClaim(key: string, fingerprint: string, token: string, leaseMs: number): Promise<[string, string?]>;
  mnoteComplete(key: string, token: string, fingerprint: string, outcome: string, ttlMs: number): Promise<number>;
  mnoteRelease(key: string, token: string): Promise<number>;
}

export interface RedisStoreOptions {
  /** redis://host:port/db */
  url: string;
  /** Key prefix (default "mnote"), so several deployments can share one Redis. */
  prefix?: string;
  /** Per-command timeout in ms (default 1000). */
  commandTimeoutMs?: number;
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;

  constructor(options: RedisStoreOptions) {
    this.prefix = options.prefix ?? "mnote";
    this.redis = openRedis(options.url, options.commandTimeoutMs) as ScriptedRedis;
    this.redis.defineCommand("mnoteClaim", { numberOfKeys: 1, lua: CLAIM });
    this.redis.defineCommand("mnoteComplete", { numberOfKeys: 1, lua: COMPLETE });
    this.redis.defineCommand("mnoteRelease", { numberOfKeys: 1, lua: RELEASE });
  }

  key(scope: string): string {
    return `${this.prefix}:idem:${scope}`;
  }

  async claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    const token = randomBytes(12).toString("hex");
    const [kind, outcome] = await this.redis.mnoteClaim(this.key(scope), fingerprint, token, leaseMs);
    if (kind === "claimed") return { kind, token };
    if (kind === "replay") return { kind, outcome: JSON.parse(outcome!) as StoredOutcome };
    if (kind === "conflict" || kind === "in_progress") return { kind };
    throw new Error(`unexpected claim answer from Redis: ${String(kind)}`);
  }

  async complete(
    scope: string,
    token: string,
    fingerprint: string,
    outcome: StoredOutcome,
    ttlMs: number,
  ): Promise<void> {
    await this.redis.mnoteComplete(this.key(scope), token, fingerprint, JSON.stringify(outcome), ttlMs);
  }

  async release(scope: string, token: string): Promise<void> {
    await this.redis.mnoteRelease(this.key(scope), token);
  }

  /** Resolves once connected, or rejects with the reason (for start-up checks and tests). */
  ping(): Promise<void> {
    return redisReady(this.redis);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
