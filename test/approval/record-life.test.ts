/**
 * The record's life cycle when the same call is asked again (docs/APPROVAL.md, "The record's life
 * cycle"): one call's questions are generations of record ids. Through the dispatcher on a
 * controlled clock, on SQLite and on a private Redis, the kernel's state asserted each time:
 * - approved on the page, never written, its token expired: the same call is a fresh question (a
 *   new record), never approval_expired again and again; that question's yes writes once;
 * - approved and written, its token expired: the same call replays the write, nobody is asked;
 * - declined on the page: the same call is told approval_denied once (by one of two retries at
 *   once), nothing written; the call after that is a fresh question;
 * - a record that waited past its expiry: a fresh question, and that question is asked again
 *   (the same record) on the next retry, not a new one each time.
 */
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import { ERR } from "../../generated/registry";
import { approvalIdOf } from "../../runtime/approval/token";
import { failed, ok, testRuntime, type Actor, type TestRuntime } from "../support/runtime";
import { privateRedis, redisServerPath } from "../support/fault-world";

const REPLACE = { content: [{ type: "paragraph", text: "Asked again." }], mode: "replace" };
const TTL_MS = 10 * 60_000;

interface World {
  t: TestRuntime;
  as: Actor;
  advance(ms: number): void;
}

type Open = (now: () => number) => Promise<TestRuntime>;

async function world(open: Open): Promise<World> {
  let clock = Date.now();
  const t = await open(() => clock);
  const as = await t.session({ actorId: "user_1" });
  return { t, as, advance: (ms) => void (clock += ms) };
}

/** The same call every time: one tool call id, one idempotency key (a framework's or MCP's retry). */
const call = (w: World, extra: Record<string, unknown> = {}) =>
  w.t.call("mnote.page.save", w.as, REPLACE, { toolCallId: "call_same", idempotencyKey: "key_same", ...extra });

async function asked(w: World) {
  const r = failed(await call(w));
  expect(r.error.code).toBe(ERR.approvalRequired);
  const approval = r.error.approval!;
  return { id: approvalIdOf(approval.token)!, token: approval.token, askedBefore: approval.askedBefore === true };
}

const statusOf = async (w: World, id: string) => (await w.t.runtime.approvalRecords.get(id))?.status;

/** The person answers on the page: the page's own store call (runtime/transports/approval-page.ts). */
const answer = (w: World, id: string, to: "approved" | "declined") =>
  w.t.runtime.approvalRecords.settle(id, to, {
    by: "user_1",
    reason: to === "declined" ? "declined" : null,
    now: Date.now(),
  });

function lifeCycle(name: string, open: () => Open | undefined) {
  describe(name, () => {
    let w: World;
    beforeEach(async () => {
      w = await world(open()!);
    });
    afterEach(() => w.t.close());

    it("approved, never written, token expired: a fresh question (a new record), and its yes writes once", async () => {
      const before = w.t.kernelStateHash();
      const first = await asked(w);
      expect((await answer(w, first.id, "approved")).changed).toBe(true);
      w.advance(TTL_MS + 1);
      const fresh = await asked(w);
      expect(fresh.id).not.toBe(first.id);
      expect(fresh.askedBefore).toBe(false);
      expect([await statusOf(w, first.id), await statusOf(w, fresh.id)]).toEqual(["approved", "pending"]);
      // asked again: the same (new) question, not a new one each time
      const again = await asked(w);
      expect([again.id, again.askedBefore]).toEqual([fresh.id, true]);
      expect(w.t.kernelStateHash()).toBe(before);
      const done = ok(await call(w, { approval: { token: again.token } }));
      expect(done.audit.approval).toMatchObject({ decision: "approved" });
      expect(w.t.count("command_log")).toBe(1);
      expect(w.t.kernelStateHash()).not.toBe(before);
    });

    it("approved and written, token expired: the same call replays its write, nobody is asked", async () => {
      const first = await asked(w);
      ok(await call(w, { approval: { token: first.token } }));
      const written = w.t.kernelStateHash();
      w.advance(TTL_MS + 1);
      const replay = ok(await call(w));
      expect(replay.audit).toMatchObject({ effect: "write", replayed: true });
      expect([w.t.count("command_log"), w.t.kernelStateHash()]).toEqual([1, written]);
    });

    it("declined on the page: told approval_denied once (of two retries at once), nothing written; then asked afresh", async () => {
      const before = w.t.kernelStateHash();
      const first = await asked(w);
      expect((await answer(w, first.id, "declined")).changed).toBe(true);
      const both = await Promise.all([call(w), call(w)]);
      const codes = both.map((r) => failed(r).error.code).sort();
      expect(codes).toEqual([ERR.approvalDenied, ERR.approvalRequired].sort());
      const denied = both.map(failed).find((r) => r.error.code === ERR.approvalDenied)!;
      expect(denied.audit?.approval).toMatchObject({ decision: "denied" });
      const fresh = await asked(w);
      expect(fresh.id).not.toBe(first.id);
      expect([await statusOf(w, first.id), await statusOf(w, fresh.id)]).toEqual(["declined", "pending"]);
      expect([w.t.kernelStateHash(), w.t.count("command_log")]).toEqual([before, 0]);
    });

    it("waited past its expiry: a fresh question, asked again as the same record on the next retry", async () => {
      const first = await asked(w);
      w.advance(TTL_MS + 1);
      const fresh = await asked(w);
      const again = await asked(w);
      expect(fresh.id).not.toBe(first.id);
      expect([again.id, again.askedBefore]).toEqual([fresh.id, true]);
      expect(w.t.count("command_log")).toBe(0);
    });
  });
}

lifeCycle(
  "the record's life cycle: SQLite",
  () => (now) => testRuntime({ now, approval: { policy: EMPTY_POLICY, ttlMs: TTL_MS } }),
);

const noRedis = redisServerPath() ? undefined : "no redis-server on PATH";
let redis: Awaited<ReturnType<typeof privateRedis>> | undefined;
let prefixes = 0;
if (noRedis) describe.skip(`the record's life cycle: Redis (${noRedis})`, () => it("skipped", () => {}));
else {
  beforeAll(async () => {
    redis = await privateRedis(false);
  });
  afterAll(() => redis?.stop());
  lifeCycle("the record's life cycle: Redis", () => async (now) => {
    const idempotency = new RedisIdempotencyStore({ url: redis!.url, prefix: `life${++prefixes}` });
    await idempotency.ping();
    return testRuntime({ now, idempotency, approval: { policy: EMPTY_POLICY, ttlMs: TTL_MS } });
  });
}
