/**
 * Approval through `mnote-tools call` (one process per call: the token outlives the process that
 * made it, by the state file's secret and nonces) and `serve` over HTTP, on the contract's levels
 * (the suites' allow-all policy removed), with the kernel's database checked after every refusal;
 * and the policy file and secret checked before use (exit 3).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { hashDatabaseFile } from "../support/runtime";

/** The contract's own levels: no host policy. */
const NO_POLICY = { MNOTE_APPROVAL_POLICY: undefined, MNOTE_APPROVAL_SECRET: undefined };
const REPLACE = { content: [{ type: "paragraph", text: "Approved by a person." }], mode: "replace" };
const owner = { sessionId: "s_owner", actorId: "user_1" };

function call(p: { db: string; state: string }, request: unknown, env: NodeJS.ProcessEnv = NO_POLICY) {
  const run = runCli(["call", "--db", p.db, "--state", p.state], { input: JSON.stringify(request), env });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

describe("approval through mnote-tools call", () => {
  it("approval_required with the preview, then the same call with the token writes once; the token is then used up", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const before = hashDatabaseFile(p.db);
    const asked = call(p, makeRequest("mnote.page.save", REPLACE, {}, owner));
    expect(asked.error.code).toBe("mnote_tool_approval_required");
    expect(asked.error.approval.preview.ops[0]).toMatchObject({ op: "replace", blocks: 1 });
    expect(hashDatabaseFile(p.db)).toBe(before);

    const token = asked.error.approval.token;
    const done = call(p, makeRequest("mnote.page.save", REPLACE, { approval: { token } }, owner));
    expect([done.ok, done.audit.approval]).toEqual([
      true,
      { decision: "approved", level: "ask", approvedBy: "user_1" },
    ]);
    const written = hashDatabaseFile(p.db);
    expect(written).not.toBe(before);

    const replay = call(p, makeRequest("mnote.page.save", REPLACE, { approval: { token } }, owner));
    expect([replay.error.code, replay.error.reason]).toEqual(["mnote_tool_approval_invalid", "replayed"]);
    expect(hashDatabaseFile(p.db)).toBe(written);
  });

  it("a policy that denies holds, nothing written", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const policy = join(p.dir, "policy.json");
    writeFileSync(policy, JSON.stringify({ tools: { "mnote.page.save": "deny" } }));
    const before = hashDatabaseFile(p.db);
    const denied = call(p, makeRequest("mnote.page.save", { ...REPLACE, mode: "append" }, {}, owner), {
      ...NO_POLICY,
      MNOTE_APPROVAL_POLICY: policy,
    });
    expect([denied.error.code, denied.error.reason]).toEqual(["mnote_tool_approval_denied", "policy"]);
    expect(hashDatabaseFile(p.db)).toBe(before);
  });

  it("a policy file or secret that cannot be used stops the command with exit 3, before any call", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const bad = join(p.dir, "bad.json");
    const cases: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
      ["{ not json", { MNOTE_APPROVAL_POLICY: bad }, /not JSON/],
      [
        JSON.stringify({ tools: { "mnote.page.delete": "allow" } }),
        { MNOTE_APPROVAL_POLICY: bad },
        /no tool mnote\.page\.delete/,
      ],
      ['{"tools": {"__proto__": "deny"}}', { MNOTE_APPROVAL_POLICY: bad }, /at \/tools/],
      ["{}", { MNOTE_APPROVAL_POLICY: bad, MNOTE_APPROVAL_SECRET: "short" }, /at least 32 bytes/],
    ];
    const before = hashDatabaseFile(p.db);
    for (const [text, env, message] of cases) {
      writeFileSync(bad, text);
      const run = runCli(["call", "--db", p.db, "--state", p.state], {
        input: JSON.stringify(makeRequest("mnote.page.save", REPLACE, {}, owner)),
        env: { ...NO_POLICY, ...env },
      });
      expect([run.status, run.stdout]).toEqual([3, ""]);
      expect(run.stderr).toMatch(message);
    }
    const missing = runCli(["call", "--db", p.db, "--state", p.state, "--approval-policy", join(p.dir, "nope.json")], {
      input: "{}",
      env: NO_POLICY,
    });
    expect(missing.status).toBe(3);
    expect(hashDatabaseFile(p.db)).toBe(before);
  });
});

describe("approval through serve (HTTP)", () => {
  it("the approval-required envelope, the follow-up with the token, and deny, on one server", async () => {
    const p = seededProject([
      { session: "s_owner", actor: "user_1" },
      { session: "s_locked", actor: "user_1" },
    ]);
    const policy = join(p.dir, "policy.json");
    writeFileSync(policy, JSON.stringify({ sessions: { s_locked: { tools: { "mnote.page.save": "deny" } } } }));
    const server = await start(
      ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", policy],
      { env: { ...NO_POLICY, MNOTE_APPROVAL_SECRET: "an approval secret of at least thirty-two bytes" } },
    );
    const url = `${server.url}/v1/tools/call`;
    const before = hashDatabaseFile(p.db);
    const asked = await postJson(url, makeRequest("mnote.page.save", REPLACE, {}, owner), "tok");
    expect([asked.status, asked.body.error.code]).toEqual([200, "mnote_tool_approval_required"]);
    const locked = await postJson(
      url,
      makeRequest("mnote.page.save", REPLACE, {}, { sessionId: "s_locked", actorId: "user_1" }),
      "tok",
    );
    expect([locked.body.error.code, locked.body.error.reason]).toEqual(["mnote_tool_approval_denied", "policy"]);
    expect(hashDatabaseFile(p.db)).toBe(before);

    const request = makeRequest(
      "mnote.page.save",
      REPLACE,
      { approval: { token: asked.body.error.approval.token } },
      owner,
    );
    const done = await postJson(url, request, "tok");
    expect([done.body.ok, done.body.result.revision]).toEqual([true, 1]);
    // the log line of each decision names it, with who approved
    await server.stop();
    const decisions = server.stderr
      .filter((l) => l.includes('"tool_call"'))
      .map((l) => JSON.parse(l).approval?.decision ?? null);
    expect(decisions).toEqual(["required", "denied", "approved"]);
  });
});
