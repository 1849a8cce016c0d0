/**
 * Properties of the design note's promises, over generated inputs: a dry run writes nothing and
 * leaves the key for the real call, which then runs exactly once; secrets of a page the actor
 * cannot read never reach a response or a log line.
 */
import fc from "fast-check";
import { testRuntime, ok, type TestRuntime } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { scaled } from "../support/soak";
import { toolList } from "../../generated/registry";
import type { CallRecord } from "../../runtime/dispatch/dispatcher";

const RUNS = scaled(40, 2_000);

const text = (max: number) =>
  fc
    .string({ minLength: 1, maxLength: max })
    .filter((s) => s.trim().length > 0 && !/[\r\n]/.test(s) && s.isWellFormed());
const block = fc.record(
  {
    type: fc.constantFrom("paragraph", "heading", "quote", "to_do", "code", "bulleted_list_item"),
    text: fc.string({ maxLength: 80 }).filter((s) => s.isWellFormed()),
  },
  { requiredKeys: ["type", "text"] },
);
const writeRequests = fc.oneof(
  fc.record({
    tool: fc.constant("mnote.page.save"),
    args: fc.record({ content: fc.array(block, { maxLength: 5 }), mode: fc.constantFrom("append", "replace") }),
  }),
  fc.record({ tool: fc.constant("mnote.page.update_title"), args: fc.record({ title: text(60) }) }),
  fc.record({
    tool: fc.constant("mnote.page.update_options"),
    args: fc.record({
      options: fc
        .record({ wideLayout: fc.boolean(), smallText: fc.boolean() }, { requiredKeys: [] })
        .filter((o) => Object.keys(o).length > 0),
    }),
  }),
  fc.record({ tool: fc.constant("mnote.artifact.create_summary"), args: fc.record({ summary: text(200) }) }),
  fc.record({
    tool: fc.constant("mnote.artifact.create_ai_note"),
    args: fc.record({ content: text(200) }, { requiredKeys: ["content"] }),
  }),
);

describe("dry runs", () => {
  it("any valid write with dryRun: true leaves the kernel untouched; the real call with the same key then runs exactly once", async () => {
    const t = await testRuntime();
    const as = await t.session({ actorId: "user_1" });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(writeRequests, async ({ tool, args }) => {
        const key = `dry-${++n}`;
        const before = t.kernelStateHash();
        const logBefore = t.count("command_log");
        const dry = ok(await t.call(tool, as, args, { dryRun: true, idempotencyKey: key }));
        expect(dry.audit.effect).toBe("dry_run");
        expect(t.kernelStateHash()).toBe(before);
        const real = ok(await t.call(tool, as, args, { dryRun: false, idempotencyKey: key }));
        expect(real.audit).toMatchObject({ effect: "write", replayed: false });
        const again = ok(await t.call(tool, as, args, { dryRun: false, idempotencyKey: key }));
        expect(again.audit).toMatchObject({ commandId: real.audit.commandId, replayed: true });
        expect(t.count("command_log")).toBe(logBefore + 1);
      }),
      { numRuns: RUNS },
    );
    await t.close();
  });
});

describe("no leak", () => {
  it("secrets planted in a page the actor cannot read never appear in any response or log record, for any tool and args", async () => {
    const records: CallRecord[] = [];
    const t: TestRuntime = await testRuntime({ onCall: (r) => records.push(r) });
    const secret = () => `SECRET${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
    const secrets = [secret(), secret(), secret(), secret()];
    const owner = await t.session({ actorId: "user_1", documentId: "doc_secret" });
    ok(await t.call("mnote.page.update_title", owner, { title: `Plan ${secrets[0]}` }));
    ok(await t.call("mnote.page.save", owner, { content: [{ type: "paragraph", text: `Body ${secrets[1]}` }] }));
    ok(await t.call("mnote.artifact.create_summary", owner, { summary: `Summary ${secrets[2]}` }));
    ok(await t.call("mnote.artifact.create_ai_note", owner, { content: `Note ${secrets[3]}` }));
    const outsiders = [
      await t.session({ actorId: "user_2", documentId: "doc_secret" }),
      await t.session({ actorId: "user_3", documentId: "doc_secret" }),
      await t.session({ actorId: "user_4", documentId: "doc_secret" }),
      await t.session({ actorId: "user_2", documentId: "doc_1" }),
    ];
    const responses: unknown[] = [];
    const argsFor = fc.oneof(
      writeRequests,
      fc.record({ tool: fc.constantFrom(...toolList.map((x) => x.name)), args: fc.jsonValue() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...outsiders), argsFor, fc.boolean(), async (as, { tool, args }, dryRun) => {
        const request = makeRequest(tool, args as Record<string, unknown>, { dryRun }, as);
        // sometimes point the request at the secret page although the grant is for another one
        if (as.documentId === "doc_1" && dryRun) request.documentId = "doc_secret";
        const before = t.kernelStateHash();
        const response = await t.runtime.dispatcher.dispatch(request);
        responses.push(response);
        // what was written, not only the envelope: a refusal or a dry run leaves the kernel as it was
        if (!response.ok || response.audit.effect !== "write") expect(t.kernelStateHash()).toBe(before);
      }),
      { numRuns: scaled(200, 10_000) },
    );
    const seen = JSON.stringify(responses) + JSON.stringify(records);
    for (const s of secrets) expect(seen).not.toContain(s);
    expect(responses.length).toBeGreaterThan(0);
    await t.close();
  });
});
