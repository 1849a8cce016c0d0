/**
 * A local OAuth issuer for the MCP OAuth suites: an HTTP server on loopback publishing its RFC 8414
 * metadata, with its keys at a non-default jwks_uri (/keys/set.json), and tokens signed with jose.
 * What it serves can be changed by a test (the metadata, the key set, extra keys), and it counts
 * every fetch of the key set.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";

export const listen = (server: Server, port = 0) =>
  new Promise<number>((resolve) =>
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

/** A free loopback port (the resource URL, the tokens' audience, names it before the server starts). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  return port;
}

export interface TestIssuer {
  url: string;
  jwksPath: string;
  /** How many times the key set was fetched. */
  jwksFetches: () => number;
  /** What the server answers at each path (a test may replace or delete entries). */
  routes: Map<string, () => { status: number; body: string }>;
  /** The published keys (a test may add unusable ones). */
  published: JWK[];
  token(
    claims: Record<string, unknown>,
    how?: { alg?: "RS256" | "ES256"; key?: CryptoKey; kid?: string },
  ): Promise<string>;
  stranger: CryptoKey;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<TestIssuer> {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const ec = await generateKeyPair("ES256", { extractable: true });
  const stranger = await generateKeyPair("RS256");
  const published: JWK[] = [
    { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
  ];
  let fetches = 0;
  const routes = new Map<string, () => { status: number; body: string }>();
  const server = createServer((req, res) => {
    const route = routes.get(req.url ?? "");
    if (!route) return void res.writeHead(404).end();
    const { status, body } = route();
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  });
  const url = `http://127.0.0.1:${await listen(server)}`;
  const jwksPath = "/keys/set.json";
  routes.set("/.well-known/oauth-authorization-server", () => ({
    status: 200,
    body: JSON.stringify({ issuer: url, jwks_uri: `${url}${jwksPath}`, token_endpoint: `${url}/token` }),
  }));
  routes.set(jwksPath, () => {
    fetches++;
    return { status: 200, body: JSON.stringify({ keys: published }) };
  });
  return {
    url,
    jwksPath,
    jwksFetches: () => fetches,
    routes,
    published,
    stranger: stranger.privateKey,
    async token(claims, how = {}) {
      const alg = how.alg ?? "RS256";
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, sub: "person_1", client_id: "client_1", iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg, typ: "at+jwt", kid: how.kid ?? (alg === "RS256" ? "rsa-1" : "ec-1") })
        .sign(how.key ?? (alg === "RS256" ? rsa.privateKey : ec.privateKey));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
