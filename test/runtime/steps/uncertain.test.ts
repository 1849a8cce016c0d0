/**
 * The uncertain-write step alone (runtime/dispatch/steps/uncertain.ts), the delivery rule: a
 * keyOrigin "tool_call" write is remembered by its slot from before it runs until its answer is
 * delivered, so a model's retry (a new tool call, a new key) replays it instead of writing again;
 * a definite failure forgets the slot, a retryable one keeps it.
 */
import type * as T from "../../../generated/types";
import { KernelRefusal, KernelTransportError } from "../../../generated/kernel/transport";
import { ERR } from "../../../generated/registry";
import { deliveryOf, uncertainWrite } from "../../../runtime/dispatch/steps/uncertain";
import { success, emptyEcho } from "../../../runtime/dispatch/steps/answer";
import { saveCall, stepDeps, thrown } from "./fixture";

const byModel = (key: string) => ({ idempotencyKey: key, keyOrigin: "tool_call" });
const answered = (outcome: Parameters<typeof success>[1]): T.ToolResponse => success(emptyEcho(), outcome);

describe("uncertain-write step", () => {
  it("a success not yet delivered: the model's retry with a new key replays it; once delivered, the same call writes anew", async () => {
    const t = stepDeps();
    try {
      const first = await uncertainWrite(t.deps, saveCall(undefined, byModel("k1")));
      expect(first.undelivered).toMatchObject({ sessionId: "sess_1", key: "k1" });
      const retry = await uncertainWrite(t.deps, saveCall(undefined, byModel("k2")));
      expect([retry.replayed, retry.commandId, retry.undelivered?.key]).toEqual([true, first.commandId, "k1"]);
      expect(t.kernel.writes()).toHaveLength(1);

      await deliveryOf(t.deps, answered(retry), retry.undelivered).delivered();
      expect(await t.store.uncertainKey("sess_1", retry.undelivered!.slot)).toBeUndefined();
      const later = await uncertainWrite(t.deps, saveCall(undefined, byModel("k3")));
      expect(later.replayed).toBe(false);
      expect(t.kernel.writes().map((w) => w.payload.write!.idempotencyKey)).toEqual(["k1", "k3"]);
    } finally {
      t.close();
    }
  });

  it("a key the caller made (keyOrigin caller) is used as it is: no slot, nothing to deliver", async () => {
    const t = stepDeps();
    try {
      const first = await uncertainWrite(t.deps, saveCall(undefined, { idempotencyKey: "k1", keyOrigin: "caller" }));
      const other = await uncertainWrite(t.deps, saveCall(undefined, { idempotencyKey: "k2", keyOrigin: "caller" }));
      expect([first.undelivered, other.undelivered, other.replayed]).toEqual([undefined, undefined, false]);
      expect(t.kernel.writes()).toHaveLength(2);
    } finally {
      t.close();
    }
  });

  it("a retryable failure keeps the slot (the retry reuses the key); a definite one forgets it", async () => {
    const t = stepDeps();
    try {
      t.kernel.failNextWrite(new KernelRefusal(ERR.storeUnavailable));
      expect((await thrown(() => uncertainWrite(t.deps, saveCall(undefined, byModel("k1"))))).constructor).toBe(
        KernelRefusal,
      );
      t.kernel.failNextWrite(new KernelRefusal(ERR.conflict, "revision"));
      await thrown(() => uncertainWrite(t.deps, saveCall(undefined, byModel("k2"))));
      // the second attempt wrote under the first's key, remembered across the retryable failure
      expect(t.kernel.writes().map((w) => w.payload.write!.idempotencyKey)).toEqual(["k1", "k1"]);
      const next = await uncertainWrite(t.deps, saveCall(undefined, byModel("k3")));
      expect(next.undelivered?.key).toBe("k3");
      expect(t.kernel.applied.size).toBe(1);
    } finally {
      t.close();
    }
  });

  it("an answer lost on its way from the kernel: the kernel is asked, and the write it committed is the outcome, still held by the slot", async () => {
    const t = stepDeps();
    try {
      // the kernel applied the write, and its answer was lost: reconcile finds it applied
      const real = t.kernel.port.call.bind(t.kernel.port);
      let lose = true;
      t.kernel.port.call = (async (command: never, payload: never) => {
        const reply = await real(command, payload);
        if (lose && (payload as { write?: unknown }).write) {
          lose = false;
          throw new KernelTransportError("unavailable", "connection reset");
        }
        return reply;
      }) as typeof t.kernel.port.call;
      const first = await uncertainWrite(t.deps, saveCall(undefined, byModel("k1")));
      expect([first.replayed, first.undelivered?.key]).toEqual([true, "k1"]);
      expect(t.kernel.applied.size).toBe(1);
    } finally {
      t.close();
    }
  });

  it("a failure's response has nothing to deliver", async () => {
    const t = stepDeps();
    try {
      const slot = { sessionId: "sess_1", slot: "s", key: "k" };
      await t.store.rememberUncertain("sess_1", "s", "k", 60_000, 8);
      const failed = { ok: false } as T.ToolResponse;
      await deliveryOf(t.deps, failed, slot).delivered();
      expect(await t.store.uncertainKey("sess_1", "s")).toBe("k");
    } finally {
      t.close();
    }
  });
});
