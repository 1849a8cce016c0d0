/**
 * Where an OAuth issuer's signing keys are, and the key set itself, for the MCP server's bearer
 * gate (mcp-oauth.ts). Verification is `jose`'s; this file only decides what is fetched and how:
 *
 * - discovery (discoverJwksUrl): the issuer's RFC 8414 metadata
 *   (`/.well-known/oauth-authorization-server`, inserted before the issuer's path), then OpenID
 *   Connect's (`<issuer>/.well-known/openid-configuration`); the document must name the same
 *   issuer and a `jwks_uri`. Run once at start-up: unreachable or inconsistent is an OAuthSetupError
 *   (the CLI's exit 3, one line);
 * - every fetch (metadata and key set) has a timeout and a body limit (limitedFetch): a key set
 *   larger than the limit is refused while it streams, never read whole;
 * - the key set (remoteKeySet) is jose's createRemoteJWKSet: cached, refetched for an unseen `kid`
 *   at most once per cooldown; a failed fetch also starts the cooldown (a flood of tokens naming
 *   unknown keys makes at most one fetch per cooldown, success or not);
 * - a key that cannot be used (a symmetric `oct` key, a private key, one for encryption, an
 *   algorithm not allowed, one that does not import) is dropped from the set with a log line, so
 *   one bad key never fails the others.
 */
import { createRemoteJWKSet, customFetch, importJWK, type JWK } from "jose";
import type { Logger } from "../../common/http/logger";
import { isPlainObject } from "../../common/values";
import { isLoopback } from "../../common/http/loopback";

export { ASYMMETRIC_ALGORITHMS, DEFAULT_ALGORITHMS } from "./jws-algorithms";

/** The issuer could not be used at start-up: unreachable, or its metadata inconsistent (exit 3). */
export class OAuthSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OAuthSetupError";
  }
}

export interface KeyFetchOptions {
  /** Largest metadata or key-set body, in bytes (default 256 KiB). */
  maxBytes?: number;
  /** Per-fetch timeout (default 5 s). */
  timeoutMs?: number;
  /** Least time between two fetches of the key set (default 30 s). */
  cooldownMs?: number;
  log?: Logger;
}

const DEFAULT_MAX_BYTES = 256 * 1024;
const MAX_KEYS = 100;

/** The body of `res`, refused (and the stream cancelled) once it passes `maxBytes`. */
async function limitedText(res: Response, maxBytes: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new Error(`the body is larger than ${maxBytes} bytes`);
  }
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || !value) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`the body is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** GET `url` as JSON, with a timeout and a body limit; undefined for a 404 (not published). */
export async function fetchJsonLimited(url: URL, options: KeyFetchOptions = {}): Promise<unknown> {
  const res = await fetch(url, {
    redirect: "manual",
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
  });
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`${url.href} answered ${res.status}`);
  }
  return JSON.parse(await limitedText(res, options.maxBytes ?? DEFAULT_MAX_BYTES));
}

/** The well-known metadata URLs of `issuer`: RFC 8414's first, then OpenID Connect's. */
export function metadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname === "/" ? "" : issuer.pathname.replace(/\/$/, "");
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`${issuer.origin}${path}/.well-known/openid-configuration`),
  ];
}

/** A URL the server may fetch keys from: https, or http on a loopback host. */
export function fetchableUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const loopback = isLoopback(url.hostname);
  if (url.protocol === "https:" || (url.protocol === "http:" && loopback)) return url;
  return undefined;
}

/** The issuer's jwks_uri, from its metadata (RFC 8414, then OIDC discovery); OAuthSetupError if unusable. */
export async function discoverJwksUrl(issuer: string, options: KeyFetchOptions = {}): Promise<URL> {
  const base = fetchableUrl(issuer);
  if (!base) throw new OAuthSetupError(`the OAuth issuer ${issuer} is not an https:// (or loopback http://) URL`);
  const tried: string[] = [];
  for (const url of metadataUrls(base)) {
    let doc: unknown;
    try {
      doc = await fetchJsonLimited(url, options);
    } catch (e) {
      tried.push(`${url.href}: ${(e as Error).message}`);
      continue;
    }
    if (doc === undefined) {
      tried.push(`${url.href}: 404`);
      continue;
    }
    if (!isPlainObject(doc)) throw new OAuthSetupError(`the OAuth metadata at ${url.href} is not a JSON object`);
    if (doc.issuer !== issuer)
      throw new OAuthSetupError(
        `the OAuth metadata at ${url.href} names the issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`,
      );
    const jwks = typeof doc.jwks_uri === "string" ? fetchableUrl(doc.jwks_uri) : undefined;
    if (!jwks) throw new OAuthSetupError(`the OAuth metadata at ${url.href} has no usable jwks_uri`);
    return jwks;
  }
  throw new OAuthSetupError(`the OAuth issuer ${issuer} publishes no metadata (${tried.join("; ")})`);
}

/** Why `key` cannot verify tokens signed with one of `algorithms`, or undefined when it can. */
async function unusable(key: unknown, algorithms: readonly string[]): Promise<string | undefined> {
  if (!isPlainObject(key)) return "not a JSON object";
  if (typeof key.kty !== "string" || !["RSA", "EC", "OKP"].includes(key.kty)) return `key type ${String(key.kty)}`;
  if ("d" in key) return "a private key";
  if (key.kty === "RSA" && (typeof key.n !== "string" || Buffer.from(key.n, "base64url").length < 256))
    return "an RSA key shorter than 2048 bits";
  if (key.use !== undefined && key.use !== "sig") return `use ${JSON.stringify(key.use)}`;
  const candidates = typeof key.alg === "string" ? [key.alg] : algorithms;
  if (typeof key.alg === "string" && !algorithms.includes(key.alg)) return `algorithm ${key.alg} not allowed`;
  for (const alg of candidates) {
    try {
      await importJWK(key as JWK, alg);
      return undefined;
    } catch {
      // another allowed algorithm may fit this key type
    }
  }
  return "does not import";
}

/** The usable keys of a fetched key set; every other key is logged and dropped. */
export async function usableKeys(jwks: unknown, algorithms: readonly string[], log?: Logger): Promise<{ keys: JWK[] }> {
  const list = isPlainObject(jwks) && Array.isArray(jwks.keys) ? jwks.keys : undefined;
  if (!list) throw new Error("the key set is not a JWKS ({keys: [...]})");
  const keys: JWK[] = [];
  for (const key of list.slice(0, MAX_KEYS)) {
    const why = await unusable(key, algorithms);
    if (why === undefined) keys.push(key as JWK);
    else
      log?.warn(
        {
          event: "oauth_key_skipped",
          kid: isPlainObject(key) && typeof key.kid === "string" ? key.kid : "",
          reason: why,
        },
        "oauth_key_skipped",
      );
  }
  if (list.length > MAX_KEYS) log?.warn({ event: "oauth_keys_truncated", count: list.length }, "oauth_keys_truncated");
  return { keys };
}

/** jose's remote key set over `url`, each fetch limited and filtered; a failed fetch also cools down. */
export function remoteKeySet(url: URL, algorithms: readonly string[], options: KeyFetchOptions = {}) {
  const cooldownMs = options.cooldownMs ?? 30_000;
  let failedAt = -Infinity;
  const fetchKeys = async (): Promise<Response> => {
    if (Date.now() - failedAt < cooldownMs) throw new Error("the issuer's key set failed recently (cooling down)");
    try {
      const jwks = await usableKeys(await fetchJsonLimited(url, options), algorithms, options.log);
      return Response.json(jwks);
    } catch (e) {
      failedAt = Date.now();
      options.log?.warn({ event: "oauth_jwks_failed", url: url.href, err: (e as Error).message }, "oauth_jwks_failed");
      throw e;
    }
  };
  const set = createRemoteJWKSet(url, {
    timeoutDuration: options.timeoutMs ?? 5000,
    cooldownDuration: cooldownMs,
    cacheMaxAge: 10 * 60_000,
    [customFetch]: fetchKeys,
  });
  return set;
}
