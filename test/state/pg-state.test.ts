/**
 * What only the Postgres state has to show, against a real server the suite starts (its own, since
 * it stops and restarts it): migrations racing under the advisory lock, the answers while Postgres
 * is down or a connection dies mid-claim, the purge on the database's clock.
 */
import pg from "pg";
import { openPgState, type PgState } from "../../runtime/state/pg-state";
import { migrate, MIGRATIONS } from "../../runtime/state/pg-migrations";
import { openPgPool, StoreUnavailableError } from "../../runtime/state/pg-pool";
import { isStoreUnavailable } from "../../common/sqlite";
import {
  describePostgres,
  freshDatabase,
  privatePostgresMissing,
  testPostgres,
  type TestPostgres,
} from "../support/postgres";

let server: TestPostgres;

async function rows<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describePostgres(
  "the PostgreSQL state",
  () => {
    beforeAll(async () => {
      server = await testPostgres(true);
    });
    afterAll(async () => {
      await server?.close();
    });

    it("eight instances migrating one fresh database at once: every one succeeds, each step is applied once", async () => {
      const url = await freshDatabase(server.url);
      const pools = Array.from({ length: 8 }, () => openPgPool({ url, max: 1 }));
      try {
        const applied = await Promise.all(pools.map((p) => migrate(p)));
        expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.version));
        const ledger = await rows<{ version: number }>(url, "SELECT version FROM mnote_schema_migrations");
        expect(ledger.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
        // the lock is free again: a later start migrates nothing and does not wait
        expect(await migrate(pools[0]!)).toEqual([]);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it("expired rows are purged on the database's clock; live ones stay", async () => {
      const url = await freshDatabase(server.url);
      const state = await openPgState({ url, purgeEveryMs: 0 });
      try {
        const s = state.idempotency;
        const short = await s.claim("short", "fp", 10_000);
        const long = await s.claim("long", "fp", 10_000);
        if (short.kind !== "claimed" || long.kind !== "claimed") throw new Error("not claimed");
        await s.complete("short", short.token, "fp", { commandId: "c1", result: {} }, 100);
        await s.complete("long", long.token, "fp", { commandId: "c2", result: {} }, 600_000);
        await s.consumeApproval("n-short", "o", 100);
        await s.rememberUncertain("sess", "slot", "key", 100, 8);
        await state.grants.put({
          sessionId: "gone",
          workspaceId: "ws_1",
          documentId: "doc_1",
          actorId: "u",
          capabilityScope: ["page.read"],
          expiresAt: new Date(Date.now() - 1_000).toISOString(),
        });
        await new Promise((r) => setTimeout(r, 1_000));
        expect(await state.purge()).toBe(4);
        expect(await rows(url, "SELECT scope FROM mnote_idempotency_records")).toEqual([{ scope: "long" }]);
        expect(await rows(url, "SELECT nonce FROM mnote_approval_nonces")).toEqual([]);
        expect(await rows(url, "SELECT slot FROM mnote_uncertain_writes")).toEqual([]);
        expect(await rows(url, "SELECT session_id FROM mnote_session_grants")).toEqual([]);
      } finally {
        await state.close();
      }
    });

    it("a connection lost in the middle of a claim: a retryable store error, and the key is claimed once afterwards", async () => {
      const url = await freshDatabase(server.url);
      const state = await openPgState({ url, purgeEveryMs: 0 });
      const blocker = new pg.Client({ connectionString: url });
      await blocker.connect();
      try {
        // a claim held mid-transaction (another session holds the row it must insert), then its connection killed
        await blocker.query("BEGIN");
        await blocker.query(
          "INSERT INTO mnote_idempotency_records (scope, fingerprint, state, token, lease_until, expires_at) VALUES ('k', 'fp', 'pending', 't0', now(), now())",
        );
        const claim = state.idempotency.claim("k", "fp", 10_000).then(
          () => undefined,
          (e: unknown) => e,
        );
        let waiting: Array<{ pid: number }> = [];
        for (let i = 0; i < 100 && waiting.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          waiting = await rows(
            url,
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'mnote-tools' AND wait_event_type = 'Lock'",
          );
        }
        expect(waiting).toHaveLength(1);
        await rows(url, "SELECT pg_terminate_backend($1)", [waiting[0]!.pid]);
        const error = await claim;
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(isStoreUnavailable(error)).toBe(true);
        await blocker.query("ROLLBACK");
        // nothing half-done: the key is free, and of many claimers one gets it
        const claims = await Promise.all(Array.from({ length: 10 }, () => state.idempotency.claim("k", "fp", 10_000)));
        expect(claims.filter((c) => c.kind === "claimed")).toHaveLength(1);
      } finally {
        await blocker.end().catch(() => undefined);
        await state.close();
      }
    });

    it("Postgres down: every operation fails fast with a retryable store error; back up: the same state, nothing forgotten", async () => {
      const url = await freshDatabase(server.url);
      const state: PgState = await openPgState({ url, purgeEveryMs: 0 });
      try {
        const claim = await state.idempotency.claim("durable", "fp", 10_000);
        if (claim.kind !== "claimed") throw new Error("not claimed");
        const outcome = { commandId: "c1", result: { n: 1 } };
        await state.idempotency.complete("durable", claim.token, "fp", outcome, 600_000);
        expect(await state.idempotency.consumeApproval("nonce-1", "owner-1", 600_000)).toBe("fresh");
        // a crash: no shutdown checkpoint, the WAL is replayed on the next start
        server.server!.stop("immediate");
        const started = Date.now();
        const errors = await Promise.all(
          [
            state.idempotency.claim("other", "fp", 10_000),
            state.idempotency.consumeApproval("nonce-2", "owner", 10_000),
            state.grants.get("s"),
          ].map((attempt: Promise<unknown>) =>
            attempt.then(
              () => undefined,
              (e: unknown) => e,
            ),
          ),
        );
        expect(errors.map(isStoreUnavailable)).toEqual([true, true, true]);
        expect(Date.now() - started).toBeLessThan(15_000);
        await server.server!.start();
        expect(await state.idempotency.claim("durable", "fp", 10_000)).toEqual({ kind: "replay", outcome });
        expect(await state.idempotency.consumeApproval("nonce-1", "owner-2", 600_000)).toBe("used");
      } finally {
        await state.close();
      }
    });

    it("a URL nobody answers on: openPgState fails with a retryable store error within the connect timeout", async () => {
      const started = Date.now();
      const error = await openPgState({ url: "postgres://mnote@127.0.0.1:9/none", connectTimeoutMs: 1_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isStoreUnavailable(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  },
  privatePostgresMissing(),
);
