/**
 * The transports as a user runs them: `mnote-tools call` (one process per request) on the embedded
 * kernel, on a remote kernel over the generated HTTP client, and through the kernel's CLI adapter;
 * and `mnote-tools serve` over HTTP.
 */
import { join } from "node:path";
import { cliPath, repoRoot, runCli } from "../support/paths";
import { tempDir } from "../support/tmp";
import { postJson, start } from "../support/processes";
import { makeRequest, sampleArgs } from "../support/requests";
import { validateToolResponse } from "../../generated/validators";
import { contract, toolList } from "../../generated/registry";

function project() {
  const dir = tempDir("mnote-transport-");
  const db = join(dir, "kernel.db");
  const state = join(dir, "runtime.db");
  expect(runCli(["kernel", "seed", join(repoRoot, "examples", "demo-workspace.json"), "--db", db]).status).toBe(0);
  for (const [session, actor, document] of [
    ["s_owner", "user_1", "doc_1"],
    ["s_reader", "user_2", "doc_1"],
    ["s_outsider", "user_2", "doc_secret"],
  ]) {
    const grant = runCli([
      "session",
      "grant",
      "--state",
      state,
      "--session",
      session!,
      "--workspace",
      "ws_1",
      "--document",
      document!,
      "--actor",
      actor!,
      "--scope",
      "page.read,page.write,artifact.write",
    ]);
    expect(grant.stderr).toBe("");
  }
  return { dir, db, state };
}

const owner = { sessionId: "s_owner", actorId: "user_1" };
const ok = { status: 0, stderr: /^$/ };
/** The README's exit table: a kernel that refuses the token or whose adapter cannot start is 3. */
const misconfigured = (reason: string) => ({
  status: 3,
  stderr: new RegExp(`^mnote-tools: the kernel is misconfigured \\(${reason}\\)[^\\n]*\\n$`),
});
const reader = { sessionId: "s_reader", actorId: "user_2" };
const fresh = (name: string) => {
  const { baseRevision: _b, ...args } = sampleArgs[name]!;
  return args;
};

describe("mnote-tools call", () => {
  const p = project();
  /** The envelope call answered; exit 0 and nothing on stderr, or (misconfigured) 3 and that one line. */
  const call = (request: unknown, extra: string[] = [], exit: { status: number; stderr: string | RegExp } = ok) => {
    const run = runCli(["call", "--db", p.db, "--state", p.state, ...extra], {
      input: typeof request === "string" ? request : JSON.stringify(request),
    });
    expect(run.status).toBe(exit.status);
    expect(run.stderr).toMatch(exit.stderr);
    const response = JSON.parse(run.stdout);
    expect(validateToolResponse(response)).toBe(true);
    return response;
  };

  it.each(toolList.map((t) => [t.name]))("%s: success, and the shapes of the note", (name) => {
    const response = call(makeRequest(name, fresh(name), {}, owner));
    expect(response).toMatchObject({
      ok: true,
      toolName: name,
      error: null,
      audit: { effect: name === "mnote.page.get" ? "read" : "write" },
    });
  });

  it("dryRun, permission failure and business failure", () => {
    expect(call(makeRequest("mnote.page.save", fresh("mnote.page.save"), { dryRun: true }, owner))).toMatchObject({
      ok: true,
      result: { dryRun: true, diff: [{ op: "append", blocks: 2 }] },
      audit: { effect: "dry_run", commandId: null },
    });
    expect(call(makeRequest("mnote.page.save", fresh("mnote.page.save"), {}, reader))).toMatchObject({
      ok: false,
      result: null,
      error: { code: "mnote_tool_permission_denied", message: "无页面写权限" },
    });
    expect(
      call(makeRequest("mnote.page.save", { ...fresh("mnote.page.save"), baseRevision: 0 }, {}, owner)),
    ).toMatchObject({
      ok: false,
      error: { code: "mnote_tool_conflict", message: "页面版本冲突，需要刷新后重试" },
    });
  });

  it("exit 0 with a failure envelope for input that is not even JSON", () => {
    expect(call("not json").error.code).toBe("mnote_tool_invalid_input");
  });

  it("against a remote kernel through the generated HTTP client (kernel serve)", async () => {
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
    const response = call(makeRequest("mnote.artifact.create_ai_note", { content: "over http" }, {}, owner), [
      "--kernel-url",
      kernel.url,
      "--kernel-token",
      "ktok",
    ]);
    expect(response).toMatchObject({ ok: true, audit: { effect: "write" } });
    const denied = call(
      makeRequest("mnote.page.get", {}, {}, owner),
      ["--kernel-url", kernel.url, "--kernel-token", "wrong"],
      misconfigured("token_refused"),
    );
    // a refused token is misconfiguration, named and final: a model must not retry it forever
    expect(denied.error).toMatchObject({
      code: "mnote_tool_kernel_misconfigured",
      reason: "token_refused",
      retryable: false,
    });
    expect(await kernel.stop()).toBe(0);
    const down = call(makeRequest("mnote.page.get", {}, {}, owner), ["--kernel-url", kernel.url]);
    expect(down.error).toMatchObject({ code: "mnote_tool_kernel_unavailable", retryable: true });
  });

  it("through the kernel's CLI adapter (kernel exec), as with mnote-cli", () => {
    const adapter = `${process.execPath} ${cliPath} kernel exec --db ${p.db}`;
    const response = call(makeRequest("mnote.page.get", { includeBlocks: false }, {}, owner), [
      "--kernel-cli",
      adapter,
    ]);
    expect(response).toMatchObject({ ok: true, result: { documentId: "doc_1" } });
    const refused = call(makeRequest("mnote.page.update_title", { title: "x" }, {}, reader), ["--kernel-cli", adapter]);
    expect(refused.error.reason).toBe("page_write");
    const broken = call(
      makeRequest("mnote.page.get", {}, {}, owner),
      ["--kernel-cli", "/nonexistent/mnote-cli"],
      misconfigured("adapter_not_found"),
    );
    expect(broken.error).toMatchObject({
      code: "mnote_tool_kernel_misconfigured",
      reason: "adapter_not_found",
      retryable: false,
    });
  });
});

describe("mnote-tools serve", () => {
  it("serves the tools over HTTP with a token, a size limit, session routes, logs without content, and stops gracefully", async () => {
    const p = project();
    const server = await start([
      "serve",
      "--db",
      p.db,
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
      "--host-token",
      "host",
      "--max-bytes",
      "65536",
    ]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const url = `${server.url}/v1/tools/call`;

    const health: any = await (await fetch(`${server.url}/healthz`)).json();
    expect(health).toMatchObject({ ok: true, contract: { version: contract.version } });
    const listing: any = await (
      await fetch(`${server.url}/v1/tools`, { headers: { authorization: "Bearer tok" } })
    ).json();
    expect(listing.tools.map((t: { providerName: string }) => t.providerName).sort()).toEqual(
      toolList.map((t) => t.providerName).sort(),
    );
    expect(listing.tools[0].parameters).toMatchObject({ type: "object" });

    for (const tool of toolList) {
      const r = await postJson(url, makeRequest(tool.name, fresh(tool.name), {}, owner), "tok");
      expect([tool.name, r.status, r.body.ok]).toEqual([tool.name, 200, true]);
    }
    const denied = await postJson(url, makeRequest("mnote.page.save", fresh("mnote.page.save"), {}, reader), "tok");
    expect([denied.status, denied.body.error.code]).toEqual([200, "mnote_tool_permission_denied"]);
    expect((await postJson(url, makeRequest("mnote.page.get", {}, {}, owner))).status).toBe(401);
    expect((await postJson(url, makeRequest("mnote.page.get", {}, {}, owner), "wrong")).status).toBe(401);
    const huge = await postJson(
      url,
      makeRequest("mnote.artifact.create_ai_note", { content: "x".repeat(100_000) }, {}, owner),
      "tok",
    );
    expect([huge.status, huge.body.error.code]).toEqual([413, "mnote_tool_payload_too_large"]);

    const grant = {
      sessionId: "s_http",
      workspaceId: "ws_1",
      documentId: "doc_1",
      actorId: "user_1",
      capabilityScope: ["page.read"],
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    expect((await postJson(`${server.url}/v1/sessions`, grant, "tok")).status).toBe(401);
    expect((await postJson(`${server.url}/v1/sessions`, { ...grant, capabilityScope: ["*"] }, "host")).status).toBe(
      400,
    );
    expect((await postJson(`${server.url}/v1/sessions`, grant, "host")).status).toBe(201);
    const binding: any = await (
      await fetch(`${server.url}/v1/sessions/s_http`, { headers: { authorization: "Bearer tok" } })
    ).json();
    expect(binding).toEqual(grant);
    // a grant for one person (an OAuth principal: issuer + sub), and a principal missing its subject
    const principal = { issuer: "https://auth.example.com", subject: "alice" };
    const personal = { ...grant, sessionId: "s_alice", principal };
    expect((await postJson(`${server.url}/v1/sessions`, personal, "host")).body.principal).toEqual(principal);
    const half = await postJson(`${server.url}/v1/sessions`, { ...personal, principal: { issuer: "x" } }, "host");
    expect([half.status, half.body.pointer]).toEqual([400, "/principal/subject"]);
    expect(
      (
        await postJson(
          url,
          makeRequest(
            "mnote.page.get",
            {},
            { traceId: "trace_http_log" },
            { ...grant, capabilityScope: ["page.read"] },
          ),
          "tok",
        )
      ).body.ok,
    ).toBe(true);

    // graceful stop: a request in flight when SIGTERM arrives still gets its answer
    const inFlight = postJson(url, makeRequest("mnote.page.get", {}, {}, owner), "tok");
    await new Promise((r) => setTimeout(r, 5));
    const code = server.stop("SIGTERM");
    expect((await inFlight).body.ok).toBe(true);
    expect(await code).toBe(0);

    const calls = server.stderr.map((l) => JSON.parse(l)).filter((l) => l.event === "tool_call");
    expect(calls.length).toBeGreaterThanOrEqual(toolList.length + 2);
    expect(calls.find((c) => c.traceId === "trace_http_log")).toMatchObject({ toolName: "mnote.page.get", ok: true });
    const logText = server.stderr.join("\n");
    for (const content of ["项目计划", "章节一", "First step", "Step two"]) expect(logText).not.toContain(content);
  });
});
