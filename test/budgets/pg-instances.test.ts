/**
 * Three `serve` processes on one PostgreSQL database (each its own --state URL, as on three
 * machines) and one kernel behind `mnote-tools kernel serve`: a looping model's calls spread over
 * the three share one budget, so the kernel holds the budget's notes, not three times it; and the
 * answer to a write made before the budget ran out is still replayed, through any instance.
 */
import Database from "better-sqlite3";
import { toolByName } from "../../generated/registry";
import { seededProject } from "../support/project";
import { postJson, start, type Running } from "../support/processes";
import { makeRequest } from "../support/requests";
import { runCli } from "../support/paths";
import { describePostgres, freshDatabase, testPostgres, type TestPostgres } from "../support/postgres";

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

describePostgres("budgets shared by three serve processes on one Postgres", () => {
  let postgres: TestPostgres;
  let kernel: Running | undefined;
  let servers: Running[] = [];
  beforeAll(async () => {
    postgres = await testPostgres();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await kernel?.stop();
    await postgres?.close();
  });

  it("a loop spread over the three writes the budget's notes once; a write made before is still replayed", async () => {
    const p = seededProject([]);
    const state = await freshDatabase(postgres.url);
    const grant = runCli([
      ...["session", "grant", "--state", state, "--session", owner.sessionId, "--workspace", "ws_1"],
      ...["--document", "doc_1", "--actor", owner.actorId, "--scope", "page.read,page.write,artifact.write"],
    ]);
    expect(grant.stderr).toBe("");
    kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
    servers = await Promise.all(
      [0, 1, 2].map((i) =>
        start(
          [
            ...["serve", "--kernel-url", kernel!.url, "--kernel-token", "ktok"],
            ...["--state", `${state}?application_name=budget-${i}`, "--port", "0", "--token", "tok"],
          ],
          // budgets on (the suites' processes run with MNOTE_BUDGETS=off: test/support/global-setup.js)
          { env: { MNOTE_BUDGETS: undefined } },
        ),
      ),
    );
    const call = (i: number, request: unknown) => postJson(`${servers[i % 3]!.url}/v1/tools/call`, request, "tok");
    const first = makeRequest(NOTE, { content: "the first note" }, { idempotencyKey: "k_first" }, owner);
    const made = await call(0, first);
    expect(made.body.ok).toBe(true);
    const answers = [];
    for (let i = 0; i < 100; i += 6) {
      const batch = Array.from({ length: 6 }, (_, j) =>
        call(i + j, makeRequest(NOTE, { content: `loop ${i + j}` }, {}, owner)),
      );
      answers.push(...(await Promise.all(batch)));
    }
    expect(answers.filter((a) => a.status === 200 && a.body.ok)).toHaveLength(budget.perSession - 1);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(answers.length - (budget.perSession - 1));
    for (const a of refused) expect(a.body.error).toMatchObject({ code: "mnote_tool_rate_limited", reason: "session" });
    // every instance refused some: the budget is one, not one per instance
    const refusedBy = new Set(servers.filter((s) => s.stderr.some((l) => l.includes("mnote_tool_rate_limited"))));
    expect(refusedBy.size).toBe(3);
    expect(noteCount(p.db)).toBe(budget.perSession);
    // the answer of the first write, lost by the model, asked again through another instance
    const again = await call(2, first);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ ok: true, audit: { replayed: true, commandId: made.body.audit.commandId } });
    expect(noteCount(p.db)).toBe(budget.perSession);
  }, 120_000);
});
