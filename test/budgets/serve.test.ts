/**
 * The looping model of issue 44 through the real `serve`: 500 create_ai_note calls from one
 * session, each with a new key and content, end at the budget. Every refusal is HTTP 429 with
 * Retry-After and the same envelope a program reads (mnote_tool_rate_limited, retryAfterSeconds),
 * is one tool_call log line naming the budget (tool and reason), never the content; the kernel's
 * database holds exactly the budget's notes. A policy that raises a ceiling stops serve (exit 3).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { toolByName } from "../../generated/registry";
import { allowEveryTool } from "../../runtime/approval/policy";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { runCli } from "../support/paths";

const NOTE = "mnote.artifact.create_ai_note";
const budget = toolByName(NOTE)!.budget!;
const owner = { sessionId: "s_loop", actorId: "user_1" };

function noteCount(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT count(*) AS n FROM artifacts WHERE type = 'ai_note'").get() as { n: number }).n;
  } finally {
    d.close();
  }
}

async function post(url: string, body: unknown) {
  const res = await fetch(`${url}/v1/tools/call`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer tok" },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
}

describe("serve: a looping model ends at the budget", () => {
  it("500 notes from one session: the budget's worth written, the rest 429 with Retry-After, one log line each", async () => {
    const p = seededProject([{ session: owner.sessionId, actor: owner.actorId }]);
    // budgets on (the suites' processes run with MNOTE_BUDGETS=off: test/support/global-setup.js)
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"], {
      env: { MNOTE_BUDGETS: undefined },
    });
    const answers: Array<Awaited<ReturnType<typeof post>>> = [];
    try {
      // as a looping model sends: a new call id, key and content each time (a few in flight at once)
      for (let i = 0; i < 500; i += 10) {
        const batch = Array.from({ length: 10 }, (_, j) =>
          post(server.url, makeRequest(NOTE, { content: `LOOPED CONTENT ${i + j}` }, {}, owner)),
        );
        answers.push(...(await Promise.all(batch)));
      }
    } finally {
      await server.stop();
    }
    const ok = answers.filter((a) => a.status === 200 && a.body.ok === true);
    const refused = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(budget.perSession);
    expect(refused).toHaveLength(500 - budget.perSession);
    for (const a of refused) {
      expect(a.body).toMatchObject({
        ok: false,
        toolName: NOTE,
        result: null,
        audit: { effect: "none", commandId: null },
        error: { code: "mnote_tool_rate_limited", retryable: true, reason: "session" },
      });
      expect(a.retryAfter).toBe(String(a.body.error.retryAfterSeconds));
      expect(a.body.error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(a.body.error.retryAfterSeconds).toBeLessThanOrEqual(budget.windowSeconds);
    }
    // the kernel's state, not only the answers
    expect(noteCount(p.db)).toBe(budget.perSession);
    // one log line per refused call, naming the budget (tool, reason); never the content
    const lines = server.stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
    const limited = lines.filter((l) => l.event === "tool_call" && l.code === "mnote_tool_rate_limited");
    expect(limited).toHaveLength(500 - budget.perSession);
    for (const l of limited) expect(l).toMatchObject({ level: "warn", toolName: NOTE, reason: "session", ok: false });
    expect(server.stderr.join("\n")).not.toContain("LOOPED CONTENT");
  });

  it("a policy that tries to raise a ceiling stops serve at start (exit 3), naming the place", () => {
    const p = seededProject([]);
    const policy = join(p.dir, "raise.json");
    writeFileSync(
      policy,
      JSON.stringify({ ...allowEveryTool(), budgets: { [NOTE]: { perPage: budget.perPage + 1 } } }),
    );
    const run = runCli(
      ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", policy],
      { env: { MNOTE_BUDGETS: undefined }, timeoutMs: 30_000 },
    );
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(`/budgets/${NOTE}/perPage`);
    expect(run.stderr).toContain("may only lower a budget");
    expect(run.stdout).not.toContain("listening");
  });
});
