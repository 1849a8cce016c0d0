/**
 * The "late heartbeat" hypothesis for the fault matrix's one double write, tested on purpose with a
 * forced stall and a controlled clock, not timing luck: the first writer of a model's tool call is
 * paused on its way to the kernel, the store's clock is moved past its lease in one step (its
 * heartbeat never ran: a process starved past its lease), and the model's retry (a new call id, so a
 * new key) takes the claim over and writes. The write is fenced by the kernel, not by the lease:
 * both writers run under the slot's key, so under one idempotency scope, and the kernel checks its
 * record and commits the write with it in one transaction. Exactly one note, whichever reaches the
 * kernel first; the stalled writer's late complete changes nothing (its token no longer holds).
 */
import { openDatabase } from "../../common/sqlite";
import { createDispatcher } from "../../runtime/dispatch/dispatcher";
import type { KernelPort } from "../../runtime/dispatch/api";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { allowAllPolicy } from "../support/approval";
import { makeRequest } from "../support/requests";
import { ok, testRuntime } from "../support/runtime";

const TOOL = "mnote.artifact.create_ai_note";
const LEASE_MS = 60_000; // the heartbeat (every 20 s of real time) never runs during the test

describe("a claim taken over after its lease ran out while its writer was stalled", () => {
  it("the retry and the stalled first writer both reach the kernel: one note, one command", async () => {
    const t = await testRuntime();
    const db = openDatabase(":memory:");
    let clock = Date.now();
    const store = new SqliteIdempotencyStore(db, () => clock);
    // the first write is held before the kernel until released (the stall); the others pass
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const firstAtKernel = new Promise<void>((r) => (reached = r));
    let writes = 0;
    const port = t.runtime.kernel;
    const kernel: KernelPort = {
      accessCheck: (input) => port.accessCheck(input),
      commandStatus: (input) => port.commandStatus(input),
      call: (async (command: string, payload: { write?: unknown }) => {
        if (payload.write && ++writes === 1) {
          reached();
          await stalled;
        }
        return (port.call as (c: string, p: unknown) => Promise<unknown>)(command, payload);
      }) as KernelPort["call"],
    };
    const dispatcher = createDispatcher({
      kernel,
      grants: t.runtime.grants,
      idempotency: store,
      leaseMs: LEASE_MS,
      kernelTimeoutMs: null,
      approval: { policy: allowAllPolicy() },
    });
    try {
      const as = await t.session({ actorId: "user_1" });
      const args = { content: "the one note, lease taken over" };
      const byModel = (id: string) =>
        makeRequest(TOOL, args, { toolCallId: id, idempotencyKey: `key_${id}`, keyOrigin: "tool_call" }, as);
      const first = dispatcher.dispatchTracked(byModel("tc-1"));
      await firstAtKernel;
      // within the lease the retry is told in_progress
      const early = await dispatcher.dispatch(byModel("tc-2"));
      expect(early.ok ? "ok" : early.error.code).toBe("mnote_tool_in_progress");
      // the first writer stalls past its lease; the retry takes the claim over and writes
      clock += 2 * LEASE_MS;
      const retry = ok(await dispatcher.dispatch(byModel("tc-3")));
      expect(retry.audit.replayed).toBe(false);
      release();
      const late = ok((await first).response);
      // the stalled writer's command reached the kernel after the retry's: replayed, the same command
      expect(writes).toBe(2);
      expect(late.audit).toMatchObject({ replayed: true, commandId: retry.audit.commandId });
      expect(late.result.artifactId).toBe(retry.result.artifactId);
      expect(t.count("artifacts", "type = 'ai_note' AND content = ?", args.content)).toBe(1);
      expect(t.count("command_log", "command_name = ?", "artifact.aiNote.create")).toBe(1);
      // the store holds one record, done, with the command both answers name
      const records = db.prepare("SELECT state, outcome_json FROM idempotency_records").all() as Array<{
        state: string;
        outcome_json: string;
      }>;
      expect(records.map((r) => [r.state, JSON.parse(r.outcome_json).commandId])).toEqual([
        ["done", retry.audit.commandId],
      ]);
    } finally {
      await t.close();
      db.close();
    }
  });
});
