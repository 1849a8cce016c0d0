/**
 * Approval records on Redis (runtime/approval/record.ts), for instances that share only Redis:
 * one hash per record, `<prefix>:approval-record:<id>` {body, status, by, at, reason, exp, written},
 * expiring RECORD_KEPT_MS past the token. A settle is one Lua script (status still pending, not
 * past its expiry unless it expires it), so of two instances answering at once exactly one moves it.
 */
import type { Redis } from "ioredis";
import { openRedis, redisReady } from "./redis-connection";
import {
  RECORD_KEPT_MS,
  recordBody,
  recordFrom,
  type ApprovalRecord,
  type ApprovalRecordStore,
  type FinalStatus,
  type Settled,
} from "../approval/record";

const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'body', ARGV[1], 'status', 'pending', 'exp', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// only on a record still kept (never a hash without a body, which would outlive nothing)
const MARK_WRITTEN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'written', ARGV[1])
return 1
`;

const SETTLE = `
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
if ARGV[1] ~= 'expired' and tonumber(redis.call('HGET', KEYS[1], 'exp')) <= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'by', ARGV[2], 'at', ARGV[3], 'reason', ARGV[4])
return 1
`;

interface ScriptedRedis extends Redis {
  mnoteApprovalCreate(key: string, body: string, expiresAt: number, ttlMs: number): Promise<number>;
  mnoteApprovalSettle(key: string, to: string, by: string, at: number, reason: string): Promise<number>;
  mnoteApprovalMarkWritten(key: string, scope: string): Promise<number>;
}

export class RedisApprovalRecords implements ApprovalRecordStore {
  private readonly redis: ScriptedRedis;
  private readonly prefix: string;

  /** Its own connection (url: closed by close()), or the idempotency store's (redis: its owner closes it). */
  private readonly owned: boolean;

  constructor(
    options: { url: string; prefix?: string; commandTimeoutMs?: number } | { redis: Redis; prefix?: string },
    private readonly now: () => number = Date.now,
  ) {
    this.prefix = options.prefix ?? "mnote";
    this.owned = "url" in options;
    this.redis = ("url" in options ? openRedis(options.url, options.commandTimeoutMs) : options.redis) as ScriptedRedis;
    this.redis.defineCommand("mnoteApprovalCreate", { numberOfKeys: 1, lua: CREATE });
    this.redis.defineCommand("mnoteApprovalSettle", { numberOfKeys: 1, lua: SETTLE });
    this.redis.defineCommand("mnoteApprovalMarkWritten", { numberOfKeys: 1, lua: MARK_WRITTEN });
  }

  /** Resolves once the connection answers (a store on its own connection, before its first command). */
  ready(): Promise<void> {
    return redisReady(this.redis);
  }

  private key(id: string): string {
    return `${this.prefix}:approval-record:${id}`;
  }

  async create(record: ApprovalRecord): Promise<void> {
    const ttl = Math.max(1, record.expiresAt - this.now()) + RECORD_KEPT_MS;
    const made = await this.redis.mnoteApprovalCreate(this.key(record.id), recordBody(record), record.expiresAt, ttl);
    if (made !== 1) throw new Error(`approval record ${record.id} exists already`);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const h = await this.redis.hgetall(this.key(id));
    if (!h.body || !h.status) return undefined;
    // an empty string is how the script stores "none" (Redis has no null)
    const record = recordFrom(h.body, h.status, {
      by: h.by ? h.by : null,
      at: h.at ? Number(h.at) : null,
      reason: h.reason ? h.reason : null,
    });
    return h.written ? { ...record, writtenUnder: h.written } : record;
  }

  async settle(
    id: string,
    to: FinalStatus,
    answer: { by: string | null; reason: string | null; now: number },
  ): Promise<Settled> {
    const moved = await this.redis.mnoteApprovalSettle(
      this.key(id),
      to,
      answer.by ?? "",
      answer.now,
      answer.reason ?? "",
    );
    return { changed: moved === 1, record: await this.get(id) };
  }

  async markWritten(id: string, scope: string): Promise<void> {
    await this.redis.mnoteApprovalMarkWritten(this.key(id), scope);
  }

  async close(): Promise<void> {
    if (this.owned) this.redis.disconnect();
  }
}
