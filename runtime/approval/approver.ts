/**
 * Who is answering on the approval page (runtime/transports/approval-page.ts): a signed approver
 * cookie, set from a ticket the host mints for a live session grant (the host knows its person;
 * the model never sees the ticket), and the CSRF token bound to that cookie and one record.
 * Both are HMAC-SHA256 with a key derived from the approval secret, compared in constant time.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

const B64URL = /^[A-Za-z0-9_-]+$/;

/** The cookie's name: __Host- needs https, so a plain name scoped to the approval paths. */
export const APPROVER_COOKIE = "mnote_approver";

/** How long a ticket may wait to be opened, and how long the cookie it sets holds. */
export const TICKET_MS = 10 * 60 * 1000;
export const COOKIE_MS = 12 * 60 * 60 * 1000;

export interface ApproverKeys {
  ticket: Buffer;
  csrf: Buffer;
}

export function approverKeys(secret: Buffer): ApproverKeys {
  const derive = (label: string) => Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), label, 32));
  return { ticket: derive("mnote-approver-ticket-v1"), csrf: derive("mnote-approver-csrf-v1") };
}

const macOf = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();

/** A signed statement "this browser is principal p until e" (a ticket or the cookie: kind tells them apart). */
export function signApprover(keys: ApproverKeys, kind: "ticket" | "cookie", principal: string, until: number): string {
  const payload = Buffer.from(JSON.stringify({ k: kind, p: principal, e: until })).toString("base64url");
  return `${payload}.${macOf(keys.ticket, payload).toString("base64url")}`;
}

/** The principal a ticket or cookie vouches for, or undefined (altered, expired, the other kind). */
export function readApprover(keys: ApproverKeys, kind: "ticket" | "cookie", value: string, now: number) {
  const [payload, given, extra] = value.split(".");
  if (!payload || !given || extra !== undefined || !B64URL.test(payload) || !B64URL.test(given)) return undefined;
  const expected = macOf(keys.ticket, payload);
  const actual = Buffer.from(given, "base64url");
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { k: string; p: string; e: number };
  if (claims.k !== kind || typeof claims.p !== "string" || !(now < claims.e)) return undefined;
  return claims.p;
}

/** The CSRF token of one record for one approver cookie. */
export function csrfToken(keys: ApproverKeys, cookie: string, id: string): string {
  return macOf(keys.csrf, `${cookie}\u0000${id}`).toString("base64url");
}

export function csrfMatches(keys: ApproverKeys, cookie: string, id: string, given: string | undefined): boolean {
  if (!given) return false;
  const expected = Buffer.from(csrfToken(keys, cookie, id));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The approver cookie's value in a Cookie header, if any. */
export function cookieValue(header: string | undefined): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === APPROVER_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** zh-CN when the reader prefers Chinese to English (Accept-Language, q-values), else en. */
export function readerLocale(acceptLanguage: string | undefined): "zh-CN" | "en" {
  let best: { locale: "zh-CN" | "en"; q: number } | undefined;
  for (const part of (acceptLanguage ?? "").split(",")) {
    const [tag, ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const locale = tag?.startsWith("zh") ? "zh-CN" : tag?.startsWith("en") ? "en" : undefined;
    if (locale && Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { locale, q };
  }
  return best?.locale ?? "en";
}
