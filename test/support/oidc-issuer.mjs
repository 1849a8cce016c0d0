/**
 * A real authorization server for the end-to-end OAuth suite: `oidc-provider` (the certified
 * OpenID Connect implementation), started by the test as a child process on loopback (it is ESM;
 * the test runner is CommonJS). Usage: node oidc-issuer.mjs <resource URL> <redirect URI>.
 *
 * - one public client, `mcp-test` (PKCE required, no secret), redirecting to <redirect URI>;
 * - the resource (RFC 8707) is <resource URL>: its access tokens are JWTs (ES256) whose audience is
 *   the resource and whose scopes are the contract's capabilities;
 * - the signing keys are published at a non-default jwks_uri (/signing/keys.json), named in the
 *   OpenID metadata at /.well-known/openid-configuration;
 * - the person who signs in is whoever the test last named (POST /test/next-account?sub=alice): the
 *   interaction (login and consent) is finished programmatically, as a login page would.
 *
 * Prints one JSON line on stdout when listening: {"issuer": "http://127.0.0.1:<port>"}.
 */
import { createServer } from "node:http";
import Provider, { errors } from "oidc-provider";
import { exportJWK, generateKeyPair } from "jose";

const [resource, redirectUri] = process.argv.slice(2);
const SCOPES = "page.read page.write artifact.write";

const { privateKey } = await generateKeyPair("ES256", { extractable: true });
const signing = { ...(await exportJWK(privateKey)), kid: "es-1", alg: "ES256", use: "sig" };

let nextAccount = "nobody";
let provider;
const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, "http://localhost");
    if (req.method === "POST" && url.pathname === "/test/next-account") {
      nextAccount = url.searchParams.get("sub") ?? "nobody";
      return void res.writeHead(204).end();
    }
    if (url.pathname.startsWith("/interaction/")) return await finishInteraction(req, res);
    return provider.callback()(req, res);
  } catch (e) {
    res.writeHead(500).end(String(e));
  }
});

/** Signs in the named account and grants the resource's scopes (what a login and consent page would do). */
async function finishInteraction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId: nextAccount, clientId: details.params.client_id });
  if (String(details.params.scope ?? "").includes("openid")) grant.addOIDCScope("openid");
  grant.addResourceScope(resource, SCOPES);
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: nextAccount }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
provider = new Provider(issuer, {
  clients: [
    {
      client_id: "mcp-test",
      application_type: "native",
      token_endpoint_auth_method: "none",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      id_token_signed_response_alg: "ES256",
    },
  ],
  jwks: { keys: [signing] },
  routes: { jwks: "/signing/keys.json" },
  cookies: { keys: ["oidc-issuer-test-cookie-key"] },
  pkce: { required: () => true },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return {
          scope: SCOPES,
          audience: resource,
          accessTokenFormat: "jwt",
          accessTokenTTL: 600,
          jwt: { sign: { alg: "ES256" } },
        };
      },
    },
  },
});
process.stdout.write(JSON.stringify({ issuer }) + "\n");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
