/**
 * OAuth for `mnote-tools mcp --http`, as the MCP authorization spec asks of a resource server:
 * the RFC 9728 protected-resource metadata at its well-known URL (and named in every
 * WWW-Authenticate challenge), bearer JWTs from the configured issuer checked by the SDK's
 * requireBearerAuth (signature against the issuer's JWKS, issuer, expiry, and the audience: the
 * token must name this server, expectedResource), and the token's scopes mapped to the contract's
 * capabilities (page.read, page.write, artifact.write: capabilityScopes in the generated registry):
 * a tools/call of a tool whose capability the token lacks is refused at the edge with 403
 * insufficient_scope naming that scope (the SDK's challenge), before any server is built. The
 * session grant's own scope still applies in the dispatcher: a call needs both.
 *
 * JWTs are verified with node:crypto alone (RS256, ES256), keys fetched from the JWKS URL and kept
 * for ten minutes (a kid not seen refetches once).
 */
import { createPublicKey, verify as verifySignature, type KeyObject } from "node:crypto";
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  type AuthInfo,
  type OAuthTokenVerifier,
} from "@modelcontextprotocol/server";
import { capabilityScopes } from "../../generated/registry";
import { isPlainObject } from "../../common/values";
import { mcpToolOf } from "./mcp-server";

export interface McpOAuthOptions {
  /** The authorization server's issuer identifier (the JWT's iss). */
  issuer: string;
  /** Where its signing keys are (default: <issuer>/.well-known/jwks.json). */
  jwksUrl?: string;
  /** This server's public URL (the /mcp endpoint): the audience tokens must carry. */
  resource: URL;
}

const JWKS_TTL_MS = 10 * 60_000;
const ALGS: Record<string, { hash: string; ec: boolean }> = {
  RS256: { hash: "sha256", ec: false },
  ES256: { hash: "sha256", ec: true },
};

const invalid = (why: string) => new OAuthError(OAuthErrorCode.InvalidToken, why);

function decodePart(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw invalid("the token is not a JWT");
  }
  if (!isPlainObject(value)) throw invalid("the token is not a JWT");
  return value;
}

/** A verifier of the issuer's JWTs (OAuthTokenVerifier for the SDK's bearer helpers). */
export function jwtVerifier(options: McpOAuthOptions, fetchJson = defaultFetchJson): OAuthTokenVerifier {
  const jwksUrl = options.jwksUrl ?? `${options.issuer.replace(/\/$/, "")}/.well-known/jwks.json`;
  let keys = new Map<string, KeyObject>();
  let fetchedAt = 0;
  async function key(kid: string): Promise<KeyObject | undefined> {
    if (!keys.has(kid) || Date.now() - fetchedAt > JWKS_TTL_MS) {
      const jwks = await fetchJson(jwksUrl);
      const list = isPlainObject(jwks) && Array.isArray(jwks.keys) ? jwks.keys : [];
      keys = new Map(
        list
          .filter((k): k is Record<string, unknown> => isPlainObject(k) && typeof k.kid === "string")
          .map((k) => [k.kid as string, createPublicKey({ key: k as never, format: "jwk" })]),
      );
      fetchedAt = Date.now();
    }
    return keys.get(kid);
  }
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const parts = token.split(".");
      if (parts.length !== 3) throw invalid("the token is not a JWT");
      const header = decodePart(parts[0]!);
      const alg = typeof header.alg === "string" ? ALGS[header.alg] : undefined;
      if (!alg || typeof header.kid !== "string") throw invalid("unsupported token algorithm or no key id");
      const publicKey = await key(header.kid);
      if (!publicKey) throw invalid("unknown signing key");
      const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
      const signature = Buffer.from(parts[2]!, "base64url");
      const ok = verifySignature(
        alg.hash,
        signed,
        alg.ec ? { key: publicKey, dsaEncoding: "ieee-p1363" } : publicKey,
        signature,
      );
      if (!ok) throw invalid("bad signature");
      const claims = decodePart(parts[1]!);
      if (claims.iss !== options.issuer) throw invalid("token from another issuer");
      const now = Math.floor(Date.now() / 1000);
      if (typeof claims.exp !== "number" || claims.exp <= now) throw invalid("token expired");
      if (typeof claims.nbf === "number" && claims.nbf > now + 60) throw invalid("token not yet valid");
      const audiences = (Array.isArray(claims.aud) ? claims.aud : [claims.aud]).filter((a) => typeof a === "string");
      const expected = options.resource.href.replace(/\/$/, "");
      // the SDK compares AuthInfo.resource with expectedResource: report this server when the token names it
      const resource = audiences.find((a) => a.replace(/\/$/, "") === expected) ?? audiences[0];
      return {
        token,
        clientId: [claims.client_id, claims.azp, claims.sub].find((v): v is string => typeof v === "string") ?? "",
        scopes: typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : [],
        expiresAt: claims.exp,
        resource: resource ? new URL(resource) : undefined,
        extra: { subject: typeof claims.sub === "string" ? claims.sub : undefined },
      };
    },
  };
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new OAuthError(OAuthErrorCode.ServerError, `the JWKS answered ${res.status}`);
  return res.json();
}

/** The resource server's side: metadata, the bearer gate, and the scope each tool needs. */
export function mcpOAuth(options: McpOAuthOptions) {
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(options.resource);
  const gate = requireBearerAuth({
    verifier: jwtVerifier(options),
    expectedResource: options.resource,
    resourceMetadataUrl,
  });
  const metadata = {
    resource: options.resource.href,
    authorization_servers: [options.issuer],
    scopes_supported: [...capabilityScopes],
    bearer_methods_supported: ["header"],
  };
  return {
    metadataPath: new URL(resourceMetadataUrl).pathname,
    metadata,
    gate,
    /** The 403 insufficient_scope answer when `body` calls a tool whose capability the token lacks. */
    scopeRefusal(body: unknown, auth: AuthInfo): Response | undefined {
      if (!isPlainObject(body) || body.method !== "tools/call" || !isPlainObject(body.params)) return undefined;
      const tool = typeof body.params.name === "string" ? mcpToolOf(body.params.name) : undefined;
      if (!tool || auth.scopes.includes(tool.capability)) return undefined;
      const error = new OAuthError(OAuthErrorCode.InsufficientScope, `this tool needs the ${tool.capability} scope`);
      return bearerAuthChallengeResponse(error, { requiredScopes: [tool.capability], resourceMetadataUrl });
    },
  };
}

export type McpOAuth = ReturnType<typeof mcpOAuth>;
