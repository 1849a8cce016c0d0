/**
 * One yes is one write, whatever the nonce store forgets or whoever else holds the secret
 * (docs/RELIABILITY.md, "What each store keeps"). The approval key is the host's secret bound to
 * the identity of the store that uses nonces up (IdempotencyStore.storeId):
 *   - a Redis restarted without persistence forgot the used nonce, and its identity with it: the
 *     used token's record is gone and the person is asked again (before: it wrote a second time;
 *     then: "altered", final);
 *   - two instances sharing MNOTE_APPROVAL_SECRET but not the nonce store cannot honour each
 *     other's tokens (before: one approval could write once on each, silently);
 *   - the Redis store says whether it forgets (CONFIG GET appendonly / save), for the start-up warning.
 * The kernel's command log is counted after each step.
 */
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { createRuntime, type Runtime } from "../../runtime/runtime";
import { RedisIdempotencyStore } from "../../runtime/state/redis-idempotency-store";
import type { IdempotencyStore } from "../../runtime/state/idempotency-store";
import { seedKernel } from "../../kernel/seed";
import { EMPTY_POLICY } from "../../runtime/approval/policy";
import { demoSeed, failed, ok } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { tempDir } from "../support/tmp";
import { privateRedis, redisServerPath } from "../support/fault-world";
import { cliPath } from "../support/paths";

const ids = {
  sessionId: "s1",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read", "page.write"],
};
const title = (overrides: Record<string, unknown> = {}) =>
  makeRequest("mnote.page.update_title", { title: "Approved once" }, overrides, ids);

async function instance(dir: string, name: string, secret: Buffer, idempotency?: IdempotencyStore): Promise<Runtime> {
  const runtime = createRuntime({
    kernel: { kind: "embedded", path: join(dir, "kernel.db") },
    statePath: join(dir, `${name}.db`),
    ...(idempotency ? { idempotency } : {}),
    approval: { policy: EMPTY_POLICY, secret },
  });
  await runtime.grants.put({
    ...ids,
    capabilityScope: ids.capabilityScope as never,
    expiresAt: new Date(Date.now() + 3600e3).toISOString(),
  });
  return runtime;
}

function commands(runtime: Runtime): number {
  return (runtime.embeddedKernel!.db.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n;
}

describe("approval tokens and the nonce store", () => {
  it("two instances sharing the secret but not the nonce store cannot honour each other's tokens", async () => {
    const dir = tempDir("mnote-approval-stores-");
    const secret = randomBytes(32);
    const a = await instance(dir, "a", secret);
    seedKernel(a.embeddedKernel!, demoSeed());
    const b = await instance(dir, "b", secret);
    try {
      const token = failed(await a.dispatcher.dispatch(title())).error.approval!.token;
      const before = commands(a);
      // b's store never had the token's record: b asks its person again (a fresh token), never "altered"
      const refused = failed(await b.dispatcher.dispatch(title({ approval: { token } })));
      expect(refused.error.code).toBe("mnote_tool_approval_required");
      expect(refused.error.approval!.token).not.toBe(token);
      expect(commands(a)).toBe(before);
      // on the instance that issued it, the token is good, once
      ok(await a.dispatcher.dispatch(title({ approval: { token } })));
      expect(commands(a)).toBe(before + 1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  const redisSkip = redisServerPath() ? undefined : "skipped: redis-server not found (apt-get install redis-server)";
  (redisSkip ? it.skip : it)(
    `a Redis restarted without persistence: the used token does not write again${redisSkip ? ` (${redisSkip})` : ""}`,
    async () => {
      const redis = await privateRedis(false);
      const store = new RedisIdempotencyStore({ url: redis.url });
      const dir = tempDir("mnote-approval-forget-");
      const runtime = await instance(dir, "a", randomBytes(32), store);
      seedKernel(runtime.embeddedKernel!, demoSeed());
      try {
        await store.ping();
        expect(await store.persistence()).toBe("forgets");
        const token = failed(await runtime.dispatcher.dispatch(title())).error.approval!.token;
        ok(await runtime.dispatcher.dispatch(title({ approval: { token } })));
        const written = commands(runtime);
        await redis.restart();
        await store.ping();
        // the store forgot the record: the person would be asked again (issue 41), never "altered";
        // the title is already the approved one, so the fresh preview plans no change and asks nobody
        const again = await runtime.dispatcher.dispatch(title({ approval: { token }, keyOrigin: "caller" }));
        expect([again.ok, again.audit.approval?.decision]).toEqual([true, "unchanged"]);
        expect(commands(runtime)).toBe(written);
      } finally {
        await runtime.close();
        await store.close();
        await redis.stop();
      }
    },
    60_000,
  );

  (redisSkip ? it.skip : it)(
    `the start-up line names a Redis that forgets; one with AOF is quiet${redisSkip ? ` (${redisSkip})` : ""}`,
    async () => {
      for (const persist of [false, true]) {
        const redis = await privateRedis(persist);
        try {
          const scratch = tempDir("mnote-forget-cli-");
          const run = spawnSync(process.execPath, [cliPath, "call", "--store", redis.url], {
            cwd: scratch,
            input: "{}",
            env: {
              ...process.env,
              MNOTE_TOOLS_STATE: join(scratch, "state.db"),
              MNOTE_TOOLS_DB: ":memory:", // a kernel file that does not exist is refused before the warning
            },
            encoding: "utf8",
            timeout: 60_000,
          });
          expect([persist, /keeps nothing across a restart/.test(run.stderr)]).toEqual([persist, !persist]);
        } finally {
          await redis.stop();
        }
      }
    },
    120_000,
  );
});
