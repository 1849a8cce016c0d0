/**
 * Two runtime instances on one Redis honour one approval token once: the nonce is used up with
 * SET NX in the shared store, whichever instance the approved call reaches, even when both get it
 * at the same moment.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { randomBytes } from "node:crypto";
import type Redis from "ioredis";
import { createRuntime, type Runtime } from "../../runtime/runtime";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import { seedKernel } from "../../kernel/seed";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { demoSeed, failed, hashDatabaseFile, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { describeRedis, REDIS_DB, redisUrl, requireRedis } from "../support/redis";

const DB = REDIS_DB.approval;
const REPLACE = { content: [{ type: "paragraph", text: "Approved body." }], mode: "replace" };
const ids = {
  sessionId: "s1",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write"],
};

describeRedis("approval tokens across instances on one Redis", () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await requireRedis(DB);
  });
  beforeEach(() => redis.flushdb());
  afterAll(() => redis?.disconnect());

  async function twoInstances(): Promise<{ a: Runtime; b: Runtime; kernelPath: string; close(): Promise<void> }> {
    const dir = mkdtempSync(join(tmpdir(), "mnote-approval-redis-"));
    const kernelPath = join(dir, "kernel.db");
    // one secret for both (MNOTE_APPROVAL_SECRET in production), each its own state and Redis connection
    const secret = randomBytes(32);
    const open = async (name: string) => {
      const idempotency = new RedisIdempotencyStore({ url: redisUrl(DB), prefix: "approval-test" });
      await idempotency.ping();
      return createRuntime({
        kernel: { kind: "embedded", path: kernelPath },
        statePath: join(dir, `${name}.db`),
        idempotency,
        approval: { policy: EMPTY_POLICY, secret },
      });
    };
    const a = await open("a");
    seedKernel(a.embeddedKernel!, demoSeed());
    const b = await open("b");
    for (const r of [a, b])
      await r.grants.put({
        sessionId: ids.sessionId,
        workspaceId: ids.workspaceId,
        documentId: ids.documentId,
        actorId: ids.actorId,
        capabilityScope: ["page.read", "page.write"],
        expiresAt: new Date(Date.now() + 3600e3).toISOString(),
      });
    return { a, b, kernelPath, close: async () => void (await Promise.all([a.close(), b.close()])) };
  }

  it("instance a previews, instance b writes, and the token is used up for both", async () => {
    const { a, b, kernelPath, close } = await twoInstances();
    const token = failed(await a.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, {}, ids))).error.approval!
      .token;
    ok(await b.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, { approval: { token } }, ids)));
    const written = hashDatabaseFile(kernelPath);
    for (const r of [a, b]) {
      const again = failed(
        await r.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, { approval: { token } }, ids)),
      );
      expect([again.error.code, again.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
    }
    expect(hashDatabaseFile(kernelPath)).toBe(written);
    await close();
  });

  it("the same token sent to both instances at once (different keys): exactly one write", async () => {
    const { a, b, kernelPath, close } = await twoInstances();
    const token = failed(await a.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, {}, ids))).error.approval!
      .token;
    const answers = await Promise.all(
      [a, b, a, b].map((r) =>
        r.dispatcher.dispatch(makeRequest("mnote.page.save", REPLACE, { approval: { token } }, ids)),
      ),
    );
    expect(answers.filter((r) => r.ok)).toHaveLength(1);
    for (const r of answers.filter((x) => !x.ok))
      expect(r.ok ? null : [r.error.code, r.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(kernelPath, { readonly: true });
    expect((db.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n).toBe(1);
    db.close();
    await close();
  });
});
