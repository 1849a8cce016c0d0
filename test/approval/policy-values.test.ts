/**
 * Issue 28 item 2: a policy condition is checked against the tool's own argument schema, values
 * included. A condition that can never match (a typo "Replace", a string "0" for an integer, null
 * for a field that always has a value) stops `call` and `serve` with exit 3 before any call, the
 * kernel untouched; before, the file loaded and its workspace allow replaced the contract's ask.
 * And null in a condition means "the call carries no value": {baseRevision: null} asks exactly
 * when the model sent no revision.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { makeRequest } from "../support/requests";
import { hashDatabaseFile } from "../support/runtime";
import { approvalPolicyFrom } from "../../runtime/approval/policy";
import { effectiveLevel } from "../../runtime/approval/level";
import { toolByName } from "../../generated/registry";

const NO_ENV = { MNOTE_APPROVAL_POLICY: undefined, MNOTE_APPROVAL_SECRET: undefined };
const owner = { sessionId: "s_owner", actorId: "user_1" };
const REPLACE = { content: [{ type: "paragraph", text: "Nobody approved this." }], mode: "replace" };

/** The page.save rule of a workspace that loosens ask to allow, except on one condition. */
const saveRule = (args: Record<string, unknown>) => ({
  tools: { "mnote.page.save": { default: "allow", when: [{ args, approval: "ask" }] } },
});

function callWith(p: { dir: string; db: string; state: string }, policy: unknown, request: unknown) {
  const file = join(p.dir, "policy.json");
  writeFileSync(file, JSON.stringify(policy));
  return runCli(["call", "--db", p.db, "--state", p.state, "--approval-policy", file], {
    input: JSON.stringify(request),
    env: NO_ENV,
  });
}

describe("policy conditions: values checked against the tool's schema", () => {
  const never: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'a typo ("Replace")',
      { mode: "Replace" },
      /when\/0\/args\/mode: "Replace" is never a valid mode \(not one of "replace", "append"\)/,
    ],
    [
      'a wrong type ("0" for an integer)',
      { baseRevision: "0" },
      /args\/baseRevision: "0" is never a valid baseRevision/,
    ],
    ["out of range (-1)", { baseRevision: -1 }, /args\/baseRevision: -1 is never a valid baseRevision/],
    ["null for a field with a default", { mode: null }, /args\/mode: mode defaults to "append".*null never matches/],
    ["null for a required field", { content: null }, /args\/content: content is required/],
    ["a scalar for an array field", { content: "x" }, /args\/content: "x" is never a valid content/],
  ];

  it.each(never)("%s: `call` stops with exit 3 before any call; the kernel is untouched", (_what, args, message) => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const before = hashDatabaseFile(p.db);
    const run = callWith(p, saveRule(args), makeRequest("mnote.page.save", REPLACE, {}, owner));
    expect([run.status, run.stdout]).toEqual([3, ""]);
    expect(run.stderr).toMatch(message);
    expect(hashDatabaseFile(p.db)).toBe(before);
  });

  it("`serve` with a condition that can never match does not start (exit 3)", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const file = join(p.dir, "policy.json");
    writeFileSync(file, JSON.stringify({ sessions: { s_owner: saveRule({ mode: "Replace" }) } }));
    const run = runCli(
      ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", file],
      { env: NO_ENV },
    );
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/\/sessions\/s_owner\/tools\/mnote\.page\.save\/when\/0\/args\/mode: "Replace"/);
  });

  it("the value spelled right loads, and asks: the replace waits for a person, nothing written", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const before = hashDatabaseFile(p.db);
    const run = callWith(p, saveRule({ mode: "replace" }), makeRequest("mnote.page.save", REPLACE, {}, owner));
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).error.code).toBe("mnote_tool_approval_required");
    expect(hashDatabaseFile(p.db)).toBe(before);
  });
});

describe("policy conditions: null means the call carries no value", () => {
  it("{baseRevision: null} asks for an append sent without a revision, and lets one with a revision through", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const policy = saveRule({ baseRevision: null });
    const append = { content: [{ type: "paragraph", text: "Added." }], mode: "append" };
    const before = hashDatabaseFile(p.db);
    const unbound = callWith(p, policy, makeRequest("mnote.page.save", append, {}, owner));
    expect(unbound.status).toBe(0);
    expect(JSON.parse(unbound.stdout).error.code).toBe("mnote_tool_approval_required");
    expect(hashDatabaseFile(p.db)).toBe(before);

    const bound = callWith(p, policy, makeRequest("mnote.page.save", { ...append, baseRevision: 0 }, {}, owner));
    expect(JSON.parse(bound.stdout)).toMatchObject({ ok: true, result: { revision: 1 } });
    expect(hashDatabaseFile(p.db)).not.toBe(before);
  });

  it("the matcher: null matches a field left out or sent null, and nothing else", () => {
    const tool = toolByName("mnote.page.save")!;
    const policy = approvalPolicyFrom(saveRule({ baseRevision: null }));
    const level = (args: Record<string, unknown>) => effectiveLevel(tool, "s", { content: [], ...args }, policy);
    expect([level({}), level({ baseRevision: null }), level({ baseRevision: 0 }), level({ baseRevision: 7 })]).toEqual([
      "ask",
      "ask",
      "allow",
      "allow",
    ]);
  });
});
