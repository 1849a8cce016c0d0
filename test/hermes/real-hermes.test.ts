/**
 * The plugin inside the REAL Hermes Agent loader and dispatcher (hermes_cli.plugins,
 * model_tools.handle_function_call), not the project's imitation, on both trees side by side:
 * v0.18.0 (MNOTE_HERMES_SRC) and v0.21 (MNOTE_HERMES_NEXT_SRC, with the stand-ins its SOURCE.md
 * lists; test/support/hermes-trees.ts). Hermes' code is not part of this repository: without a
 * tree its half is skipped, and says so.
 */
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { toolList } from "../../generated/registry";
import { COLLIDING_PAIRS } from "../support/model-calls";
import { hashDatabaseFile } from "../support/runtime";
import { HERMES_TREES, namedButMissing, runHermesDriver } from "../support/hermes-trees";
import Database from "better-sqlite3";

namedButMissing();

for (const tree of HERMES_TREES) {
  const suite = tree.present ? describe : describe.skip;
  const runReal = (config: Record<string, unknown>) => runHermesDriver(tree, config);
  const label = `${tree.name}: ${tree.present ? tree.src : tree.skip}`;
  // v0.21: a write the contract has a person approve goes through Hermes' own gate (the approve action)
  const gate = tree.name === "v0.21";
  suite(`the plugin in the real Hermes Agent (${label})`, () => {
    it("loads, registers six tools, and a call blocked after pre_tool_call never lends its id; with register_skill failing it still loads", async () => {
      const p = seededProject([{ session: "s_real", actor: "user_1" }]);
      // v0.21: the contract's levels, so the hook's request for the blocked rename is a preview, never a write
      // (where a host policy allows it, the hook's request writes before another plugin's block: docs/APPROVAL.md)
      const server = await start(
        ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"],
        gate ? { env: { MNOTE_APPROVAL_POLICY: undefined } } : undefined,
      );
      try {
        for (const skillRaises of [false, true]) {
          const report = await runReal({
            url: server.url,
            token: "tok",
            session_id: "s_real",
            skill_raises: skillRaises,
            // v0.21: the person approves the allowed rename in the CLI's panel (asked once, the first time)
            ...(gate ? { cli_callback: ["once"] } : {}),
          });
          expect(report.tools).toEqual(toolList.map((t) => t.providerName).sort());
          expect(report.plugins.mnote).toEqual({ enabled: true, error: null });
          // Hermes' loader warns about nothing of ours (the plugin's own log aside: no agent.skill_utils here)
          expect(report.warnings.filter((w: any) => w.logger !== "hermes_plugins.mnote")).toEqual([]);
          if (gate)
            // 0.21 finds it through plugins_discovery.scan_directory; no manifest_version is v1, which every
            // 0.21 installer accepts (up to 0.21.3 it refuses 2); the approve gate is there
            expect(report.loader).toEqual({
              scanned: ["blocker", "mnote"],
              manifest_version: 1,
              supported_manifest_version: 2,
              provides_tools: toolList.map((t) => t.providerName).sort(),
              provides_hooks: ["post_approval_response", "post_tool_call", "pre_tool_call"],
              resolve_pre_tool_block: true,
            });
          const [blocked, allowed, get] = report.calls;
          if (gate) {
            // the hook's preview request only (no token): Hermes' block wins over the approve action
            expect(blocked.requests.map((r: any) => [r.toolCallId, r.approval ?? null])).toEqual([
              ["call_blocked", null],
            ]);
            expect(blocked.gate).toEqual([]); // nobody was asked about it
          } else expect(blocked.request).toBeNull();
          expect(JSON.parse(blocked.output).error).toContain("blocked");
          expect(allowed.request.toolCallId).toBe("call_allowed");
          expect(JSON.parse(allowed.output)).toMatchObject({ ok: true, toolCallId: "call_allowed" });
          expect(get.request.toolCallId).toBe("call_get");
        }
        // the kernel's state: the allowed rename only
        const db = new Database(p.db, { readonly: true });
        expect(db.prepare("SELECT title FROM pages WHERE id = 'doc_1'").get()).toEqual({ title: "Allowed" });
        db.close();
      } finally {
        await server.stop();
      }
    });

    it("keys come from the exact tool call ids: 8 pairs a cleanup would make equal are 16 notes", async () => {
      const p = seededProject([{ session: "s_real", actor: "user_1" }]);
      const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
      try {
        const calls = COLLIDING_PAIRS.flatMap(([a, b], i) =>
          [a, b].map((id) => ["mnote_artifact_create_ai_note", { content: `Finding ${i}` }, id]),
        );
        const report = await runReal({ url: server.url, token: "tok", session_id: "s_real", calls });
        const keys = report.calls.map((c: any) => c.request.idempotencyKey);
        expect(new Set(keys).size).toBe(16);
        for (const c of report.calls)
          expect(JSON.parse(c.output)).toMatchObject({
            ok: true,
            toolName: "mnote_artifact_create_ai_note",
            audit: { replayed: false },
          });
        const d = new Database(p.db, { readonly: true });
        expect((d.prepare("SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'").get() as { n: number }).n).toBe(
          16,
        );
        d.close();
      } finally {
        await server.stop();
      }
    });

    it("a non-boolean dryRun and a __proto__ member never write, whatever Hermes' own coercion does first", async () => {
      const p = seededProject([{ session: "s_real", actor: "user_1" }]);
      const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
      try {
        const before = hashDatabaseFile(p.db);
        const replace = { content: [], mode: "replace" };
        const calls = [
          ...["true", "TRUE", 1, "yes", {}, []].map((dryRun, i) => [
            "mnote_page_save",
            { ...replace, dryRun },
            `call_dry_${i}`,
          ]),
          [
            "mnote_page_save",
            JSON.parse('{"__proto__": {"dryRun": true}, "content": [], "mode": "replace"}'),
            "call_p1",
          ],
          [
            "mnote_page_save",
            JSON.parse(
              '{"content": [{"type": "paragraph", "text": "x", "__proto__": {"level": 99}}], "mode": "replace"}',
            ),
            "call_p2",
          ],
        ];
        const report = await runReal({ url: server.url, token: "tok", session_id: "s_real", calls });
        for (const c of report.calls) {
          const out = JSON.parse(c.output);
          // refused by the plugin (nothing sent), or, where Hermes turned "true" into true, a dry run
          const refused = out.error?.code === "mnote_tool_invalid_input" && c.request === null;
          const dry = out.ok === true && out.audit.effect === "dry_run";
          expect([c.tool_call_id, refused || dry]).toEqual([c.tool_call_id, true]);
        }
        expect(hashDatabaseFile(p.db)).toBe(before);
      } finally {
        await server.stop();
      }
    });
  });

  suite(`approval through the real Hermes Agent (${label})`, () => {
    it("page.save replace waits for consent, shows what would change, writes only on accept, exactly once; decline writes nothing", async () => {
      const p = seededProject([{ session: "s_real", actor: "user_1" }]);
      // the contract's own levels: no allow-all policy for this server
      const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"], {
        env: { MNOTE_APPROVAL_POLICY: undefined },
      });
      const replace = (text: string) => ({ content: [{ type: "paragraph", text }], mode: "replace" });
      try {
        const before = hashDatabaseFile(p.db);
        const declined = await runReal({
          url: server.url,
          token: "tok",
          session_id: "s_real",
          calls: [["mnote_page_save", replace("Declined body."), "call_declined"]],
          consent: ["d"],
          interactive: true,
        });
        const no = declined.calls[0];
        // what the person reads: the page by its title, what goes and what comes, in the session's locale
        expect(no.shown).toContain(
          "替换「项目计划」的全部内容：删除 3 段，写入 1 段。\n删除：“章节一”、“第一段：确定范围与里程碑。”、“整理需求清单”\n新增：“Declined body.”",
        );
        // v0.21: Hermes' gate answers the model itself (its prompt's words are an i18n stand-in's keys)
        if (gate) expect(JSON.parse(no.output).error).toContain("BLOCKED: User denied");
        else
          expect(JSON.parse(no.output)).toMatchObject({
            ok: false,
            toolName: "mnote_page_save",
            error: { code: "mnote_tool_approval_denied", reason: "declined" },
            audit: { approval: { decision: "denied", level: "ask" } },
          });
        // the preview request, then the decline told to the runtime (token and answer): nothing written
        expect(no.requests.map((r: any) => r.approval?.answer ?? null)).toEqual([null, "declined"]);
        // v0.18: the person's text never reaches the model. v0.21: Hermes' gate quotes the approve
        // action's message in what the model reads after a "no" (docs/APPROVAL.md says so)
        if (gate) expect(JSON.parse(no.output).error).toContain("替换「项目计划」的全部内容");
        else expect(JSON.stringify(JSON.parse(no.output))).not.toContain("项目计划");
        expect(hashDatabaseFile(p.db)).toBe(before);

        const accepted = await runReal({
          url: server.url,
          token: "tok",
          session_id: "s_real",
          calls: [["mnote_page_save", replace("Accepted body."), "call_accepted"]],
          consent: ["o"],
          interactive: true,
        });
        const yes = accepted.calls[0];
        expect(yes.shown).toContain("新增：“Accepted body.”");
        expect(yes.requests.map((r: any) => r.approval?.token === undefined)).toEqual([true, false]);
        expect(JSON.parse(yes.output)).toMatchObject({
          ok: true,
          result: { revision: 1 },
          audit: { approval: { decision: "approved", level: "ask", approvedBy: "user_1" } },
        });
        const db = new Database(p.db, { readonly: true });
        const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
        expect(count("SELECT COUNT(*) AS n FROM command_log")).toBe(1);
        expect(db.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1'").all()).toEqual([
          { text: "Accepted body." },
        ]);
        db.close();
      } finally {
        await server.stop();
      }
    });
  });
}
