/**
 * OAuth for `mnote-tools mcp --http`, as the MCP authorization spec asks of a resource server:
 * the RFC 9728 protected-resource metadata at its well-known URL (named in every WWW-Authenticate
 * challenge), bearer JWTs from the configured issuer verified by `jose` (signature against the
 * issuer's key set, oauth-keys.ts; the allowed asymmetric algorithms; issuer; expiry; and the
 * audience: the token must name this server), and the token's scopes mapped to the contract's
 * capabilities (page.read, page.write, artifact.write: capabilityScopes in the generated registry).
 *
 * The gate (authenticate) reads the Authorization header only, before any body is read. Every
 * failure is a 401 invalid_token with its reason (never a 500): a bad signature, an unknown key,
 * a key set that cannot be fetched, a wrong audience, no usable `sub`.
 *
 * The principal is the issuer plus the token's `sub`: a token without a non-empty `sub` is
 * refused; `client_id` is an application, never a person, and is not used. The session grant an
 * OAuth caller acts in must have been issued to that principal (mcp-server.ts).
 *
 * The scope gate (scopeRefusal) looks at every JSON-RPC message of the body: a single request, or
 * each element of a batch. A tools/call of a tool whose capability the token lacks refuses the
 * whole body with 403 insufficient_scope naming the scope(s), before anything is dispatched (no
 * element of a batch runs). The session grant's own scope still applies in the dispatcher.
 */
import { errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
} from "@modelcontextprotocol/server";
import { capabilityScopes } from "../../generated/registry";
import type { Principal } from "../state/grant-store";
import { isPlainObject } from "../../common/values";
import type { Logger } from "../../common/http/logger";
import { mcpToolOf } from "./mcp-server";
import { DEFAULT_ALGORITHMS, discoverJwksUrl, fetchableUrl, OAuthSetupError, remoteKeySet } from "./oauth-keys";

export interface McpOAuthOptions {
  /** The authorization server's issuer identifier (the JWT's iss). */
  issuer: string;
  /** Where its signing keys are; default: the jwks_uri of its metadata (RFC 8414, then OIDC). */
  jwksUrl?: string;
  /** This server's public URL (the /mcp endpoint): the audience tokens must carry. */
  resource: URL;
  /** The accepted signing algorithms (asymmetric only; default DEFAULT_ALGORITHMS). */
  algorithms?: readonly string[];
  log?: Logger;
  /** The key set's refetch cooldown (default 30 s). */
  cooldownMs?: number;
  /** Largest metadata or key-set body (default 256 KiB). */
  maxKeySetBytes?: number;
  /** Per-fetch timeout of the metadata and key set (default 5 s). */
  timeoutMs?: number;
}

/** A verified caller: its principal and the scopes its token carries. */
export interface OAuthCaller {
  principal: Principal;
  scopes: string[];
}

const invalid = (why: string) => new OAuthError(OAuthErrorCode.InvalidToken, why);

/** The reason a person can read for a jose refusal (never the token itself). */
function reasonOf(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return "the token has expired";
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === "aud") return "the token is not for this server (aud)";
    if (e.claim === "iss") return "the token is from another issuer";
    if (e.claim === "nbf") return "the token is not valid yet";
    return `the token's ${e.claim} claim is not accepted`;
  }
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (e instanceof joseErrors.JWKSNoMatchingKey) return "the token's signing key is not one of the issuer's";
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return "the token's signature is not valid";
  if (e instanceof joseErrors.JWKSTimeout) return "the issuer's keys could not be fetched in time";
  if (e instanceof joseErrors.JWSInvalid || e instanceof joseErrors.JWTInvalid) return "the token is not a valid JWT";
  if (e instanceof joseErrors.JOSEError) return "the token could not be verified";
  return "the issuer's keys could not be fetched";
}

/** The resource server's side: metadata, the bearer gate, and the scope each tool needs. */
export async function createMcpOAuth(options: McpOAuthOptions) {
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  const fetching = {
    maxBytes: options.maxKeySetBytes,
    cooldownMs: options.cooldownMs,
    timeoutMs: options.timeoutMs,
    log: options.log,
  };
  let jwksUrl: URL;
  if (options.jwksUrl !== undefined) {
    const url = fetchableUrl(options.jwksUrl);
    if (!url) throw new OAuthSetupError(`--oauth-jwks ${options.jwksUrl} is not an https:// (or loopback http://) URL`);
    jwksUrl = url;
  } else jwksUrl = await discoverJwksUrl(options.issuer, fetching);
  const keys = remoteKeySet(jwksUrl, algorithms, fetching);
  // the key set is fetched once now: an issuer whose keys cannot be had is a start-up error
  try {
    await keys.reload();
  } catch (e) {
    throw new OAuthSetupError(`the OAuth key set at ${jwksUrl.href} cannot be used: ${(e as Error).message}`);
  }
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(options.resource);
  const audience = [options.resource.href, options.resource.href.replace(/\/$/, "")];
  const challenge = (error: OAuthError, requiredScopes?: string[]) =>
    bearerAuthChallengeResponse(error, { resourceMetadataUrl, requiredScopes });

  /** The 403 insufficient_scope answer naming the scope(s) a call needs (the approval page uses it too). */
  const insufficientScope = (needed: string[]): Response => {
    const scopes = [...needed].sort();
    const error = new OAuthError(OAuthErrorCode.InsufficientScope, `this call needs the ${scopes.join(", ")} scope`);
    return challenge(error, scopes);
  };

  /** The caller a bearer token speaks for, or the OAuthError to answer. */
  async function verify(token: string): Promise<OAuthCaller> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, { issuer: options.issuer, audience, algorithms }));
    } catch (e) {
      throw invalid(reasonOf(e));
    }
    if (typeof payload.exp !== "number") throw invalid("the token has no expiry (exp)");
    if (typeof payload.sub !== "string" || payload.sub.trim() === "" || payload.sub.length > 255)
      throw invalid("the token names no subject (sub): it does not speak for a person");
    const scope = typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [];
    return { principal: { issuer: options.issuer, subject: payload.sub }, scopes: scope };
  }

  return {
    jwksUrl,
    metadataPath: new URL(resourceMetadataUrl).pathname,
    metadata: {
      resource: options.resource.href,
      authorization_servers: [options.issuer],
      scopes_supported: [...capabilityScopes],
      bearer_methods_supported: ["header"],
    },
    /** The caller of a request from its Authorization header alone, or the 401 to answer. */
    async authenticate(authorization: string | undefined): Promise<OAuthCaller | Response> {
      const match = /^Bearer ([^\s,]+)$/i.exec((authorization ?? "").trim());
      if (!match) return challenge(invalid("a bearer token is required"));
      try {
        return await verify(match[1]!);
      } catch (e) {
        return challenge(e instanceof OAuthError ? e : invalid("the token could not be verified"));
      }
    },
    /** The 403 insufficient_scope answer when any message of `body` calls a tool the token's scopes do not cover. */
    scopeRefusal(body: unknown, caller: OAuthCaller): Response | undefined {
      const missing = new Set<string>();
      for (const message of Array.isArray(body) ? body : [body]) {
        if (!isPlainObject(message) || message.method !== "tools/call" || !isPlainObject(message.params)) continue;
        const tool = typeof message.params.name === "string" ? mcpToolOf(message.params.name) : undefined;
        if (tool && !caller.scopes.includes(tool.capability)) missing.add(tool.capability);
      }
      return missing.size === 0 ? undefined : insufficientScope([...missing]);
    },
    insufficientScope,
  };
}

export type McpOAuth = Awaited<ReturnType<typeof createMcpOAuth>>;
