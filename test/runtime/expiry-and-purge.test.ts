/**
 * Times that cannot be read, and records that expired (issue 12 items 7 and 9). A grant whose
 * expiresAt cannot be compared with a clock is refused at registration and counts as expired
 * wherever one slips through; expired grants and idempotency records are purged, by the `call`
 * transport (one claim per process) too.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { repoRoot, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { testRuntime, failed } from "../support/runtime";
import { isGrantLive, remainingMs } from "../../common/grant-liveness";
import { validateSessionGrant } from "../../generated/validators";
import type { GrantStore } from "../../runtime/state/grant-store";
import type { SessionGrant } from "../../generated/types";

const LEAP = "2026-12-31T23:59:60Z";
const grant = (expiresAt: string) => ({
  sessionId: "s_leap",
  workspaceId: "ws_1",
  documentId: "doc_1",
  actorId: "user_1",
  capabilityScope: ["page.read"],
  expiresAt,
});

describe("a time that cannot be read never means forever (issue 12.7)", () => {
  it("liveness: an unreadable expiresAt is expired, whatever the clock says", () => {
    expect(Number.isNaN(Date.parse(LEAP))).toBe(true);
    expect(isGrantLive({ expiresAt: LEAP }, 0)).toBe(false);
    expect(isGrantLive({ expiresAt: "not a time" }, Date.now())).toBe(false);
    expect(remainingMs({ expiresAt: LEAP }, 0)).toBe(0);
    expect(isGrantLive({ expiresAt: "2999-01-01T00:00:00Z" }, Date.now())).toBe(true);
    expect(isGrantLive({ expiresAt: "2000-01-01T00:00:00Z" }, Date.now())).toBe(false);
  });

  it("the schema refuses a leap-second expiresAt at /expiresAt (RFC 3339 allows it; no clock can compare it)", () => {
    expect(validateSessionGrant(grant(LEAP))).toBe(false);
    expect(validateSessionGrant.errors?.[0]?.instancePath).toBe("/expiresAt");
    expect(validateSessionGrant(grant("2026-12-31T23:59:59Z"))).toBe(true);
    expect(validateSessionGrant(grant("2026-12-31T23:59:59.999+08:00"))).toBe(true);
  });

  it("the dispatcher refuses a session whose stored grant has an unreadable expiresAt as expired", async () => {
    const stored: SessionGrant = grant(LEAP) as SessionGrant;
    const grants: GrantStore = { put: async () => undefined, get: async () => stored, revoke: async () => false };
    const t = await testRuntime({ grants });
    const r = failed(
      await t.runtime.dispatcher.dispatch(
        makeRequest("mnote.page.get", {}, {}, { sessionId: "s_leap", capabilityScope: ["page.read"] }),
      ),
    );
    expect([r.error.code, r.error.reason]).toEqual(["mnote_tool_not_authenticated", "session_expired"]);
    await t.close();
  });

  it("serve: registering a leap-second grant is a clear 400 naming /expiresAt, and nothing is stored", async () => {
    const dir = tempDir("mnote-leap-");
    const db = join(dir, "kernel.db");
    const state = join(dir, "runtime.db");
    expect(runCli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", db]).status).toBe(0);
    const server = await start([
      "serve",
      "--db",
      db,
      "--state",
      state,
      "--port",
      "0",
      "--token",
      "tok",
      "--host-token",
      "host",
    ]);
    const refused = await postJson(`${server.url}/v1/sessions`, grant(LEAP), "host");
    expect([refused.status, refused.body.pointer]).toEqual([400, "/expiresAt"]);
    const read = await fetch(`${server.url}/v1/sessions/s_leap`, { headers: { authorization: "Bearer tok" } });
    expect(read.status).toBe(404);
    const call = await postJson(
      `${server.url}/v1/tools/call`,
      makeRequest("mnote.page.get", {}, {}, { sessionId: "s_leap", capabilityScope: ["page.read"] }),
      "tok",
    );
    expect([call.status, call.body.error.code]).toEqual([200, "mnote_tool_not_authenticated"]);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it("the SQLite store never fails on an unreadable expiresAt: such a grant is kept as expired (0), never forever", async () => {
    const t = await testRuntime();
    await t.runtime.grants.put(grant(LEAP) as SessionGrant);
    const r = failed(
      await t.runtime.dispatcher.dispatch(
        makeRequest("mnote.page.get", {}, {}, { sessionId: "s_leap", capabilityScope: ["page.read"] }),
      ),
    );
    expect(r.error.reason).toBe("session_expired");
    expect(
      (
        t.runtime.state.prepare("SELECT expires_at FROM session_grants WHERE session_id = 's_leap'").get() as {
          expires_at: number;
        }
      ).expires_at,
    ).toBe(0);
    await t.close();
  });
});

describe("expired records are purged (issue 12.9)", () => {
  it("the call transport: expired idempotency records (runtime and kernel) and expired grants are gone after the next call", async () => {
    const dir = tempDir("mnote-purge-");
    const db = join(dir, "kernel.db");
    const state = join(dir, "runtime.db");
    expect(runCli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", db]).status).toBe(0);
    const grantCli = (session: string, ttl: string) =>
      runCli([
        "session",
        "grant",
        "--state",
        state,
        "--session",
        session,
        "--workspace",
        "ws_1",
        "--document",
        "doc_1",
        "--actor",
        "user_1",
        "--scope",
        "page.read,page.write,artifact.write",
        "--ttl",
        ttl,
      ]);
    expect(grantCli("s_live", "3600").status).toBe(0);
    expect(grantCli("s_short", "1").status).toBe(0);
    const call = (key: string, ttlMs: string) => {
      const request = makeRequest(
        "mnote.artifact.create_ai_note",
        { content: `note ${key}` },
        { idempotencyKey: key },
        { sessionId: "s_live" },
      );
      const run = runCli(["call", "--db", db, "--state", state, "--idempotency-ttl", ttlMs], {
        input: JSON.stringify(request),
      });
      expect([run.status, run.stderr]).toEqual([0, ""]);
      expect(JSON.parse(run.stdout).ok).toBe(true);
    };
    const rows = (file: string, table: string) => {
      const handle = new Database(file, { readonly: true });
      try {
        return (handle.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
      } finally {
        handle.close();
      }
    };
    call("k1", "1"); // remembered for 1 ms
    await new Promise((r) => setTimeout(r, 1500)); // k1's records and s_short's grant are now expired
    call("k2", "3600000");
    expect(rows(state, "idempotency_records")).toBe(1);
    expect(rows(db, "idempotency")).toBe(1);
    expect(rows(db, "command_log")).toBe(2); // the audit stays
    expect(rows(state, "session_grants")).toBe(1);
    // the key whose record was purged may be used again: a new command, not a replay, not a clash
    call("k1", "3600000");
    expect(rows(db, "command_log")).toBe(3);
  }, 60_000);

  it("the kernel: a key reused after its record expired gets a new generation of command id, also after a purge", async () => {
    let now = 1_000_000;
    const t = await testRuntime({ now: () => now, idempotencyTtlMs: 1000 });
    const as = await t.session({ actorId: "user_1" }, { ttlMs: 10 * 365 * 24 * 3600e3 });
    const first = await t.call("mnote.artifact.create_ai_note", as, { content: "a" }, { idempotencyKey: "reuse" });
    now += 5000;
    await t.call("mnote.artifact.create_ai_note", as, { content: "b" }, { idempotencyKey: "other" }); // purges "reuse"
    expect(t.count("idempotency")).toBe(1);
    const again = await t.call("mnote.artifact.create_ai_note", as, { content: "c" }, { idempotencyKey: "reuse" });
    expect(again.ok && first.ok).toBe(true);
    expect(again.audit.commandId).toBe(`${first.audit.commandId}_g2`);
    await t.close();
  });
});
