/**
 * A budget whose store is down (docs/RELIABILITY.md, "Budgets"): two `serve` processes share a
 * private Redis (budgets and idempotency) and one kernel database; a policy lowers the note budget
 * per session to 4. Two principals write notes, then Redis is stopped and they go on. Each process
 * judges the calls by its own counters, which already hold the calls it made before: a principal
 * that used one instance only is held to exactly its budget, one spread over both to at most one
 * budget per instance. The kernel's table is what is counted. The outage is reported
 * (store_unavailable); no call is let through unjudged.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { allowEveryTool } from "../../runtime/approval/policy";
import { seededProject } from "../support/project";
import { start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { runCli } from "../support/paths";
import { privateRedis, redisServerPath } from "../support/fault-world";

jest.setTimeout(120_000);

const NOTE = "mnote.artifact.create_ai_note";
const PER_SESSION = 4;
const first = { sessionId: "s_first", actorId: "user_1" };
/** Another principal: the owner of another workspace, on its page. */
const second = { sessionId: "s_second", actorId: "user_3", workspaceId: "ws_2", documentId: "doc_other" };

function notesOf(db: string, marker: string): number {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare("SELECT content FROM artifacts WHERE type = 'ai_note'").all() as Array<{ content: unknown }>;
    return rows.filter((r) => JSON.stringify(r.content).includes(marker)).length;
  } finally {
    d.close();
  }
}

type Ids = { sessionId: string; actorId: string; workspaceId?: string; documentId?: string };

async function note(server: Running, ids: Ids, content: string) {
  const res = await fetch(`${server.url}/v1/tools/call`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer tok" },
    body: JSON.stringify(makeRequest(NOTE, { content }, {}, ids)),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** n notes one after another (a count that does not depend on timing): the answers' codes. */
async function notes(server: Running, ids: Ids, marker: string, n: number): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = await note(server, ids, `${marker} ${i}`);
    codes.push(a.body.ok ? "ok" : `${a.status} ${a.body.error.code} ${a.body.error.reason ?? ""}`.trim());
  }
  return codes;
}

const limited = `429 mnote_tool_rate_limited session`;
const redisServer = redisServerPath();

(redisServer ? describe : describe.skip)(
  `budgets with their store down${redisServer ? "" : " (skipped: redis-server not found)"}`,
  () => {
    it("each instance holds the budget by its own counts: exactly for a principal on one instance, one budget per instance at most", async () => {
      const p = seededProject([{ session: first.sessionId, actor: first.actorId }]);
      const grant = runCli([
        ...["session", "grant", "--state", p.state, "--session", second.sessionId, "--workspace", second.workspaceId],
        ...[
          "--document",
          second.documentId,
          "--actor",
          second.actorId,
          "--scope",
          "page.read,page.write,artifact.write",
        ],
      ]);
      expect(grant.status).toBe(0);
      const policy = join(p.dir, "policy.json");
      writeFileSync(policy, JSON.stringify({ ...allowEveryTool(), budgets: { [NOTE]: { perSession: PER_SESSION } } }));
      const redis = await privateRedis(false);
      const args = ["serve", "--db", p.db, "--state", p.state, "--store", redis.url, "--approval-policy", policy];
      const env = { MNOTE_BUDGETS: undefined };
      const [a, b] = await Promise.all([0, 1].map(() => start([...args, "--port", "0", "--token", "tok"], { env })));
      try {
        // Redis up: the budget is shared. first: 2 notes through a, 1 through b; second: 1 through a
        expect(await notes(a!, first, "BEFORE-FIRST", 2)).toEqual(["ok", "ok"]);
        expect(await notes(b!, first, "BEFORE-FIRST", 1)).toEqual(["ok"]);
        expect(await notes(a!, second, "BEFORE-SECOND", 1)).toEqual(["ok"]);

        await redis.stop();
        // second used a only: a knows its 1 note, so 3 more, then refused: exactly its budget
        expect(await notes(a!, second, "DOWN-SECOND", 5)).toEqual(["ok", "ok", "ok", limited, limited]);
        // first: a knows 2 of its notes, b knows 1; each lets through what its own count leaves
        expect(await notes(a!, first, "DOWN-FIRST-A", 4)).toEqual(["ok", "ok", limited, limited]);
        expect(await notes(b!, first, "DOWN-FIRST-B", 4)).toEqual(["ok", "ok", "ok", limited]);
      } finally {
        await Promise.all([a?.stop(), b?.stop()]);
        await redis.stop();
      }
      // the kernel's state: second holds exactly its budget; first one budget per instance (2 x 4)
      expect(notesOf(p.db, "BEFORE-SECOND") + notesOf(p.db, "DOWN-SECOND")).toBe(PER_SESSION);
      expect(notesOf(p.db, "BEFORE-FIRST") + notesOf(p.db, "DOWN-FIRST")).toBe(2 * PER_SESSION);
      // the outage is reported by both instances
      for (const server of [a!, b!])
        expect(server.stderr.some((l) => l.includes('"event":"store_unavailable"'))).toBe(true);
    });
  },
);
