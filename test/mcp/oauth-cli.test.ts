/**
 * The OAuth options of `mnote-tools mcp` and `session grant` as an operator meets them (issues 40
 * and 47): a bad URL, an OAuth option without --http, or a half-given principal is one line and
 * exit 2 before anything starts; an issuer that cannot be used (unreachable, or metadata naming
 * another issuer) is one line and exit 3 at start-up, never a server that starts and answers 500.
 * `session grant --principal-issuer/--principal-subject` records the person in the grant, and the
 * approval page beside /mcp takes that person's own token.
 */
import { spawn } from "node:child_process";
import { cliPath, runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { freePort, startIssuer } from "../support/oauth-issuer";
import { start } from "../support/processes";
import Database from "better-sqlite3";

/** The CLI run without blocking this process (the test's issuer must answer meanwhile). */
function runAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

jest.setTimeout(300_000);

const lines = (text: string) => text.trim().split("\n").filter(Boolean);

describe("mcp's OAuth options", () => {
  it.each([
    ["an issuer that is not a URL", ["--http", "--oauth-issuer", "not-a-url"], "--oauth-issuer"],
    ["a plain-http issuer off loopback", ["--http", "--oauth-issuer", "http://auth.example.com"], "https://"],
    [
      "a resource that is not a URL",
      ["--http", "--oauth-issuer", "https://a.example", "--oauth-resource", "nope"],
      "--oauth-resource",
    ],
    [
      "a symmetric algorithm",
      ["--http", "--oauth-issuer", "https://a.example", "--oauth-algorithms", "HS256"],
      "HS256",
    ],
    ["--oauth-issuer without --http", ["--oauth-issuer", "https://auth.example.com"], "--http"],
    ["--oauth-resource without an issuer", ["--http", "--oauth-resource", "https://mcp.example/mcp"], "--oauth-issuer"],
  ])("%s: one line, exit 2", (_what, args, named) => {
    const run = runCli(["mcp", "--session", "s", "--token", "T", ...args], { timeoutMs: 120_000 });
    expect(run.status).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain(named);
  });

  it("an issuer that cannot be used is one line and exit 3 at start-up (unreachable; metadata naming another)", async () => {
    const p = seededProject([{ session: "s", actor: "user_1" }]);
    const base = ["mcp", "--session", "s", "--http", "--port", "0", "--token", "T", "--db", p.db, "--state", p.state];
    const dead = await runAsync([...base, "--oauth-issuer", `http://127.0.0.1:${await freePort()}`]);
    expect(dead.status).toBe(3);
    expect(lines(dead.stderr)).toEqual([expect.stringContaining("publishes no metadata")]);
    const issuer = await startIssuer();
    try {
      issuer.routes.set("/.well-known/oauth-authorization-server", () => ({
        status: 200,
        body: JSON.stringify({ issuer: "https://elsewhere.example", jwks_uri: issuer.url + issuer.jwksPath }),
      }));
      const other = await runAsync([...base, "--oauth-issuer", issuer.url]);
      expect(other.status).toBe(3);
      expect(lines(other.stderr)).toEqual([expect.stringContaining("names the issuer")]);
    } finally {
      await issuer.close();
    }
  });
});

describe("mcp --http --oauth-issuer, started as an operator would", () => {
  it("discovers the keys, serves a person's token in the grant issued to them, and nobody else's", async () => {
    const issuer = await startIssuer();
    try {
      const p = seededProject([]);
      const granted = runCli([
        "session",
        "grant",
        "--state",
        p.state,
        "--session",
        "sess_cli_alice",
        "--workspace",
        "ws_1",
        "--document",
        "doc_1",
        "--actor",
        "user_1",
        "--scope",
        "page.read,artifact.write",
        "--principal-issuer",
        issuer.url,
        "--principal-subject",
        "alice",
      ]);
      expect(granted.status).toBe(0);
      const port = await freePort();
      const resource = `http://127.0.0.1:${port}/mcp`;
      const server = await start(
        ["mcp", "--session", "sess_cli_alice", "--http", "--port", String(port), "--token", "T", "--db", p.db].concat([
          "--state",
          p.state,
          "--oauth-issuer",
          issuer.url,
          "--oauth-resource",
          resource,
        ]),
        { timeoutMs: 240_000 },
      );
      try {
        const note = (sub: string) =>
          issuer.token({ aud: resource, sub, scope: "page.read artifact.write" }).then((token) =>
            fetch(resource, {
              method: "POST",
              headers: {
                authorization: `Bearer ${token}`,
                "x-mnote-session": "sess_cli_alice",
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
              },
              body: JSON.stringify({
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: { name: "mnote_artifact_create_ai_note", arguments: { content: `by ${sub}` } },
              }),
            }).then(async (res) => ((await res.json()) as any).result.structuredContent),
          );
        expect(await note("alice")).toMatchObject({ ok: true });
        expect(await note("bob")).toMatchObject({ ok: false, error: { code: "mnote_tool_not_authenticated" } });
        // the approval page beside /mcp takes a person's own token: a sign-in ticket for Alice's
        // session to Alice, to Bob the answer of a session that does not exist (docs/APPROVAL.md)
        const ticket = async (sub: string) =>
          (
            await fetch(new URL("/v1/approvals/tickets", resource), {
              method: "POST",
              headers: {
                authorization: `Bearer ${await issuer.token({ aud: resource, sub, scope: "page.read artifact.write" })}`,
                "content-type": "application/json",
              },
              body: JSON.stringify({ sessionId: "sess_cli_alice" }),
            })
          ).status;
        expect([await ticket("alice"), await ticket("bob")]).toEqual([200, 404]);
        const db = new Database(p.db, { readonly: true });
        try {
          const rows = db.prepare("SELECT content FROM artifacts WHERE content LIKE 'by %'").all();
          expect(rows).toEqual([{ content: "by alice" }]);
        } finally {
          db.close();
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      await issuer.close();
    }
  });
});

describe("session grant --principal-issuer/--principal-subject", () => {
  it("records the person in the grant; one without the other is exit 2", () => {
    const p = seededProject([]);
    const grant = (extra: string[]) =>
      runCli([
        "session",
        "grant",
        "--state",
        p.state,
        "--session",
        "sess_alice",
        "--workspace",
        "ws_1",
        "--document",
        "doc_1",
        "--actor",
        "user_1",
        "--scope",
        "page.read",
        ...extra,
      ]);
    const half = grant(["--principal-subject", "alice"]);
    expect(half.status).toBe(2);
    expect(runCli(["session", "show", "sess_alice", "--state", p.state]).status).toBe(1);
    const done = grant(["--principal-issuer", "https://auth.example.com", "--principal-subject", "alice"]);
    expect(done.status).toBe(0);
    const shown = runCli(["session", "show", "sess_alice", "--state", p.state]);
    expect(JSON.parse(shown.stdout).principal).toEqual({ issuer: "https://auth.example.com", subject: "alice" });
  });
});
