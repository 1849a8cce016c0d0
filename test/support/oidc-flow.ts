/**
 * The person's side of OAuth against the real authorization server (test/support/oidc-issuer.mjs,
 * `oidc-provider`), for the end-to-end suites: the server started as a child process, and a person
 * signed in through the MCP v2 client's own OAuth flow (a pre-registered public client, code with
 * PKCE, the resource indicator), the browser's redirects followed with its cookies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from "@modelcontextprotocol/client";

export const REDIRECT = "http://127.0.0.1:9/callback";

export interface AuthorizationServer {
  issuer: string;
  stop(): void;
}

/** Starts the authorization server for `resource` and reads its issuer URL from its first line. */
export async function startAuthorizationServer(resource: string): Promise<AuthorizationServer> {
  const as: ChildProcess = spawn(process.execPath, [join(__dirname, "oidc-issuer.mjs"), resource, REDIRECT], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: as.stdout! }).once("line", resolve);
    as.once("exit", (code) => reject(new Error(`the authorization server exited (${code})`)));
  });
  return { issuer: (JSON.parse(first) as { issuer: string }).issuer, stop: () => void as.kill("SIGTERM") };
}

/** The client's side of OAuth, as an MCP host implements it (pre-registered public client, PKCE). */
export class TestOAuthClient implements OAuthClientProvider {
  authorizationUrl?: URL;
  private saved?: { tokens?: any; verifier?: string; discovery?: any };
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "mnote-tools test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return { client_id: "mcp-test" };
  }
  tokens() {
    return this.saved?.tokens;
  }
  saveTokens(tokens: any) {
    this.saved = { ...this.saved, tokens };
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.saved = { ...this.saved, verifier };
  }
  codeVerifier() {
    return this.saved!.verifier!;
  }
  // the authorization server the flow began with, checked again on the callback leg (SEP-2352)
  saveDiscoveryState(discovery: any) {
    this.saved = { ...this.saved, discovery };
  }
  discoveryState() {
    return this.saved?.discovery;
  }
}

/** The person's browser: follows the authorization server's redirects (with its cookies) back to the callback. */
export async function browse(start: URL): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, {
      redirect: "manual",
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = res.headers.get("location");
    if (!location)
      throw new Error(`the authorization server stopped at ${url.href} (${res.status}): ${await res.text()}`);
    url = new URL(location, url);
    if (url.href.startsWith(REDIRECT)) return url;
  }
  throw new Error("too many redirects");
}

/**
 * One person (`sub`) signs in through the MCP client's own OAuth flow against `issuer` for
 * `resource`, acting in `session`: a connected client, its OAuth provider (the access token) and
 * the authorization URL the client built.
 */
export async function signIn(issuer: string, resource: string, sub: string, session: string) {
  await fetch(`${issuer}/test/next-account?sub=${sub}`, { method: "POST" });
  const provider = new TestOAuthClient();
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(resource), {
      authProvider: provider,
      requestInit: { headers: { "X-Mnote-Session": session } },
    });
  const options = { versionNegotiation: { mode: { pin: "2026-07-28" as const } } };
  const first = transport();
  // the 401 names the resource metadata; the client discovers the issuer and sends the person to it
  let refused: unknown;
  await new Client({ name: "e2e", version: "1" }, options).connect(first).catch((e: unknown) => (refused = e));
  if (!(refused instanceof UnauthorizedError)) throw new Error(`the first connect was not refused: ${String(refused)}`);
  const authorize = provider.authorizationUrl!;
  await first.finishAuth((await browse(authorize)).searchParams);
  const client = new Client({ name: "e2e", version: "1" }, options);
  await client.connect(transport());
  return { client, provider, authorize, token: provider.tokens()!.access_token as string };
}
