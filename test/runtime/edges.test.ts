/**
 * The runtime's edges (issue 18), in process, asserting the kernel's state and the runtime's
 * records: validate-then-raise in TypeScript (no prototype from untrusted keys, dryRun never
 * coerced), full / read-only / busy stores (store_unavailable, nothing half-written, the key free
 * again), claims kept alive by a heartbeat and released on demand, and uncertain writes
 * remembered by the dispatcher (keyOrigin tool_call).
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { raiseCall, raiseRefusal } from "../../generated/raise";
import { ERR, modelView, toolByName } from "../../generated/registry";
import type { SessionGrant } from "../../generated/types";
import { buildRequest } from "../../runtime/transports/request-builder";
import { requestFromModelCall } from "../../runtime/transports/model-call";
import { DEFAULT_LEASE_MS } from "../../runtime/dispatch/dispatcher";
import { ToolFailure } from "../../runtime/dispatch/tool-failure";
import { SqliteIdempotencyStore } from "../../runtime/state/sqlite-idempotency-store";
import { ReferenceKernel } from "../../kernel/reference-kernel";
import { seedKernel } from "../../kernel/seed";
import { openDatabase } from "../../common/sqlite";
import { isRealWrite, lossyRuntime, LOSSY_SESSION } from "../support/lossy-kernel";
import { demoSeed, failed, ok, testRuntime } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { tempDir } from "../support/tmp";

const grant: SessionGrant = {
  ...LOSSY_SESSION,
  capabilityScope: LOSSY_SESSION.capabilityScope as SessionGrant["capabilityScope"],
  expiresAt: new Date(Date.now() + 3600e3).toISOString(),
};
const ids = { runId: "run_1", toolCallId: "call_1", idempotencyKey: "k_1", keyOrigin: "tool_call" as const };
const save = toolByName("mnote.page.save")!;

describe("validate, then raise (TypeScript)", () => {
  it("the raise step builds objects no member name can give a prototype; the validators then refuse the member", () => {
    const raw = JSON.parse(
      '{"content": [{"type": "paragraph", "text": "x", "__proto__": {"level": 99}}], "mode": null}',
    );
    const raised = raiseCall(save.name, raw) as { content: Array<Record<string, unknown>> };
    const block = raised.content[0]!;
    expect(Object.getPrototypeOf(block)).toBe(Object.prototype);
    expect(block.level).toBeUndefined(); // nothing inherited
    expect(Object.keys(block)).toEqual(["type", "text", "__proto__"]); // an own member, for the validators
    expect("mode" in raised).toBe(false); // null still means absent
    expect(save.validateArgs(raised)).toBe(false);
    expect(save.validateArgs.errors![0]).toMatchObject({ keyword: "additionalProperties" });
    // and the raise step itself names it, at any depth, before anything reads it
    expect(raiseRefusal(save.name, raw)).toEqual({ pointer: "/content/0/__proto__", keyword: "additionalProperties" });
    expect(raiseRefusal(save.name, { content: [], nested: { a: [{ constructor: 1 }] } })).toEqual({
      pointer: "/nested/a/0/constructor",
      keyword: "additionalProperties",
    });
  });

  it("requestFromModelCall refuses before raising: prototype names, non-boolean dryRuns, wrong shapes; the envelope's pointers", () => {
    const refused = (args: unknown) => {
      const built = requestFromModelCall(save, args, grant, ids);
      if (built.ok) throw new Error(`built a request from ${JSON.stringify(args)}`);
      return built.response;
    };
    const base = { content: [{ type: "paragraph", text: "x" }] };
    expect(refused(JSON.parse('{"__proto__": {"dryRun": true}, "content": []}')).error).toMatchObject({
      code: ERR.invalidInput,
      pointer: "/args/__proto__",
      rule: { keyword: "additionalProperties", pointer: "/args/__proto__" },
    });
    for (const dryRun of ["true", 1, "yes", {}, [], 0, "false"])
      expect([dryRun, refused({ ...base, dryRun }).error]).toMatchObject([
        dryRun,
        { code: ERR.invalidInput, pointer: "/dryRun", rule: { keyword: "type", limit: "boolean" } },
      ]);
    expect(refused([base]).error).toMatchObject({ pointer: "/args", rule: { keyword: "type", limit: "object" } });
    // the model-arguments schema: a wrong type where the raise step reads, under its envelope pointer
    expect(refused({ content: "x" }).error).toMatchObject({ pointer: "/args/content", rule: { keyword: "type" } });
    expect(refused({ ...base, mode: 3 }).error).toMatchObject({ pointer: "/args/mode" });
    expect(refused({ ...base, unknown: 1 }).error).toMatchObject({
      pointer: "/args/unknown",
      rule: { keyword: "additionalProperties" },
    });
    // a refusal echoes what it knows, under the tool's canonical name (the model view renames it)
    const r = refused({ ...base, dryRun: "true" });
    expect(r).toMatchObject({ ok: false, toolName: save.name, toolCallId: "call_1", audit: { effect: "none" } });
    expect(save.validateResponse(r)).toBe(true);
    expect(modelView(r).toolName).toBe(save.providerName);
  });

  it("what models send still passes: nulls for optional fields, true/false/null dryRun", () => {
    for (const dryRun of [true, false, null, undefined]) {
      const built = requestFromModelCall(
        save,
        { content: [{ type: "paragraph", text: "x", id: null, level: null }], mode: null, baseRevision: null, dryRun },
        grant,
        ids,
      );
      expect(built).toMatchObject({
        ok: true,
        request: {
          dryRun: dryRun === true,
          args: { content: [{ type: "paragraph", text: "x" }] },
          keyOrigin: "tool_call",
        },
      });
    }
  });

  it("buildRequest alone refuses a non-boolean dryRun (never reads it as false)", () => {
    expect(() => buildRequest(save, { content: [], dryRun: "true" }, grant, ids)).toThrow(ToolFailure);
    expect(buildRequest(save, { content: [] }, grant, ids).dryRun).toBe(false);
  });
});

/** A reference kernel on a file (so a second connection can hold its lock), seeded. */
function fileKernel(): { kernel: ReferenceKernel; path: string } {
  const path = join(tempDir("mnote-edges-"), "kernel.db");
  const kernel = new ReferenceKernel({ path });
  seedKernel(kernel, demoSeed());
  return { kernel, path };
}

const noteRequest = (key: string) =>
  makeRequest("mnote.artifact.create_ai_note", { content: "A note." }, { idempotencyKey: key }, LOSSY_SESSION);

describe("a full, read-only or busy store: store_unavailable, nothing half-written, the key free again", () => {
  const cases: Array<[string, (k: ReferenceKernel) => () => void]> = [
    [
      "a full disk (SQLITE_FULL: max_page_count)",
      (k) => {
        const pages = (k.db.pragma("page_count", { simple: true }) as number) + 0;
        k.db.pragma(`max_page_count = ${pages}`);
        return () => k.db.pragma("max_page_count = 1073741823");
      },
    ],
    [
      "a read-only database (SQLITE_READONLY: query_only)",
      (k) => {
        k.db.pragma("query_only = ON");
        return () => k.db.pragma("query_only = OFF");
      },
    ],
  ];

  it.each(cases)("%s in the kernel", async (_name, breakIt) => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    const before = t.kernelStateHash();
    const mend = breakIt(t.kernel);
    const big = { content: Array.from({ length: 300 }, (_, i) => ({ type: "paragraph", text: `p${i} `.repeat(40) })) };
    const r = failed(await t.call("mnote.page.save", as, big, { idempotencyKey: "full-1" }));
    expect(r.error).toMatchObject({ code: "mnote_tool_store_unavailable", retryable: true });
    expect(r.error.message).toMatch(/存储/);
    expect(t.kernelStateHash()).toBe(before); // nothing half-written
    // the key is free: no claim left in the runtime's store
    expect((t.runtime.state.prepare("SELECT COUNT(*) AS n FROM idempotency_records").get() as { n: number }).n).toBe(0);
    mend();
    const again = ok(await t.call("mnote.page.save", as, big, { idempotencyKey: "full-1" }));
    expect(again.audit.replayed).toBe(false);
    expect(t.count("command_log")).toBe(1);
    await t.close();
  });

  it("a kernel write lock held past the busy timeout (SQLITE_BUSY)", async () => {
    const { kernel, path } = fileKernel();
    kernel.db.pragma("busy_timeout = 50");
    const t = await lossyRuntime(() => "pass", { kernel });
    const before = t.kernelStateHash();
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    const r = failed(await t.dispatcher.dispatch(noteRequest("busy-1")));
    other.exec("ROLLBACK");
    other.close();
    expect(r.error).toMatchObject({ code: "mnote_tool_store_unavailable", retryable: true });
    expect(t.kernelStateHash()).toBe(before);
    ok(await t.dispatcher.dispatch(noteRequest("busy-1")));
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
    kernel.close();
  });

  it("the runtime's own state full too (the release fails): the short lease frees the key", async () => {
    const state = openDatabase(":memory:");
    const store = new SqliteIdempotencyStore(state);
    let releaseFails = true;
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    const flaky = Object.assign(Object.create(store) as SqliteIdempotencyStore, {
      release: (scope: string, token: string) => (releaseFails ? Promise.reject(full) : store.release(scope, token)),
    });
    const leaseMs = 300;
    let writes = 0;
    const t = await lossyRuntime(
      (command, payload) => {
        if (isRealWrite(payload) && writes++ === 0) {
          t.kernel.db.pragma("query_only = ON"); // the kernel's disk too
        }
        return "pass";
      },
      { idempotency: flaky, dispatcher: { leaseMs } },
    );
    const first = failed(await t.dispatcher.dispatch(noteRequest("lease-1")));
    expect(first.error.code).toBe("mnote_tool_store_unavailable");
    t.kernel.db.pragma("query_only = OFF");
    releaseFails = false;
    // the claim could not be released: it holds until its lease runs out, no longer (no heartbeat now)
    expect(failed(await t.dispatcher.dispatch(noteRequest("lease-1"))).error.code).toBe("mnote_tool_in_progress");
    await new Promise((r) => setTimeout(r, leaseMs * 4));
    expect(ok(await t.dispatcher.dispatch(noteRequest("lease-1"))).audit.replayed).toBe(false);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
  });
});

describe("claims: a heartbeat keeps a running write's claim; releaseClaims gives them up", () => {
  it("a write running for many leases keeps its claim (a duplicate is in_progress); releaseClaims frees it at once", async () => {
    const leaseMs = 200;
    const t = await lossyRuntime(() => "pass", { dispatcher: { leaseMs } });
    // a kernel port that holds the first real write until released
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const held = new Promise<void>((r) => (arrived = r));
    const state = t.state;
    const slow = await lossyRuntime(() => "pass", {
      kernel: t.kernel,
      statePath: undefined,
      idempotency: t.idempotency,
      dispatcher: {
        leaseMs,
        kernel: {
          accessCheck: (p) => t.kernel.accessCheck(p),
          commandStatus: (p) => t.kernel.commandStatus(p),
          call: async (command, payload) => {
            if (isRealWrite(payload)) {
              arrived();
              await gate;
            }
            return t.kernel.call(command, payload);
          },
        },
        grants: t.grants,
      },
    });
    const running = slow.dispatcher.dispatch(noteRequest("hb-1"));
    await held;
    await new Promise((r) => setTimeout(r, leaseMs * 5)); // five leases: renewed all along
    expect(failed(await t.dispatcher.dispatch(noteRequest("hb-1"))).error.code).toBe("mnote_tool_in_progress");
    const pending = () =>
      (state.prepare("SELECT COUNT(*) AS n FROM idempotency_records WHERE state = 'pending'").get() as { n: number }).n;
    expect(pending()).toBe(1);
    await slow.dispatcher.releaseClaims(); // what `call` does on SIGTERM
    expect(pending()).toBe(0);
    release();
    expect(ok(await running).audit.replayed).toBe(false);
    // the duplicate now reaches the kernel's record: a replay, one note
    expect(ok(await t.dispatcher.dispatch(noteRequest("hb-1"))).audit.replayed).toBe(true);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
  });

  it("the default lease is short (a killed process frees the key within it)", () => {
    expect(DEFAULT_LEASE_MS).toBeLessThanOrEqual(5_000);
  });
});

describe("uncertain writes are remembered by the dispatcher (keyOrigin tool_call)", () => {
  const modelCall = (key: string, content = "Finding.", origin: "tool_call" | "caller" | null = "tool_call") =>
    makeRequest(
      "mnote.artifact.create_ai_note",
      { content },
      { idempotencyKey: key, ...(origin ? { keyOrigin: origin } : {}) },
      LOSSY_SESSION,
    );

  async function lossy(loseWrites: number, options: Parameters<typeof lossyRuntime>[1] = {}) {
    let writes = 0;
    const t = await lossyRuntime((command, payload) => {
      if (command === "command.status") return "fail";
      return isRealWrite(payload) && writes++ < loseWrites ? "lose" : "pass";
    }, options);
    return t;
  }
  const slots = (t: { state: Database.Database }) =>
    (t.state.prepare("SELECT COUNT(*) AS n FROM uncertain_writes").get() as { n: number }).n;

  it("an uncertain answer remembers the key; the retry (a new key) replays and forgets it; a call on purpose writes", async () => {
    const t = await lossy(1);
    expect(failed(await t.dispatcher.dispatch(modelCall("tc-1"))).error.code).toBe("mnote_tool_outcome_unknown");
    expect(slots(t)).toBe(1);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(1);
    const retry = ok(await t.dispatcher.dispatch(modelCall("tc-2")));
    expect(retry.audit.replayed).toBe(true);
    expect(slots(t)).toBe(0);
    expect(ok(await t.dispatcher.dispatch(modelCall("tc-3"))).audit.replayed).toBe(false);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);
  });

  it("a restarted runtime on the same state file remembers it", async () => {
    const statePath = join(tempDir("mnote-edges-"), "runtime.db");
    const first = await lossy(1, { statePath });
    expect(failed(await first.dispatcher.dispatch(modelCall("tc-a"))).error.code).toBe("mnote_tool_outcome_unknown");
    first.state.close();
    const again = await lossyRuntime(() => "pass", { statePath, kernel: first.kernel });
    expect(ok(await again.dispatcher.dispatch(modelCall("tc-b"))).audit.replayed).toBe(true);
    expect(again.count("artifacts", "type = 'ai_note'")).toBe(1);
  });

  it("keyOrigin caller (a program's key, or none) is used exactly: no memory, the retry with a new key writes again", async () => {
    const t = await lossy(1);
    expect(failed(await t.dispatcher.dispatch(modelCall("p-1", "Finding.", null))).error.code).toBe(
      "mnote_tool_outcome_unknown",
    );
    expect(slots(t)).toBe(0);
    expect(ok(await t.dispatcher.dispatch(modelCall("p-2", "Finding.", "caller"))).audit.replayed).toBe(false);
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(2); // what a program asked for, with two keys
  });

  it("other arguments, another session, or a dry run never borrow a remembered key", async () => {
    const t = await lossy(1);
    await t.dispatcher.dispatch(modelCall("tc-1", "One."));
    expect(ok(await t.dispatcher.dispatch(modelCall("tc-2", "Two."))).audit.replayed).toBe(false);
    const dry = ok(
      await t.dispatcher.dispatch(
        makeRequest(
          "mnote.artifact.create_ai_note",
          { content: "One." },
          { idempotencyKey: "tc-3", keyOrigin: "tool_call", dryRun: true },
          LOSSY_SESSION,
        ),
      ),
    );
    expect(dry.audit.effect).toBe("dry_run");
    expect(slots(t)).toBe(1); // still remembered for "One."
    expect(t.count("artifacts", "type = 'ai_note'")).toBe(2);
  });

  it("an access refusal keeps the slot; a definite refusal about the key forgets it", async () => {
    const t = await lossy(1);
    await t.dispatcher.dispatch(modelCall("tc-1"));
    expect(slots(t)).toBe(1);
    // the actor loses the page for a moment: refused before any write, the slot stays
    t.kernel.db.prepare("UPDATE members SET role = 'member' WHERE user_id = 'user_1'").run();
    const refused = failed(await t.dispatcher.dispatch(modelCall("tc-2")));
    expect(refused.error.code).toBe("mnote_tool_permission_denied");
    expect(slots(t)).toBe(1);
    t.kernel.db.prepare("UPDATE members SET role = 'owner' WHERE user_id = 'user_1'").run();
    expect(ok(await t.dispatcher.dispatch(modelCall("tc-3"))).audit.replayed).toBe(true);
    expect(slots(t)).toBe(0);
  });

  it("a session keeps at most its newest uncertainPerSession slots", async () => {
    const t = await lossy(100, { dispatcher: { uncertainPerSession: 3 } });
    for (let i = 0; i < 5; i++) await t.dispatcher.dispatch(modelCall(`tc-${i}`, `Finding ${i}.`));
    expect(slots(t)).toBe(3);
    const kept = t.state.prepare("SELECT idempotency_key AS k FROM uncertain_writes ORDER BY k").all() as Array<{
      k: string;
    }>;
    expect(kept.map((r) => r.k)).toEqual(["tc-2", "tc-3", "tc-4"]);
  });
});
