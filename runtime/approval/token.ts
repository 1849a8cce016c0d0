/**
 * Approval tokens: `<payload>.<mac>`, both base64url. The payload is JSON binding the session, the
 * tool, the fingerprint of the call (requestFingerprint: the canonical JSON of documentId and args,
 * the same the idempotency keys use; dryRun and approval are envelope fields, not args), the
 * revision the preview was planned on, the expiry and a random nonce (what makes a token single-use:
 * the stores consume it once). The mac is HMAC-SHA256 with the host's secret over a domain label and
 * the payload text, compared in constant time. Nothing in a payload is trusted before its mac
 * matched, and then only after its shape is checked.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ERR, ErrorReason } from "../../generated/registry";

export interface ApprovalClaims {
  sessionId: string;
  toolName: string;
  fingerprint: string;
  /** The revision the preview saw (null only in a token made before a revision was required: refused). */
  revision: number | null;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** 32 hex characters, random: the single-use identity of this token, and the id of its approval record. */
  nonce: string;
  /**
   * The identity of the store that keeps its record and uses its nonce up (IdempotencyStore.storeId):
   * a token whose store is not the checking instance's names a record that store never had or
   * forgot, and the person is asked again (never "altered"). Absent: the store has no identity.
   */
  store?: string;
}

/**
 * Why a token does not fit a call, or that it expired (approval_expired). The others are catalog
 * reasons of approval_invalid: one the catalog drops leaves its return below a compile error.
 */
export type TokenProblem =
  | Extract<ErrorReason<typeof ERR.approvalInvalid>, "altered" | "other_tool" | "other_session" | "other_args">
  | "expired";

const LABEL = "mnote-approval-v1.";
const B64URL = /^[A-Za-z0-9_-]+$/;

/** The smallest secret accepted: 32 bytes of key material, as HMAC-SHA256 wants. */
export const MIN_SECRET_BYTES = 32;

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac("sha256", secret)
    .update(LABEL + payload)
    .digest();
}

/** A fresh nonce: 16 random bytes, hex. */
export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

/**
 * The record id of one call's question (resume anywhere): keyed by the signing key, so nobody
 * without the secret can name or guess it, and the same for every process that shares the store
 * and asks about the same principal, session, tool, tool call id and arguments.
 */
export function callNonce(key: Buffer, parts: readonly string[]): string {
  return createHmac("sha256", key)
    .update(`mnote-approval-call\u0000${JSON.stringify(parts)}`)
    .digest("hex")
    .slice(0, 32);
}

/**
 * The key tokens are signed with: the secret bound to the store that uses their nonces up (its
 * storeId, docs/RELIABILITY.md), so a token is honoured only where its nonce can be used up once.
 */
export function storeBoundKey(secret: Buffer, storeId: string): Buffer {
  return createHmac("sha256", secret).update(`mnote-approval-store\u0000${storeId}`).digest();
}

/** The token for these claims. */
export function signApproval(secret: Buffer, claims: ApprovalClaims): string {
  const payload = Buffer.from(
    JSON.stringify({
      v: 1,
      s: claims.sessionId,
      t: claims.toolName,
      f: claims.fingerprint,
      r: claims.revision,
      e: claims.expiresAt,
      n: claims.nonce,
      ...(claims.store === undefined ? {} : { d: claims.store }),
    }),
  ).toString("base64url");
  return `${payload}.${mac(secret, payload).toString("base64url")}`;
}

/**
 * The claims of a token whose mac matches, or undefined (malformed or altered). `key` is the key,
 * or picks it from the store the payload names (the only member read before the mac matched: it
 * chooses a key, and a wrong choice fails the mac).
 */
export function readApproval(
  key: Buffer | ((store: string | undefined) => Buffer),
  token: string,
): ApprovalClaims | undefined {
  const dot = token.indexOf(".");
  if (dot <= 0 || dot !== token.lastIndexOf(".")) return undefined;
  const payload = token.slice(0, dot);
  const given = token.slice(dot + 1);
  if (!B64URL.test(payload) || !B64URL.test(given)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const named = (value as { d?: unknown } | null)?.d;
  const secret = typeof key === "function" ? key(typeof named === "string" ? named : undefined) : key;
  const expected = mac(secret, payload);
  const actual = Buffer.from(given, "base64url");
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  return claimsOf(value);
}

/** The claims in a signed payload, by shape (a payload we signed always has it; anything else is refused). */
function claimsOf(value: unknown): ApprovalClaims | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const p = value as Record<string, unknown>;
  const ok =
    p.v === 1 &&
    typeof p.s === "string" &&
    typeof p.t === "string" &&
    typeof p.f === "string" &&
    (p.r === null || (typeof p.r === "number" && Number.isSafeInteger(p.r))) &&
    typeof p.e === "number" &&
    Number.isSafeInteger(p.e) &&
    typeof p.n === "string" &&
    /^[0-9a-f]{32}$/.test(p.n) &&
    (p.d === undefined || typeof p.d === "string");
  if (!ok) return undefined;
  return {
    sessionId: p.s as string,
    toolName: p.t as string,
    fingerprint: p.f as string,
    revision: p.r as number | null,
    expiresAt: p.e as number,
    nonce: p.n as string,
    ...(p.d === undefined ? {} : { store: p.d as string }),
  };
}

/**
 * The approval record a token names (its nonce), read without checking the mac: a name, not a
 * permission (the page and its API check who answers; the dispatcher checks the token itself).
 */
export function approvalIdOf(token: string): string | undefined {
  const dot = token.indexOf(".");
  if (dot <= 0) return undefined;
  try {
    const value = JSON.parse(Buffer.from(token.slice(0, dot), "base64url").toString("utf8")) as { n?: unknown };
    return typeof value.n === "string" && /^[0-9a-f]{32}$/.test(value.n) ? value.n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a token fits this call: signed by us, for this tool, session and arguments, not expired.
 * The first problem found, in that order, or the claims.
 */
export function checkApproval(
  secret: Buffer,
  token: string,
  call: {
    sessionId: string;
    toolName: string;
    fingerprint: string;
    now: number;
    /** Picks the key from the store the token names (else `secret` is the key). */
    keyFor?: (store: string | undefined) => Buffer;
  },
): { ok: true; claims: ApprovalClaims } | { ok: false; problem: TokenProblem } {
  const claims = readApproval(call.keyFor ?? secret, token);
  if (!claims) return { ok: false, problem: "altered" };
  if (claims.toolName !== call.toolName) return { ok: false, problem: "other_tool" };
  if (claims.sessionId !== call.sessionId) return { ok: false, problem: "other_session" };
  if (claims.fingerprint !== call.fingerprint) return { ok: false, problem: "other_args" };
  if (call.now >= claims.expiresAt) return { ok: false, problem: "expired" };
  return { ok: true, claims };
}
