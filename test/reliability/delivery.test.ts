/**
 * The delivery rule in the dispatcher (docs/RELIABILITY.md): a keyOrigin "tool_call" write stays
 * uncertain until a caller has RECEIVED its outcome, not merely until the kernel committed it.
 * dispatchTracked() answers with a Delivery the transport confirms; until then, and across a
 * restart of the runtime, a retry of the same call (a new key) replays the committed write. The
 * kernel's tables are counted after each step. The transports' own confirmations (HTTP finish,
 * stdout, MCP send) are exercised through real processes in fault-matrix.test.ts.
 */
import { join } from "node:path";
import type Database from "better-sqlite3";
import { isRealWrite, LOSSY_SESSION, lossyRuntime } from "../support/lossy-kernel";
import { makeRequest } from "../support/requests";
import { failed, ok } from "../support/runtime";
import { tempDir } from "../support/tmp";
import { DEFAULT_APPROVAL_TTL_MS } from "../../runtime/dispatch/dispatcher";

const note = (key: string, content = "Finding.") =>
  makeRequest(
    "mnote.artifact.create_ai_note",
    { content },
    { idempotencyKey: key, keyOrigin: "tool_call" },
    LOSSY_SESSION,
  );
const slots = (t: { state: Database.Database }) =>
  (t.state.prepare("SELECT COUNT(*) AS n FROM uncertain_writes").get() as { n: number }).n;
const notes = (t: { count(table: string, where?: string): number }) => t.count("artifacts", "type = 'ai_note'");

describe("a write stays uncertain until its answer is delivered", () => {
  it("committed but never delivered: a new tool call replays it; once delivered, the same call on purpose is a new write", async () => {
    const t = await lossyRuntime();
    const first = await t.dispatcher.dispatchTracked(note("tc-1"));
    expect(ok(first.response).audit.replayed).toBe(false);
    // the caller hung up: delivered() is never called
    expect(slots(t)).toBe(1);
    const retry = await t.dispatcher.dispatchTracked(note("tc-2"));
    expect(ok(retry.response).audit.replayed).toBe(true);
    expect(ok(retry.response).result.artifactId).toBe(ok(first.response).result.artifactId);
    expect(notes(t)).toBe(1);
    await retry.delivery.delivered();
    expect(slots(t)).toBe(0);
    expect(ok(await t.dispatcher.dispatch(note("tc-3"))).audit.replayed).toBe(false);
    expect(notes(t)).toBe(2);
  });

  it("the slot is in the state store before the write runs: a runtime that died mid-write leaves it for the restarted one", async () => {
    const statePath = join(tempDir("mnote-delivery-"), "runtime.db");
    let seenSlots = -1;
    const dying = await lossyRuntime(
      (_command, payload) => {
        // the kernel commits; the process "dies" before answering anyone
        if (isRealWrite(payload)) seenSlots = slots(dying);
        return isRealWrite(payload) ? "lose" : "pass";
      },
      { statePath, dispatcher: { reconcileMs: 0 } },
    );
    await dying.dispatcher.dispatchTracked(note("tc-a"));
    expect(seenSlots).toBe(1);
    dying.state.close();
    const restarted = await lossyRuntime(() => "pass", { statePath, kernel: dying.kernel });
    expect(ok(await restarted.dispatcher.dispatch(note("tc-b"))).audit.replayed).toBe(true);
    expect(notes(restarted)).toBe(1);
  });

  it("a late delivery of an earlier write does not release the slot a newer identical write holds", async () => {
    const t = await lossyRuntime();
    const first = await t.dispatcher.dispatchTracked(note("tc-1"));
    const replay = await t.dispatcher.dispatchTracked(note("tc-2"));
    await replay.delivery.delivered(); // the model read it: released
    const second = await t.dispatcher.dispatchTracked(note("tc-3")); // on purpose: a new write, not delivered yet
    expect(ok(second.response).audit.replayed).toBe(false);
    await first.delivery.delivered(); // the first write's answer, confirmed late
    expect(slots(t)).toBe(1);
    expect(ok(await t.dispatcher.dispatch(note("tc-4"))).result.artifactId).toBe(ok(second.response).result.artifactId);
    expect(notes(t)).toBe(2);
  });

  it("a definite failure forgets the slot at once (nothing was written), a retryable one keeps it", async () => {
    let lose = true;
    const t = await lossyRuntime(
      (command, payload) => {
        if (command === "command.status") return "fail";
        return isRealWrite(payload) && lose ? "lose" : "pass";
      },
      { dispatcher: { reconcileMs: 0 } },
    );
    expect(failed((await t.dispatcher.dispatchTracked(note("tc-1"))).response).error.code).toBe(
      "mnote_tool_outcome_unknown",
    );
    expect(slots(t)).toBe(1);
    lose = false;
    const bad = makeRequest(
      "mnote.artifact.create_ai_note",
      { content: "" },
      { idempotencyKey: "tc-x", keyOrigin: "tool_call" },
      LOSSY_SESSION,
    );
    expect((await t.dispatcher.dispatchTracked(bad)).response.ok).toBe(false);
    expect(slots(t)).toBe(1);
    expect(ok(await t.dispatcher.dispatch(note("tc-2"))).audit.replayed).toBe(true);
    expect(slots(t)).toBe(0);
    expect(notes(t)).toBe(1);
  });
});

describe("an approved write that committed, retried after its token expired", () => {
  const title = (key: string, token?: string) =>
    makeRequest(
      "mnote.page.update_title",
      { title: "Approved title" },
      { idempotencyKey: key, keyOrigin: "tool_call", ...(token ? { approval: { token } } : {}) },
      LOSSY_SESSION,
    );

  it("replays the committed result instead of approval_expired; an expired token for a write never made stays expired", async () => {
    let clock = Date.now();
    const t = await lossyRuntime(() => "pass", { dispatcher: { now: () => clock } });
    const challenge = failed(await t.dispatcher.dispatch(title("tc-1")));
    expect(challenge.error.code).toBe("mnote_tool_approval_required");
    const token = challenge.error.approval!.token;
    const committed = await t.dispatcher.dispatchTracked(title("tc-1", token)); // its answer never arrives
    expect(ok(committed.response).audit.effect).toBe("write");
    const commands = t.count("command_log");
    clock += DEFAULT_APPROVAL_TTL_MS + 60_000;
    const retry = ok(await t.dispatcher.dispatch(title("tc-2", token)));
    expect(retry.audit).toMatchObject({
      effect: "write",
      replayed: true,
      commandId: committed.response.audit.commandId,
    });
    expect(t.count("command_log")).toBe(commands);

    // another title: the same one again would change nothing, and a no-change call asks nobody
    const another = makeRequest(
      "mnote.page.update_title",
      { title: "Another title" },
      { idempotencyKey: "tc-5", keyOrigin: "tool_call" },
      LOSSY_SESSION,
    );
    const fresh = failed(await t.dispatcher.dispatch(another));
    clock += DEFAULT_APPROVAL_TTL_MS + 60_000;
    const expired = makeRequest(
      "mnote.page.update_title",
      { title: "Another title" },
      { idempotencyKey: "tc-6", keyOrigin: "caller", approval: { token: fresh.error.approval!.token } },
      LOSSY_SESSION,
    );
    expect(failed(await t.dispatcher.dispatch(expired)).error.code).toBe("mnote_tool_approval_expired");
    expect(t.count("command_log")).toBe(commands);
  });
});
