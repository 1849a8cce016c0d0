/**
 * The issuer's keys (runtime/transports/oauth-keys.ts) as an operator with a standard issuer and a
 * hostile client meet them: the key location is discovered from the issuer's metadata (RFC 8414,
 * then OpenID Connect) and checked at start-up (unreachable or inconsistent: OAuthSetupError, the
 * CLI's exit 3); --oauth-jwks overrides it; a flood of tokens naming unknown keys makes at most
 * one fetch per cooldown; a key set over the body limit is refused while it streams; an unusable
 * key is skipped with a log line and the others still verify; no failure is a 500.
 */
import { createServer, type Server } from "node:http";
import { SignJWT } from "jose";
import { createMcpOAuth } from "../../runtime/transports/mcp-oauth";
import { OAuthSetupError } from "../../runtime/transports/oauth-keys";
import { createLogger } from "../../common/http/logger";
import { listen, startIssuer, type TestIssuer } from "../support/oauth-issuer";

/** Fetch timeout for the issuer the test serves itself: wide, the suites must pass at load 20. */
const SLOW = 60_000;

const RESOURCE = new URL("http://127.0.0.1:1/mcp");
let issuer: TestIssuer;

beforeEach(async () => {
  issuer = await startIssuer();
});
afterEach(() => issuer.close());

function capture() {
  const lines: any[] = [];
  const log = createLogger({
    service: "test",
    level: "warn",
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) } as never,
  });
  return { log, lines };
}

const tokenFor = (claims: Record<string, unknown> = {}, kid?: string) =>
  issuer.token({ aud: RESOURCE.href, scope: "page.read", ...claims }, kid ? { kid } : {});

describe("where the keys are", () => {
  it("RFC 8414 metadata first; OpenID Connect discovery when the issuer publishes only that", async () => {
    const meta = issuer.routes.get("/.well-known/oauth-authorization-server")!;
    issuer.routes.delete("/.well-known/oauth-authorization-server");
    issuer.routes.set("/.well-known/openid-configuration", meta);
    const oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: RESOURCE });
    expect(oauth.jwksUrl.href).toBe(`${issuer.url}${issuer.jwksPath}`);
    const who = await oauth.authenticate(`Bearer ${await tokenFor()}`);
    expect(who).toEqual({ principal: { issuer: issuer.url, subject: "person_1" }, scopes: ["page.read"] });
  });

  it.each([
    [
      "no metadata at all",
      () => issuer.routes.delete("/.well-known/oauth-authorization-server"),
      /publishes no metadata/,
    ],
    [
      "metadata naming another issuer",
      () =>
        issuer.routes.set("/.well-known/oauth-authorization-server", () => ({
          status: 200,
          body: JSON.stringify({ issuer: "https://elsewhere.example", jwks_uri: `${issuer.url}${issuer.jwksPath}` }),
        })),
      /names the issuer "https:\/\/elsewhere.example"/,
    ],
    [
      "metadata without a jwks_uri",
      () =>
        issuer.routes.set("/.well-known/oauth-authorization-server", () => ({
          status: 200,
          body: JSON.stringify({ issuer: issuer.url }),
        })),
      /no usable jwks_uri/,
    ],
    ["a key set that answers 500", () => issuer.routes.set(issuer.jwksPath, () => ({ status: 500, body: "" })), /500/],
  ])("start-up is refused with one line: %s", async (_what, breakIt, message) => {
    breakIt();
    const error = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: RESOURCE }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OAuthSetupError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("\n");
  });

  it("an unreachable issuer is refused at start-up", async () => {
    const url = issuer.url;
    await issuer.close();
    issuer = await startIssuer(); // afterEach closes this one
    const error = await createMcpOAuth({ timeoutMs: SLOW, issuer: url, resource: RESOURCE }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthSetupError);
  });

  it("--oauth-jwks overrides discovery (an issuer with no metadata)", async () => {
    issuer.routes.delete("/.well-known/oauth-authorization-server");
    const oauth = await createMcpOAuth({
      timeoutMs: SLOW,
      issuer: issuer.url,
      resource: RESOURCE,
      jwksUrl: issuer.url + issuer.jwksPath,
    });
    expect(await oauth.authenticate(`Bearer ${await tokenFor()}`)).toMatchObject({ scopes: ["page.read"] });
  });
});

describe("the key set under load and abuse", () => {
  it("tokens naming unknown keys make at most one fetch per cooldown", async () => {
    const oauth = await createMcpOAuth({
      timeoutMs: SLOW,
      issuer: issuer.url,
      resource: RESOURCE,
      cooldownMs: 600_000,
    });
    const fetched = issuer.jwksFetches();
    for (let i = 0; i < 30; i++) {
      const answer = await oauth.authenticate(`Bearer ${await tokenFor({}, `unknown-${i}`)}`);
      expect(answer).toBeInstanceOf(Response);
      expect((answer as Response).status).toBe(401);
      expect((answer as Response).headers.get("www-authenticate")).toContain("signing key");
    }
    // the set was fresh from start-up: within the cooldown, not one refetch
    expect(issuer.jwksFetches() - fetched).toBe(0);
  });

  it("a key set that fails to fetch is not asked again within the cooldown either; known keys still verify", async () => {
    const oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: RESOURCE, cooldownMs: 30_000 });
    let failed = 0;
    issuer.routes.set(issuer.jwksPath, () => {
      failed++;
      return { status: 500, body: "" };
    });
    // only Date is controlled (jose and the key set read Date.now); timers and I/O run for real
    const real = ["nextTick", "setImmediate", "setTimeout", "clearTimeout", "setInterval", "clearInterval"] as const;
    jest.useFakeTimers({ doNotFake: [...real, "queueMicrotask", "hrtime", "performance"], now: Date.now() });
    try {
      jest.setSystemTime(Date.now() + 31_000); // past the cooldown of the start-up fetch
      for (let i = 0; i < 30; i++) {
        const answer = (await oauth.authenticate(`Bearer ${await tokenFor({}, `unknown-${i}`)}`)) as Response;
        expect(answer.status).toBe(401);
      }
      expect(failed).toBe(1);
      expect(await oauth.authenticate(`Bearer ${await tokenFor()}`)).toMatchObject({ scopes: ["page.read"] });
      jest.setSystemTime(Date.now() + 31_000);
      expect(((await oauth.authenticate(`Bearer ${await tokenFor({}, "later")}`)) as Response).status).toBe(401);
      expect(failed).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a key set over the body limit is refused while it streams (declared or chunked), and tokens get 401, not 500", async () => {
    const huge = JSON.stringify({ keys: [{ kty: "RSA", kid: "x", n: "A".repeat(3 * 1024 * 1024), e: "AQAB" }] });
    issuer.routes.set(issuer.jwksPath, () => ({ status: 200, body: huge }));
    const declared = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: RESOURCE }).catch(
      (e: unknown) => e,
    );
    expect((declared as Error).message).toMatch(/larger than 262144 bytes/);
    // chunked, no content-length: counted as it arrives
    let sent = 0;
    const chunked: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      const more = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += 64 * 1024;
          if (!res.write("A".repeat(64 * 1024))) return void res.once("drain", more);
        }
        res.end();
      };
      res.on("close", () => undefined);
      more();
    });
    const port = await listen(chunked);
    const streamed = await createMcpOAuth({
      timeoutMs: SLOW,
      issuer: issuer.url,
      resource: RESOURCE,
      jwksUrl: `http://127.0.0.1:${port}/jwks`,
    }).catch((e: unknown) => e);
    expect((streamed as Error).message).toMatch(/larger than 262144 bytes/);
    chunked.closeAllConnections();
    await new Promise((r) => chunked.close(r));
    expect(sent).toBeLessThan(8 * 1024 * 1024);

    // at run time: the issuer rotates to a huge set; a token naming a new key is a 401 with a reason
    issuer.routes.set(issuer.jwksPath, () => ({ status: 200, body: JSON.stringify({ keys: issuer.published }) }));
    const oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: RESOURCE, cooldownMs: 0 });
    issuer.routes.set(issuer.jwksPath, () => ({ status: 200, body: huge }));
    const answer = (await oauth.authenticate(`Bearer ${await tokenFor({}, "rotated")}`)) as Response;
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toContain("could not be fetched");
    // the keys it had still verify
    expect(await oauth.authenticate(`Bearer ${await tokenFor()}`)).toMatchObject({ scopes: ["page.read"] });
  });

  it("an unusable key is skipped with a log line; the others still verify; a symmetric token is refused", async () => {
    const secret = Buffer.alloc(32, 7);
    issuer.published.push(
      { kty: "oct", kid: "oct-1", k: secret.toString("base64url"), alg: "HS256" },
      { kty: "RSA", kid: "broken-rsa", n: "AA", e: "AQAB", alg: "RS256" },
      { kty: "EC", kid: "enc-1", crv: "P-256", x: "AA", y: "AA", use: "enc" },
      { kty: "EC", kid: "broken-ec", crv: "P-256", x: "AA", y: "AA", alg: "ES256" },
      { ...issuer.published[0]!, kid: "private-1", d: "AAAA" },
    );
    const { log, lines } = capture();
    const oauth = await createMcpOAuth({ timeoutMs: SLOW, issuer: issuer.url, resource: RESOURCE, log });
    const skipped = lines.filter((l) => l.event === "oauth_key_skipped").map((l) => [l.kid, l.reason]);
    expect(skipped).toEqual([
      ["oct-1", "key type oct"],
      ["broken-rsa", "an RSA key shorter than 2048 bits"],
      ["enc-1", 'use "enc"'],
      ["broken-ec", "does not import"],
      ["private-1", "a private key"],
    ]);
    for (const alg of ["RS256", "ES256"] as const)
      expect(await oauth.authenticate(`Bearer ${await issuer.token({ aud: RESOURCE.href }, { alg })}`)).toMatchObject({
        principal: { subject: "person_1" },
      });
    // a token "signed" with the oct key (HS256): refused, whatever the key set says
    const now = Math.floor(Date.now() / 1000);
    const hs = await new SignJWT({ iss: issuer.url, sub: "x", aud: RESOURCE.href, exp: now + 60 })
      .setProtectedHeader({ alg: "HS256", kid: "oct-1" })
      .sign(secret);
    const refused = (await oauth.authenticate(`Bearer ${hs}`)) as Response;
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("algorithm is not accepted");
  });
});
