/**
 * The approval record (docs/APPROVAL.md, "The approval record"): one row in the runtime's shared
 * store per question put to a person, created when the runtime decides to ask. Its id is the
 * approval token's nonce, so the token every surface carries names it, and any process sharing
 * the store can show its preview and take the answer. It binds the principal (who may answer),
 * the session, the tool, the call's fingerprint, the previewed revision, the expiry and the
 * person's preview (in both locales, so whoever shows it picks the reader's). Its status goes
 * pending -> approved | declined | expired | cancelled, each transition at most once and
 * atomically in the store (SQLite, Redis, PostgreSQL: runtime/state/approval-*.ts).
 *
 * The record says what the person answered; the write itself is still made once by the token's
 * nonce being used up (steps/approval.ts), so a yes is one write however many surfaces retry.
 */
import type { MessageLocale } from "../../generated/registry";
import type { ApprovalPreview } from "../../generated/types";

export type ApprovalStatus = "pending" | "approved" | "declined" | "expired" | "cancelled";
/** The statuses a record can move to from pending. */
export type FinalStatus = Exclude<ApprovalStatus, "pending">;

export interface ApprovalRecord {
  /** The token's nonce: 32 hex characters. */
  id: string;
  /** Who may answer: the session and, over OAuth, the subject (the transport's own string). */
  principal: string;
  sessionId: string;
  toolName: string;
  /** The dispatcher's request fingerprint (documentId and args). */
  fingerprint: string;
  revision: number;
  /** Milliseconds since the epoch (the token's own expiry). */
  expiresAt: number;
  createdAt: number;
  /** The person's preview, in each locale the runtime writes. */
  summary: Record<MessageLocale, string>;
  /** The preview as data (the dry run's plan), for the call asked again elsewhere (absent in records made before). */
  preview?: ApprovalPreview;
  status: ApprovalStatus;
  /** Who answered (approvedBy, or the principal on the page), once answered. */
  answeredBy: string | null;
  answeredAt: number | null;
  /** Why a record that was not approved ended so: declined, timed_out, no_one_to_ask. */
  reason: string | null;
  /**
   * The idempotency scope its approved write ran under (set by the write, before it runs; absent in
   * records made before, and until a write): the same call asked after the token expired finds that
   * write in the kernel and replays it (docs/APPROVAL.md, "The record's life cycle").
   */
  writtenUnder?: string;
}

/** What a settle found: whether this call made the transition, and the record as it is now. */
export interface Settled {
  changed: boolean;
  record: ApprovalRecord | undefined;
}

export interface ApprovalRecordStore {
  /** Stores a new pending record (its id is fresh: a second create of one id is an error). */
  create(record: ApprovalRecord): Promise<void>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * pending -> to, atomically and at most once: only while the record is pending and, for
   * anything but "expired", not past its expiry at `now`. Answers whether this call moved it.
   */
  settle(
    id: string,
    to: FinalStatus,
    answer: { by: string | null; reason: string | null; now: number },
  ): Promise<Settled>;
  /** Notes the idempotency scope the record's approved write runs under (writtenUnder); kept in the record's body. */
  markWritten(id: string, scope: string): Promise<void>;
  close?(): Promise<void>;
}

/** How long a record is kept past its expiry, so the page can still say "expired" or "already answered". */
export const RECORD_KEPT_MS = 60 * 60 * 1000;

export const RECORD_ID = /^[0-9a-f]{32}$/;

/** A record's status as of `now`: a pending record past its expiry is expired. */
export function statusAt(record: ApprovalRecord, now: number): ApprovalStatus {
  return record.status === "pending" && now >= record.expiresAt ? "expired" : record.status;
}

/** The record's immutable part as stored (status and answer are kept beside it, so a settle is one update). */
export function recordBody(record: ApprovalRecord): string {
  const { status: _s, answeredBy: _b, answeredAt: _a, reason: _r, ...body } = record;
  return JSON.stringify(body);
}

/** A record from its stored body and status columns. */
export function recordFrom(
  body: string,
  status: string,
  answer: { by: string | null; at: number | null; reason: string | null },
): ApprovalRecord {
  const fixed = JSON.parse(body) as Omit<ApprovalRecord, "status" | "answeredBy" | "answeredAt" | "reason">;
  return {
    ...fixed,
    status: status as ApprovalStatus,
    answeredBy: answer.by,
    answeredAt: answer.at,
    reason: answer.reason,
  };
}

/** The final status a host's answer other than yes puts a record in (timed_out, no_one_to_ask: cancelled, with that reason). */
export function statusOfAnswer(answer: string): FinalStatus {
  return answer === "declined" ? "declined" : "cancelled";
}

/**
 * The principal a transport vouches for, per request object (the MCP server: session and OAuth
 * subject): the dispatcher binds the record to it. A request nobody vouched for is its session's.
 */
const principals = new WeakMap<object, string>();

export function vouchPrincipal(request: object, principal: string): void {
  principals.set(request, principal);
}

/**
 * The one spelling of an approval's principal, wherever it is minted or compared (the MCP server,
 * the dispatcher, the approval page's tickets): the session and, for an OAuth caller, the issuer
 * and subject, as JSON (unambiguous whatever the ids hold).
 */
export function principalKey(sessionId: string, who?: { issuer: string; subject: string }): string {
  return JSON.stringify([sessionId, who?.issuer ?? null, who?.subject ?? null]);
}

/** The principal of a session when no transport says more (the static token's holder, stdio, call). */
export function sessionPrincipal(sessionId: string): string {
  return principalKey(sessionId);
}

export function principalOf(request: object, sessionId: string): string {
  return principals.get(request) ?? sessionPrincipal(sessionId);
}
