/**
 * The claim step on PostgreSQL (pg-idempotency-store.ts): one call of the server-side function
 * mnote_claim (pg-migrations.ts, migration 3), or, on a schema without it, its two statements sent
 * one by one (the insert, then the live record's read when nothing was taken).
 */
import type pg from "pg";
import type { Claim, StoredOutcome } from "./idempotency-store";
import { query } from "./pg-pool";

/** An interval of ms milliseconds, as SQL over a parameter. */
const ms = (param: string) => `(${param}::double precision * interval '1 millisecond')`;

/** A record (aliased r) that no longer holds its key: a lease or a lifetime run out, on the database's clock. */
export const EXPIRED = "(CASE WHEN r.state = 'done' THEN r.expires_at <= now() ELSE r.lease_until <= now() END)";

interface RecordRow {
  fingerprint: string;
  state: "pending" | "done";
  outcome: string | null;
}

/** What mnote_claim answers (and mnote_claim_uncertain, with the slot's keys). */
export interface ClaimRow {
  claim_kind: "claimed" | "replay" | "conflict" | "in_progress" | null;
  claim_outcome: string | null;
}

/** The Claim a function's row says, the token being the one sent. */
export function claimOf(row: ClaimRow, token: string): Claim {
  if (row.claim_kind === "claimed") return { kind: "claimed", token };
  if (row.claim_kind === "replay") return { kind: "replay", outcome: JSON.parse(row.claim_outcome!) as StoredOutcome };
  if (row.claim_kind === "conflict" || row.claim_kind === "in_progress") return { kind: row.claim_kind };
  throw new Error(`unexpected claim answer from PostgreSQL: ${String(row.claim_kind)}`);
}

export const CLAIM = "SELECT claim_kind, claim_outcome FROM mnote_claim($1, $2, $3, $4)";
export const CLAIM_UNCERTAIN =
  "SELECT remembered, held_key, claim_kind, claim_outcome FROM mnote_claim_uncertain($1, $2, $3, $4, $5, $6, $7, $8, $9)";

/** The claim without the server-side function: the insert, then the read, in statements of their own. */
export async function claimByStatements(
  pool: pg.Pool,
  scope: string,
  fingerprint: string,
  token: string,
  leaseMs: number,
): Promise<Claim> {
  // each statement is atomic on its own: the common case (a free key) is one round trip
  // a key that turns over between the two statements is looked at again; three rounds is plenty
  for (let round = 0; round < 3; round++) {
    const answer = await claimRound(pool, scope, fingerprint, token, leaseMs);
    if (answer) return answer;
  }
  return { kind: "in_progress" };
}

/** One try: take the key if free or expired, else say what holds it; undefined when it moved meanwhile. */
async function claimRound(
  pool: pg.Pool,
  scope: string,
  fingerprint: string,
  token: string,
  leaseMs: number,
): Promise<Claim | undefined> {
  // a concurrent claimer's uncommitted insert makes this wait for its commit, then leave it alone
  const taken = await query(
    pool,
    `INSERT INTO mnote_idempotency_records AS r (scope, fingerprint, state, token, lease_until, expires_at, outcome)
       VALUES ($1, $2, 'pending', $3, now() + ${ms("$4")}, now() + ${ms("$4")}, NULL)
       ON CONFLICT (scope) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'pending',
         token = excluded.token, lease_until = excluded.lease_until, expires_at = excluded.expires_at, outcome = NULL
         WHERE ${EXPIRED}
       RETURNING token`,
    [scope, fingerprint, token, leaseMs],
  );
  if (taken.rowCount === 1) return { kind: "claimed", token };
  // held by a live record: whose
  const row = (
    await query<RecordRow>(
      pool,
      `SELECT fingerprint, state, outcome FROM mnote_idempotency_records AS r WHERE scope = $1 AND NOT (${EXPIRED})`,
      [scope],
    )
  ).rows[0];
  if (!row) return undefined;
  if (row.fingerprint !== fingerprint) return { kind: "conflict" };
  return row.state === "done"
    ? { kind: "replay", outcome: JSON.parse(row.outcome!) as StoredOutcome }
    : { kind: "in_progress" };
}
