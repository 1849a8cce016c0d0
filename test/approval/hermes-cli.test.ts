/**
 * Approval at Hermes' main local surface, the interactive `hermes` CLI, in the REAL Hermes call path
 * (hermes_cli.plugins discovery, model_tools.handle_function_call, Hermes' own
 * prompt_dangerous_approval), on every Hermes source given:
 * - MNOTE_HERMES_SRC: the shared v0.18.0 extract;
 * - MNOTE_HERMES_NEXT_SRC: the shared v0.21 tree (base v0.21.4) with its stand-ins
 *   (test/support/hermes-trees.ts); the approval callback registry of tools/terminal_tool.py is one.
 * Both are mandatory in .ci/run; without one its half is skipped, and says so.
 *
 * Inside the CLI a prompt_toolkit Application owns the terminal, and Hermes' consent function then
 * fails closed: nobody is asked. The plugin asks through the approval callback the CLI registers on
 * the handler's thread (tools.terminal_tool), handed to Hermes' own prompt_dangerous_approval, so the
 * person sees the runtime's summary in the CLI's panel. The panel itself (cli.py's prompt_toolkit
 * widget) is the one stand-in: a callback registered the way the CLI registers its own, answering as
 * scripted. The kernel's database is checked after every answer.
 */
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { hashDatabaseFile } from "../support/runtime";
import { HERMES_TREES, namedButMissing, runHermesDriver } from "../support/hermes-trees";

namedButMissing();

const replace = (text: string) => ({ content: [{ type: "paragraph", text }], mode: "replace" });

for (const tree of HERMES_TREES) {
  const suite = tree.present ? describe : describe.skip;
  // v0.21: the plugin's pre_tool_call hands the preview to Hermes' own gate (the approve action)
  const gate = tree.name === "v0.21";
  suite(`approval in the interactive Hermes CLI (${tree.name}: ${tree.present ? tree.src : tree.skip})`, () => {
    let p: ReturnType<typeof seededProject>;
    let server: Awaited<ReturnType<typeof start>>;
    beforeEach(async () => {
      p = seededProject([{ session: "s_cli", actor: "user_1" }]);
      server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"], {
        env: { MNOTE_APPROVAL_POLICY: undefined },
      });
    });
    afterEach(() => server.stop());
    const run = (config: Record<string, unknown>) =>
      runHermesDriver(tree, {
        url: server.url,
        token: "tok",
        session_id: "s_cli",
        prompt_toolkit_active: true,
        ...config,
      });

    it("without the CLI's callback Hermes' consent fails closed under prompt_toolkit: nobody is asked, nothing written", async () => {
      const before = hashDatabaseFile(p.db);
      const r = await run({ calls: [["mnote_page_save", replace("Nobody saw this."), "call_pt"]], consent: ["o"] });
      const call = r.calls[0];
      if (gate) {
        // Hermes' gate reports the prompt as never delivered; the plugin tells the runtime nobody was asked
        expect(JSON.parse(call.output).error).toContain("BLOCKED: Action was not approved");
        expect(call.gate.map((g: any) => g.choice)).toEqual(["cancelled"]);
        expect(call.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "no_one_to_ask"]);
      } else
        expect(JSON.parse(call.output)).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_denied" } });
      expect(call.shown).not.toContain("项目计划"); // the person never saw the question
      expect(hashDatabaseFile(p.db)).toBe(before);
    });

    it("through the CLI's own approval panel: the person sees the summary; deny writes nothing and is told to the runtime; once writes exactly once", async () => {
      const before = hashDatabaseFile(p.db);
      const denied = await run({
        calls: [["mnote_page_save", replace("Denied body."), "call_deny"]],
        cli_callback: ["deny"],
      });
      const no = denied.calls[0];
      expect(no.panel).toHaveLength(1);
      // v0.18: the summary is the panel's command; v0.21's gate shows it as the description
      const shown = gate ? no.panel[0].description : no.panel[0].command;
      expect(shown).toContain("替换「项目计划」的全部内容：删除 3 段，写入 1 段。");
      expect(shown).toContain("新增：“Denied body.”");
      if (gate) {
        // Hermes' gate offers "always", for a rule key only this preview has (test/hermes/gate.test.ts)
        expect(no.panel[0].command).toBe("<mnote_page_save> (plugin approval rule)");
        expect(JSON.parse(no.output).error).toContain("BLOCKED: User denied");
      } else {
        // a yes approves this one change: "always" is not offered (nor "session", where Hermes lets us say so)
        expect(no.panel[0].kwargs.allow_permanent).toBe(false);
        expect(JSON.parse(no.output)).toMatchObject({
          ok: false,
          error: { code: "mnote_tool_approval_denied", reason: "declined" },
        });
      }
      expect(no.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "declined"]);
      expect(hashDatabaseFile(p.db)).toBe(before);

      const accepted = await run({
        calls: [["mnote_page_save", replace("Approved body."), "call_once"]],
        cli_callback: ["once"],
      });
      const yes = accepted.calls[0];
      expect(yes.panel).toHaveLength(1);
      expect(JSON.parse(yes.output)).toMatchObject({
        ok: true,
        result: { revision: 1 },
        audit: { approval: { decision: "approved", level: "ask" } },
      });
      expect(yes.requests.map((q: any) => q.approval?.token === undefined)).toEqual([true, false]);
      const { default: Database } = await import("better-sqlite3");
      const db = new Database(p.db, { readonly: true });
      try {
        expect((db.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n).toBe(1);
        expect(db.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1'").all()).toEqual([
          { text: "Approved body." },
        ]);
      } finally {
        db.close();
      }
    });
  });
}
