/**
 * What every framework target must do, through the framework's own loop with its test model, against
 * the reference kernel (issue 20): one call of each of the six tools, a dry run, a retry with the
 * same tool call id that replays, an invalid argument answered as invalid_input; each with the
 * kernel state checked. A framework's test supplies a driver: one loop run in which the scripted
 * model makes one tool call, giving back what the model read as the call's result.
 */
import { toolByName } from "../../generated/registry";
import { testRuntime, type TestRuntime } from "../support/runtime";
import { frameworkCaller } from "../../runtime/transports/framework-call";
import { allowAllPolicyJson } from "../support/approval";
import type { MnoteConnection, MnoteToolsOptions } from "../../generated/frameworks/connection";

/** One loop run: the scripted model calls `toolName` (its model-facing name) with `args` under `toolCallId`. */
export type Driver = (toolName: string, args: unknown, toolCallId: string) => Promise<any>;

/** Builds a driver from the target's options (the in-process connection to the test runtime). */
export type MakeDriver = (options: MnoteToolsOptions) => Driver;

const name = (canonical: string) => toolByName(canonical)!.providerName;

/** The page as the kernel holds it. */
function page(t: TestRuntime) {
  return t.kernel.db.prepare("SELECT title, revision, options_json FROM pages WHERE id = 'doc_1'").get() as {
    title: string;
    revision: number;
    options_json: string;
  };
}

/** How the target reaches the runtime: in process (the default), or e.g. over serve's HTTP. */
export type Connect = (t: TestRuntime) => Promise<{ connection: MnoteConnection; close(): Promise<void> }>;

/** The runtime in this process: the targets' `{ dispatcher }` connection. */
export const inProcess: Connect = async (t) => ({
  connection: { dispatcher: frameworkCaller(t.runtime) },
  close: async () => {},
});

async function setup(makeDriver: MakeDriver, connect: Connect) {
  const t = await testRuntime();
  const as = await t.session({ actorId: "user_1" });
  const link = await connect(t);
  // the framework asks about what the runtime holds at ask: both get the suites' allow-all policy
  // (the approval round itself is test/targets/approval.test.ts)
  const drive = makeDriver({
    connection: link.connection,
    session: { sessionId: as.sessionId },
    approvalPolicy: allowAllPolicyJson(),
  });
  const close = async () => {
    await link.close();
    await t.close();
  };
  return { t: { ...t, close } as TestRuntime, as, drive };
}

export function frameworkScenario(framework: string, makeDriver: MakeDriver, connect: Connect = inProcess): void {
  describe(`${framework}: the six tools through the framework's own loop`, () => {
    it("calls each of the six tools once; every write lands in the kernel", async () => {
      const { t, drive } = await setup(makeDriver, connect);
      const read = await drive(name("mnote.page.get"), { includeBody: true }, "call_get_1");
      expect(read).toMatchObject({ ok: true, toolName: name("mnote.page.get") });
      let revision = page(t).revision;
      expect(read.result.revision).toBe(revision);

      const saved = await drive(
        name("mnote.page.save"),
        {
          content: [{ type: "paragraph", text: "Written through " + framework }],
          mode: "append",
          baseRevision: revision,
        },
        "call_save_1",
      );
      expect(saved).toMatchObject({ ok: true, toolName: name("mnote.page.save"), audit: { replayed: false } });
      expect(t.count("blocks", "page_id = 'doc_1' AND text = ?", "Written through " + framework)).toBe(1);
      revision = page(t).revision;

      const titled = await drive(
        name("mnote.page.update_title"),
        { title: "Plan via " + framework, baseRevision: revision },
        "call_title_1",
      );
      expect(titled).toMatchObject({ ok: true });
      expect(page(t).title).toBe("Plan via " + framework);
      revision = page(t).revision;

      const options = await drive(
        name("mnote.page.update_options"),
        { options: { smallText: true }, baseRevision: revision },
        "call_opts_1",
      );
      expect(options).toMatchObject({ ok: true });
      expect(JSON.parse(page(t).options_json)).toMatchObject({ smallText: true });
      revision = page(t).revision;

      const summary = await drive(
        name("mnote.artifact.create_summary"),
        { summary: "In short: " + framework, baseRevision: revision },
        "call_sum_1",
      );
      expect(summary).toMatchObject({ ok: true });
      expect(t.count("artifacts", "type = 'summary' AND content = ?", "In short: " + framework)).toBe(1);

      const note = await drive(
        name("mnote.artifact.create_ai_note"),
        { content: "A note from " + framework, title: null },
        "call_note_1",
      );
      expect(note).toMatchObject({ ok: true });
      expect(t.count("artifacts", "type = 'ai_note' AND content = ?", "A note from " + framework)).toBe(1);
      await t.close();
    });

    it("a dry run plans and writes nothing", async () => {
      const { t, drive } = await setup(makeDriver, connect);
      const before = t.kernelStateHash();
      const planned = await drive(
        name("mnote.page.save"),
        {
          content: [{ type: "paragraph", text: "only planned" }],
          mode: "append",
          baseRevision: page(t).revision,
          dryRun: true,
        },
        "call_dry_1",
      );
      expect(planned).toMatchObject({ ok: true, audit: { effect: "dry_run", commandId: null } });
      expect(t.kernelStateHash()).toBe(before);
      await t.close();
    });

    it("a retry with the same tool call id replays: one write, the second answer says replayed", async () => {
      const { t, drive } = await setup(makeDriver, connect);
      const args = { content: "Written once", title: "Once" };
      const first = await drive(name("mnote.artifact.create_ai_note"), args, "call_retry_1");
      expect(first).toMatchObject({ ok: true, audit: { replayed: false } });
      const after = t.kernelStateHash();
      const again = await drive(name("mnote.artifact.create_ai_note"), args, "call_retry_1");
      expect(again).toMatchObject({ ok: true, audit: { replayed: true } });
      expect(again.result).toEqual(first.result);
      expect(t.count("artifacts", "type = 'ai_note' AND content = 'Written once'")).toBe(1);
      expect(t.kernelStateHash()).toBe(after);
      // a new call id with the same arguments is a new, deliberate write
      const another = await drive(name("mnote.artifact.create_ai_note"), args, "call_retry_2");
      expect(another).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(t.count("artifacts", "type = 'ai_note' AND content = 'Written once'")).toBe(2);
      await t.close();
    });

    it("an invalid argument is answered as invalid_input, for the model to read; nothing is written", async () => {
      const { t, drive } = await setup(makeDriver, connect);
      const before = t.kernelStateHash();
      const wrongType = await drive(
        name("mnote.page.update_title"),
        { title: 123, baseRevision: page(t).revision },
        "call_bad_1",
      );
      expect(wrongType).toMatchObject({
        ok: false,
        toolName: name("mnote.page.update_title"),
        error: { code: "mnote_tool_invalid_input", pointer: "/args/title" },
      });
      const unknownMember = await drive(
        name("mnote.page.save"),
        { content: [], mode: "append", baseRevision: page(t).revision, sneaky: true },
        "call_bad_2",
      );
      expect(unknownMember).toMatchObject({
        ok: false,
        error: { code: "mnote_tool_invalid_input", pointer: "/args/sneaky" },
      });
      expect(t.kernelStateHash()).toBe(before);
      await t.close();
    });
  });
}
