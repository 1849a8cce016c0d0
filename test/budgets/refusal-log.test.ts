/**
 * Review finding (issue 44, item 5: "a refused call is one log line"): through the real `serve`, a
 * call refused by its budget (HTTP 429) is written once, as its tool_call line naming the budget;
 * the HTTP layer does not add an http_error line of its own for the same refusal (a flood of
 * refusals would otherwise write every refusal twice). The kernel's state is asserted too: the
 * budget's notes and not one more.
 */
import Database from "better-sqlite3";
import { toolByName } from "../../generated/registry";
import { allowEveryTool } from "../../runtime/approval/policy";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { makeRequest } from "../support/requests";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const NOTE = "mnote.artifact.create_ai_note";
const owner = { sessionId: "s_loop", actorId: "user_1" };

function noteCount(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT count(*) AS n FROM artifacts WHERE type = 'ai_note'").get() as { n: number }).n;
  } finally {
    d.close();
  }
}

it("serve: each refused call is one log line (tool_call), not a second http_error line for its 429", async () => {
  expect(toolByName(NOTE)!.budget).not.toBeNull();
  const p = seededProject([{ session: owner.sessionId, actor: owner.actorId }]);
  const policy = join(p.dir, "low.json");
  writeFileSync(policy, JSON.stringify({ ...allowEveryTool(), budgets: { [NOTE]: { perSession: 2 } } }));
  const server = await start(
    ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok", "--approval-policy", policy],
    { env: { MNOTE_BUDGETS: undefined } },
  );
  const statuses: number[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${server.url}/v1/tools/call`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer tok" },
        body: JSON.stringify(makeRequest(NOTE, { content: `LOOPED ${i}` }, {}, owner)),
      });
      statuses.push(res.status);
      await res.text();
    }
  } finally {
    await server.stop();
  }
  expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
  expect(noteCount(p.db)).toBe(2);
  const lines = server.stderr.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  const limited = lines.filter((l) => l.event === "tool_call" && l.code === "mnote_tool_rate_limited");
  expect(limited).toHaveLength(4);
  // the same refusals, logged a second time by the HTTP layer: none
  expect(lines.filter((l) => l.event === "http_error" && l.status === 429)).toHaveLength(0);
});
