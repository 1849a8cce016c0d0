/**
 * The claim step alone (runtime/dispatch/steps/claim.ts), the idempotency rule: one key, one write;
 * the same key again replays, with other args conflicts, while running is in_progress; a failed
 * write frees its key; a store that cannot be reached leaves the guard to the kernel's record.
 */
import { KernelRefusal } from "../../../generated/kernel/transport";
import { ERR } from "../../../generated/registry";
import { idempotencyScope } from "../../../runtime/dispatch/keys";
import { keyedWrite, releaseClaims } from "../../../runtime/dispatch/steps/claim";
import { REPLACE, saveCall, stepDeps, thrown } from "./fixture";

const APPEND = { content: [{ type: "paragraph", text: "One more." }], mode: "append" };

describe("claim step", () => {
  it("writes once per key: the same key again replays the stored outcome, the kernel sees one write", async () => {
    const t = stepDeps();
    try {
      const first = await keyedWrite(t.deps, saveCall(), "k1", "fp1");
      const again = await keyedWrite(t.deps, saveCall(), "k1", "fp1");
      expect([first.replayed, again.replayed]).toEqual([false, true]);
      expect(again.result).toEqual(first.result);
      expect(again.commandId).toBe(first.commandId);
      expect(t.kernel.writes()).toHaveLength(1);
      expect(t.kernel.writes()[0]!.payload.write!.idempotencyKey).toBe("k1");
    } finally {
      t.close();
    }
  });

  it("the same key with other args is an idempotency conflict, and nothing reaches the kernel", async () => {
    const t = stepDeps();
    try {
      await keyedWrite(t.deps, saveCall(), "k1", "fp1");
      const e = await thrown(() => keyedWrite(t.deps, saveCall(APPEND), "k1", "fp2"));
      expect(e.code).toBe(ERR.idempotencyConflict);
      expect(t.kernel.writes()).toHaveLength(1);
    } finally {
      t.close();
    }
  });

  it("while a write runs, the same write is in_progress; releaseClaims frees the key for a retry", async () => {
    const t = stepDeps();
    try {
      const open = t.kernel.holdWrites();
      const running = keyedWrite(t.deps, saveCall(), "k1", "fp1");
      await new Promise((r) => setImmediate(r));
      expect(t.deps.held.size).toBe(1);
      expect((await thrown(() => keyedWrite(t.deps, saveCall(), "k1", "fp1"))).code).toBe(ERR.inProgress);
      await releaseClaims(t.deps);
      expect(t.deps.held.size).toBe(0);
      // the store holds the key no more: the next claim of it is taken at once
      const { request } = saveCall();
      const scope = idempotencyScope({ ...request, toolName: request.toolName, idempotencyKey: "k1" });
      expect(await t.store.claim(scope, "fp1", 1000)).toMatchObject({ kind: "claimed" });
      open();
      await running;
      expect(t.deps.held.size).toBe(0);
    } finally {
      t.close();
    }
  });

  it("a write the kernel refused frees its key: the retry reaches the kernel and applies once", async () => {
    const t = stepDeps();
    try {
      t.kernel.failNextWrite(new KernelRefusal(ERR.conflict, "revision"));
      expect((await thrown(() => keyedWrite(t.deps, saveCall(), "k1", "fp1"))).constructor).toBe(KernelRefusal);
      expect(t.kernel.applied.size).toBe(0);
      const retry = await keyedWrite(t.deps, saveCall(), "k1", "fp1");
      expect(retry.replayed).toBe(false);
      expect(t.kernel.writes()).toHaveLength(2);
      expect(t.kernel.applied.size).toBe(1);
    } finally {
      t.close();
    }
  });

  it("a store that cannot claim is reported and skipped: the write still reaches the kernel with its key", async () => {
    const t = stepDeps();
    try {
      const down = new Error("store down");
      t.store.claim = () => Promise.reject(down);
      const outcome = await keyedWrite(t.deps, saveCall(REPLACE), "k1", "fp1");
      expect(outcome.effect).toBe("write");
      expect(t.storeErrors).toEqual([down]);
      expect(t.kernel.writes().map((w) => w.payload.write!.idempotencyKey)).toEqual(["k1"]);
    } finally {
      t.close();
    }
  });
});
