/**
 * A refused call is one span event naming the budget (runtime/dispatch/steps/budget.ts), on the
 * call's execute_tool span: `mnote.budget.refused` with the tool and the scope, and the wait;
 * never an id or the content. Calls within the budget carry no such event.
 */
import { inMemoryTracing } from "../telemetry/support";
import { testRuntime } from "../support/runtime";
import { approvalPolicyFrom, allowEveryTool } from "../../runtime/approval/policy";
import { SqliteBudgetStore } from "../../runtime/state/budget-sqlite";
import { openDatabase } from "../../common/sqlite";

const tracing = inMemoryTracing();
const NOTE = "mnote.artifact.create_ai_note";

it("one mnote.budget.refused event on the refused call's span, naming the budget, never the content", async () => {
  const policy = approvalPolicyFrom({ ...allowEveryTool(), budgets: { [NOTE]: { perPage: 2 } } });
  const t = await testRuntime({ approval: { policy }, budgets: new SqliteBudgetStore(openDatabase(":memory:")) });
  try {
    const me = await t.session({ actorId: "user_1" });
    for (let i = 0; i < 3; i++) await t.call(NOTE, me, { content: `SECRET NOTE ${i}` });
    const spans = tracing.byName(`execute_tool ${NOTE}`);
    expect(spans).toHaveLength(3);
    const events = spans.map((s) => s.events.filter((e) => e.name === "mnote.budget.refused"));
    expect(events.map((e) => e.length)).toEqual([0, 0, 1]);
    const event = events[2]![0]!;
    expect(event.attributes).toEqual({
      "mnote.budget": `${NOTE}/page`,
      "mnote.budget.retry_after_s": expect.any(Number),
    });
    expect(JSON.stringify(spans[2]!.events)).not.toContain("SECRET");
    expect(spans[2]!.attributes["mnote.error.code"]).toBe("mnote_tool_rate_limited");
    expect(spans[2]!.attributes["mnote.error.reason"]).toBe("page");
  } finally {
    await t.close();
  }
});
