/**
 * The idempotency store on Redis, for several runtime instances behind a load balancer.
 *
 * One key per idempotency scope: `<prefix>:idem:<scope>` (scope is the sha256 hex of workspace,
 * actor, tool and key), holding a JSON record {state, fp, token, outcome?}. Its Redis expiry is
 * the lease while the write runs (state "pending") and the idempotency window once it is done
 * (state "done"), so one time unit, milliseconds (PX), covers both. Each operation is one Lua
 * script, so claim, complete and release are atomic and check the fingerprint on every path; a
 * keyOrigin "tool_call" write's slot read, slot remembered and claim are one script too
 * (claimUncertain: one round trip, as SQLite's one transaction).
 *
 * Keys of uncertain writes: one hash per session, `<prefix>:uncertain:<sessionId>`, field = slot
 * (64 hex), value = JSON {k: key, c: created, e: expires} (ms). The hash expires (PX) with its newest
 * slot; a field is read only while it lives, and remembering one drops the expired fields and, past
 * the cap, the oldest (one script: at most cap + 1 fields to look at).
 *
 * Approval nonces: `<prefix>:approval:<nonce>` = the owner (the approved write's idempotency scope),
 * set NX and expiring with the token, so instances sharing the Redis honour a token once. The
 * store's identity, `<prefix>:store-id` (set NX, no expiry), binds the approval key to this data: a
 * Redis that lost its data (restarted without persistence) answers a new id, and the tokens whose
 * nonces it forgot no longer verify.
 *
 * Redis is a fast path, not the guard: the kernel refuses to apply a command twice on its own.
 * The connection fails fast (redis-connection.ts) so an unreachable Redis surfaces as an error the
 * dispatcher routes around instead of a hang.
 */
import type { Redis } from "ioredis";
import { openRedis, redisReady } from "./redis-connection";
import { CLAIM, COMPLETE, RELEASE, RENEW, REMEMBER, CLAIM_UNCERTAIN, FORGET, STORE_ID, CONSUME } from "./redis-scripts";
import type {
  ApprovalUse,
  Claim,
  IdempotencyStore,
  SlotOfWrite,
  StoredOutcome,
  UncertainClaim,
} from "./idempotency-store";
import { randomBytes, randomUUID } from "node:crypto";
import { RedisApprovalRecords } from "./approval-redis";

/** The Claim a script's answer says, the token being the one sent. */
function claimOf(kind: string | undefined, outcome: string | undefined, token: string): Claim {
  if (kind === "claimed") return { kind, token };
  if (kind === "replay") return { kind, outcome: JSON.parse(outcome!) as StoredOutcome };
  if (kind === "conflict" || kind === "in_progress") return { kind };
  throw new Error(`unexpected claim answer from Redis: ${String(kind)}`);
}

interface ScriptedRedis extends Redis {
  mnoteStoreId(key: string, fresh: string): Promise<string>;
  mnoteForget(key: string, slot: string, idempotencyKey: string): Promise<number>;
  mnoteConsume(key: string, owner: string, ttlMs: number): Promise<string>;
  mnoteRenew(key: string, token: string, leaseMs: number): Promise<number>;
  mnoteRemember(
    key: string,
    slot: string,
    idempotencyKey: string,
    now: number,
    ttlMs: number,
    cap: number,
  ): Promise<number>;
  mnoteClaim(key: string, fingerprint: string, token: string, leaseMs: number): Promise<[string, string?]>;
  mnoteClaimUncertain(
    hash: string,
    record: string,
    slot: string,
    idempotencyKey: string,
    now: number,
    ttlMs: number,
    cap: number,
    fingerprint: string,
    token: string,
    leaseMs: number,
  ): Promise<[string, string, string?, string?]>;
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
    this.redis.defineCommand("mnoteClaimUncertain", { numberOfKeys: 2, lua: CLAIM_UNCERTAIN });
    this.redis.defineCommand("mnoteComplete", { numberOfKeys: 1, lua: COMPLETE });
    this.redis.defineCommand("mnoteRelease", { numberOfKeys: 1, lua: RELEASE });
    this.redis.defineCommand("mnoteRenew", { numberOfKeys: 1, lua: RENEW });
    this.redis.defineCommand("mnoteRemember", { numberOfKeys: 1, lua: REMEMBER });
    this.redis.defineCommand("mnoteConsume", { numberOfKeys: 1, lua: CONSUME });
    this.redis.defineCommand("mnoteForget", { numberOfKeys: 1, lua: FORGET });
    this.redis.defineCommand("mnoteStoreId", { numberOfKeys: 1, lua: STORE_ID });
  }

  approvalRecords(now: () => number): RedisApprovalRecords {
    return new RedisApprovalRecords({ redis: this.redis, prefix: this.prefix }, now);
  }

  key(scope: string): string {
    return `${this.prefix}:idem:${scope}`;
  }

  async claim(scope: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    // a claim's holder id, compared for equality only (randomUUID: Node's batched entropy)
    const token = randomUUID();
    const [kind, outcome] = await this.redis.mnoteClaim(this.key(scope), fingerprint, token, leaseMs);
    return claimOf(kind, outcome, token);
  }

  /** The slot's key read, the slot remembered and the claim taken in one script (CLAIM_UNCERTAIN). */
  async claimUncertain(
    slot: SlotOfWrite,
    scopeOf: (key: string) => string,
    fingerprint: string,
    leaseMs: number,
  ): Promise<UncertainClaim> {
    const token = randomUUID();
    const scope = scopeOf(slot.key);
    const [key, had, kind, outcome] = await this.redis.mnoteClaimUncertain(
      this.uncertainHash(slot.sessionId),
      this.key(scope),
      slot.slot,
      slot.key,
      Date.now(),
      slot.ttlMs,
      slot.cap,
      fingerprint,
      token,
      leaseMs,
    );
    const remembered = had === "1" ? key : undefined;
    if (key === slot.key) return { remembered, key, scope, claim: claimOf(kind, outcome, token) };
    // the slot holds an earlier write's key: that key's scope is claimed (the runtime hashes scopes)
    const held = scopeOf(key);
    return { remembered, key, scope: held, claim: await this.claim(held, fingerprint, leaseMs) };
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

  async renew(scope: string, token: string, leaseMs: number): Promise<void> {
    await this.redis.mnoteRenew(this.key(scope), token, leaseMs);
  }

  private uncertainHash(sessionId: string): string {
    return `${this.prefix}:uncertain:${sessionId}`;
  }

  async uncertainKey(sessionId: string, slot: string): Promise<string | undefined> {
    const text = await this.redis.hget(this.uncertainHash(sessionId), slot);
    if (!text) return undefined;
    const entry = JSON.parse(text) as { k: string; e: number };
    return entry.e > Date.now() ? entry.k : undefined;
  }

  async rememberUncertain(sessionId: string, slot: string, key: string, ttlMs: number, cap: number): Promise<void> {
    await this.redis.mnoteRemember(this.uncertainHash(sessionId), slot, key, Date.now(), ttlMs, cap);
  }

  async forgetUncertain(sessionId: string, slot: string, key?: string): Promise<void> {
    // one script: the slot goes only while it holds `key` (an empty key: whatever it holds)
    await this.redis.mnoteForget(this.uncertainHash(sessionId), slot, key ?? "");
  }

  async consumeApproval(nonce: string, owner: string, ttlMs: number): Promise<ApprovalUse> {
    // one script: SET NX for the token's remaining life, and on a miss whose it is
    const answer = await this.redis.mnoteConsume(
      `${this.prefix}:approval:${nonce}`,
      owner,
      Math.max(1, Math.ceil(ttlMs)),
    );
    if (answer === "fresh" || answer === "same" || answer === "used") return answer;
    throw new Error(`unexpected approval answer from Redis: ${String(answer)}`);
  }

  async storeId(): Promise<string> {
    // no expiry: it lives as long as this Redis keeps its data (a restart without persistence: a new id)
    return this.redis.mnoteStoreId(`${this.prefix}:store-id`, randomBytes(16).toString("hex"));
  }

  /**
   * Whether this Redis keeps its data across a restart: "forgets" with neither AOF (appendonly) nor
   * RDB snapshots (save ""), "unknown" when CONFIG is not allowed (a managed Redis), else "keeps".
   */
  async persistence(): Promise<"keeps" | "forgets" | "unknown"> {
    try {
      const aof = (await this.redis.config("GET", "appendonly")) as string[];
      const save = (await this.redis.config("GET", "save")) as string[];
      return aof[1] === "yes" || (save[1] ?? "").trim() !== "" ? "keeps" : "forgets";
    } catch {
      return "unknown";
    }
  }

  /** Resolves once connected, or rejects with the reason (for start-up checks and tests). */
  ping(): Promise<void> {
    return redisReady(this.redis);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
