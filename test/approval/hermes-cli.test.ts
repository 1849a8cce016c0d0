/**
 * Approval at Hermes' main local surface, the interactive `hermes` CLI, in the REAL Hermes call path
 * (hermes_cli.plugins discovery, model_tools.handle_function_call, Hermes' own
 * prompt_dangerous_approval), on every Hermes source given:
 * - MNOTE_HERMES_SRC: the shared v0.18.0 extract (what CI names today);
 * - MNOTE_HERMES_NEXT_SRC: a newer Hermes source tree (the public repository's), as a folder.
 * Without one its half is skipped, and says so.
 *
 * Inside the CLI a prompt_toolkit Application owns the terminal, and Hermes' consent function then
 * fails closed: nobody is asked. The plugin asks through the approval callback the CLI registers on
 * the handler's thread (tools.terminal_tool), handed to Hermes' own prompt_dangerous_approval, so the
 * person sees the runtime's summary in the CLI's panel. The panel itself (cli.py's prompt_toolkit
 * widget) is the one stand-in: a callback registered the way the CLI registers its own, answering as
 * scripted. The kernel's database is checked after every answer.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";
import { hashDatabaseFile } from "../support/runtime";

const SOURCES: Array<[string, string]> = [
  ["MNOTE_HERMES_SRC", process.env.MNOTE_HERMES_SRC ?? ""],
  ["MNOTE_HERMES_NEXT_SRC", process.env.MNOTE_HERMES_NEXT_SRC ?? ""],
];
const hasHermes = (src: string) =>
  src !== "" && existsSync(join(src, "hermes_cli", "plugins.py")) && existsSync(join(src, "model_tools.py"));

for (const [name, src] of SOURCES) {
  if (src !== "" && !hasHermes(src))
    it(`${name} holds the Hermes Agent modules`, () => {
      throw new Error(`${name}=${src} has no hermes_cli/plugins.py and model_tools.py`);
    });
  if (src === "")
    process.stderr.write(
      `test/approval/hermes-cli.test.ts: ${name} half skipped: set ${name} to a Hermes Agent source folder to run it\n`,
    );
}

async function runReal(src: string, config: Record<string, unknown>): Promise<any> {
  const file = join(tempDir("mnote-hermes-cli-"), "config.json");
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(
    "python3",
    [join(repoRoot, "test", "hermes", "real_hermes.py"), src, join(generatedDir, "hermes-plugin", "mnote"), file],
    { env: { PATH: process.env.PATH, HOME: tempDir("mnote-home-") }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => err.push(d));
  const status = await new Promise<number | null>((r) => child.on("close", r));
  if (status !== 0) throw new Error(`real Hermes run failed: ${Buffer.concat(err).toString("utf8")}`);
  return JSON.parse(Buffer.concat(out).toString("utf8"));
}

const replace = (text: string) => ({ content: [{ type: "paragraph", text }], mode: "replace" });

for (const [name, src] of SOURCES) {
  const suite = hasHermes(src) ? describe : describe.skip;
  suite(`approval in the interactive Hermes CLI (${name}: ${src || "skipped, not set"})`, () => {
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
      runReal(src, { url: server.url, token: "tok", session_id: "s_cli", prompt_toolkit_active: true, ...config });

    it("without the CLI's callback Hermes' consent fails closed under prompt_toolkit: nobody is asked, nothing written", async () => {
      const before = hashDatabaseFile(p.db);
      const r = await run({ calls: [["mnote_page_save", replace("Nobody saw this."), "call_pt"]], consent: ["o"] });
      const call = r.calls[0];
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
      expect(no.panel[0].command).toContain("替换「项目计划」的全部内容：删除 3 段，写入 1 段。");
      expect(no.panel[0].command).toContain("新增：“Denied body.”");
      // a yes approves this one change: "always" is not offered (nor "session", where Hermes lets us say so)
      expect(no.panel[0].kwargs.allow_permanent).toBe(false);
      expect(JSON.parse(no.output)).toMatchObject({
        ok: false,
        error: { code: "mnote_tool_approval_denied", reason: "declined" },
      });
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
