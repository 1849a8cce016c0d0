/**
 * Issue 41: one approval record per question, in the store the instances share (SQLite state
 * file, Redis, PostgreSQL). Each store: a record is created pending, moves once (of many answers
 * at once exactly one moves it), an expired record cannot be approved. Across OS processes
 * (`mnote-tools call`, one process per call, on one state file / one Redis / one Postgres): one
 * process asks, two others send the same yes at the same moment with different keys: exactly one
 * write, the other is refused as replayed, and the record says approved. The kernel's command log
 * is counted.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { openDatabase } from "../../common/sqlite";
import type { ApprovalRecord, ApprovalRecordStore } from "../../runtime/approval/record";
import { approvalIdOf } from "../../runtime/approval/token";
import { SqliteApprovalRecords } from "../../runtime/state/approval-sqlite";
import { RedisApprovalRecords } from "../../runtime/state/approval-redis";
import { openPgState, type PgState } from "../../runtime/state/pg-state";
import { cliPath, repoRoot, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";
import { describeRedis, REDIS_DB, redisUrl } from "../support/redis";
import { describePostgres, freshDatabase, testPostgres, type TestPostgres } from "../support/postgres";

const NOW = 1_800_000_000_000;
/** An idempotency scope as the dispatcher makes them (sha256 hex). */
const SCOPE = "ab".repeat(32);

function pending(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: randomBytes(16).toString("hex"),
    principal: "S\u0000",
    sessionId: "S",
    toolName: "mnote.page.update_title",
    fingerprint: "fp",
    revision: 3,
    expiresAt: NOW + 60_000,
    createdAt: NOW,
    summary: { en: "Rename the page “A” → “B”.", "zh-CN": "重命名页面：「A」 → 「B」。" },
    status: "pending",
    answeredBy: null,
    answeredAt: null,
    reason: null,
    ...overrides,
  };
}

/** The same cases on every store kind. */
function storeCases(open: () => Promise<{ store: ApprovalRecordStore; close(): Promise<void> }>) {
  let s: { store: ApprovalRecordStore; close(): Promise<void> };
  beforeEach(async () => {
    s = await open();
  });
  afterEach(() => s.close());

  it("creates pending, moves once, keeps the answer and the preview in both locales", async () => {
    const r = pending();
    await s.store.create(r);
    expect(await s.store.get(r.id)).toEqual(r);
    const yes = await s.store.settle(r.id, "approved", { by: "user_1", reason: null, now: NOW + 1 });
    expect([yes.changed, yes.record?.status, yes.record?.answeredBy, yes.record?.answeredAt]).toEqual([
      true,
      "approved",
      "user_1",
      NOW + 1,
    ]);
    const no = await s.store.settle(r.id, "declined", { by: "user_2", reason: "declined", now: NOW + 2 });
    expect([no.changed, no.record?.status, no.record?.answeredBy]).toEqual([false, "approved", "user_1"]);
    expect((await s.store.get(r.id))?.summary["zh-CN"]).toBe("重命名页面：「A」 → 「B」。");
    expect(await s.store.get(randomBytes(16).toString("hex"))).toBeUndefined();
  });

  it("of many answers at once exactly one moves the record", async () => {
    const r = pending();
    await s.store.create(r);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.store.settle(r.id, i % 2 ? "declined" : "approved", { by: `u${i}`, reason: null, now: NOW + 1 }),
      ),
    );
    expect(answers.filter((a) => a.changed)).toHaveLength(1);
    const winner = answers.find((a) => a.changed)!.record!;
    expect((await s.store.get(r.id))?.answeredBy).toBe(winner.answeredBy);
  });

  it("a record past its expiry cannot be approved or declined, only expired", async () => {
    const r = pending({ expiresAt: NOW + 10 });
    await s.store.create(r);
    for (const to of ["approved", "declined", "cancelled"] as const)
      expect((await s.store.settle(r.id, to, { by: "u", reason: null, now: NOW + 10 })).changed).toBe(false);
    const expired = await s.store.settle(r.id, "expired", { by: null, reason: null, now: NOW + 10 });
    expect([expired.changed, expired.record?.status]).toEqual([true, "expired"]);
  });

  it("keeps the scope its approved write ran under, beside an unchanged body and answer", async () => {
    const r = pending();
    await s.store.create(r);
    await s.store.settle(r.id, "approved", { by: "user_1", reason: null, now: NOW + 1 });
    expect((await s.store.get(r.id))?.writtenUnder).toBeUndefined();
    await s.store.markWritten(r.id, SCOPE);
    expect(await s.store.get(r.id)).toEqual({
      ...r,
      status: "approved",
      answeredBy: "user_1",
      answeredAt: NOW + 1,
      writtenUnder: SCOPE,
    });
    // a record the store does not keep stays absent
    const gone = randomBytes(16).toString("hex");
    await s.store.markWritten(gone, "x");
    expect(await s.store.get(gone)).toBeUndefined();
  });
}

describe("approval records: SQLite", () => {
  storeCases(async () => {
    const db = openDatabase(join(tempDir("mnote-records-"), "state.db"));
    return { store: new SqliteApprovalRecords(db, () => NOW), close: async () => void db.close() };
  });
});

describeRedis("approval records: Redis", () => {
  storeCases(async () => {
    const store = new RedisApprovalRecords(
      { url: redisUrl(REDIS_DB.approvalRecords), prefix: `t${randomBytes(4).toString("hex")}` },
      () => NOW,
    );
    await store.ready();
    return { store, close: () => store.close() };
  });
});

describePostgres("approval records: PostgreSQL", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await testPostgres();
  }, 120_000);
  afterAll(() => pg?.close());
  storeCases(async () => {
    const state: PgState = await openPgState({ url: await freshDatabase(pg.url), purgeEveryMs: 0 });
    return { store: state.idempotency.approvalRecords(() => NOW), close: () => state.close() };
  });
});

/** The environment without the suites' allow-all policy: the contract's ask holds. */
function withoutPolicy(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const all = { ...process.env, ...env };
  delete all.MNOTE_APPROVAL_POLICY;
  return all;
}

/** `mnote-tools call` in its own process, not waiting for the others. */
function callInProcess(args: string[], request: object, env: NodeJS.ProcessEnv): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, "call", ...args], {
      cwd: repoRoot,
      env: withoutPolicy(env),
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", () => {
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`not JSON: ${out} ${err}`));
      }
    });
    child.stdin.end(JSON.stringify(request));
  });
}

const REQUEST = JSON.parse(readFileSync(join(repoRoot, "examples", "page-save-replace.request.json"), "utf8"));

/** One process asks, two send the yes at once (different keys): one write, one replayed, the record approved. */
async function oneYesOneWrite(
  grantArgs: (i: number) => string[],
  stateArgs: (i: number) => string[],
  env: NodeJS.ProcessEnv,
  readRecord: (id: string) => Promise<ApprovalRecord | undefined>,
) {
  const dir = tempDir("mnote-records-procs-");
  const kernel = join(dir, "kernel.db");
  expect(runCli(["kernel", "seed", "examples/demo-workspace.json", "--db", kernel]).status).toBe(0);
  for (const i of [0, 1, 2]) {
    const grant = runCli(
      [
        "session",
        "grant",
        ...grantArgs(i),
        "--session",
        "S",
        "--workspace",
        "ws_1",
        "--document",
        "doc_1",
        "--actor",
        "user_1",
        "--scope",
        "page.read,page.write",
        "--ttl",
        "3600",
      ],
      { env },
    );
    expect(grant.stderr).not.toMatch(/error/i);
  }
  const asked = await callInProcess(["--db", kernel, ...stateArgs(0)], REQUEST, env);
  expect(asked.error.code).toBe("mnote_tool_approval_required");
  const token = asked.error.approval.token as string;
  const id = approvalIdOf(token)!;
  expect((await readRecord(id))?.status).toBe("pending");
  const answers = await Promise.all(
    [1, 2].map((i) =>
      callInProcess(
        ["--db", kernel, ...stateArgs(i)],
        { ...REQUEST, idempotencyKey: `yes-${i}`, approval: { token } },
        env,
      ),
    ),
  );
  expect(answers.filter((a) => a.ok)).toHaveLength(1);
  const refused = answers.find((a) => !a.ok);
  expect([refused.error.code, refused.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
  const db = new Database(kernel, { readonly: true });
  try {
    expect((db.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n).toBe(1);
  } finally {
    db.close();
  }
  expect((await readRecord(id))?.status).toBe("approved");
}

describe("one yes, one write, across OS processes", () => {
  it("on one SQLite state file", async () => {
    const state = join(tempDir("mnote-records-state-"), "state.db");
    await oneYesOneWrite(
      () => ["--state", state],
      () => ["--state", state],
      {},
      async (id) => {
        const db = openDatabase(state);
        try {
          return await new SqliteApprovalRecords(db).get(id);
        } finally {
          db.close();
        }
      },
    );
  }, 120_000);
});

describeRedis("one yes, one write, across OS processes sharing only Redis", () => {
  it("three processes, three state files, one Redis", async () => {
    const dir = tempDir("mnote-records-redis-");
    const url = redisUrl(REDIS_DB.approvalRecords);
    const reader = new RedisApprovalRecords({ url });
    try {
      await reader.ready();
      await oneYesOneWrite(
        (i) => ["--state", join(dir, `state-${i}.db`)],
        (i) => ["--state", join(dir, `state-${i}.db`), "--store", url],
        { MNOTE_APPROVAL_SECRET: randomBytes(32).toString("hex") },
        (id) => reader.get(id),
      );
    } finally {
      await reader.close();
    }
  }, 120_000);
});

describePostgres("one yes, one write, across OS processes on one PostgreSQL", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await testPostgres();
  }, 120_000);
  afterAll(() => pg?.close());
  it("three processes, one database", async () => {
    const url = await freshDatabase(pg.url);
    const state = await openPgState({ url, purgeEveryMs: 0 });
    try {
      await oneYesOneWrite(
        () => ["--state", url],
        () => ["--state", url],
        {},
        (id) => state.idempotency.approvalRecords(Date.now).get(id),
      );
    } finally {
      await state.close();
    }
  }, 120_000);
});

describe("honest states", () => {
  it("a store that forgot the record asks again (a fresh preview and token), never 'altered', and writes nothing", async () => {
    const { testRuntime, failed, ok } = await import("../support/runtime");
    const { EMPTY_POLICY } = await import("../../runtime/approval/policy");
    const t = await testRuntime({ approval: { policy: EMPTY_POLICY } });
    try {
      const as = await t.session({ actorId: "user_1" });
      const args = { content: [{ type: "paragraph", text: "Asked twice." }], mode: "replace" };
      const { token } = failed(await t.call("mnote.page.save", as, args)).error.approval!;
      const before = t.kernelStateHash();
      // the store forgets every record (as a Redis restarted without persistence would)
      t.runtime.state.prepare("DELETE FROM approval_records").run();
      const again = failed(await t.call("mnote.page.save", as, args, { approval: { token } }));
      expect(again.error.code).toBe("mnote_tool_approval_required");
      const fresh = again.error.approval!.token;
      expect(approvalIdOf(fresh)).not.toBe(approvalIdOf(token));
      expect(t.kernelStateHash()).toBe(before);
      // the person's yes to the fresh preview writes once
      ok(await t.call("mnote.page.save", as, args, { approval: { token: fresh } }));
      expect(t.count("command_log")).toBe(1);
      expect((await t.runtime.approvalRecords.get(approvalIdOf(fresh)!))?.status).toBe("approved");
    } finally {
      await t.close();
    }
  });
});
