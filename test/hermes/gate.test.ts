/**
 * The plugin on the newest Hermes (v0.21 tree, MNOTE_HERMES_NEXT_SRC, with its stand-ins): approval
 * through Hermes' own gate (pre_tool_call's approve action), yolo and approvals.mode off, another
 * plugin's modify, a slow runtime, the running call id, and /stop while a person is asked (on both
 * trees). Each asserts the kernel's state. Stand-ins on these paths (test/hermes/hermes_boot.py):
 * the CLI's approval panel is a callback registered the way the CLI registers its own
 * (tools/terminal_tool.py is not in either tree); the "always" save to config.yaml fails without
 * ruamel.yaml, so the allowlist read is Hermes' in-memory one; the operator's transport runs through a
 * stand-in hermes_cli/approval_transport.py (the registration and the selection are the tree's).
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import Database from "better-sqlite3";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { hashDatabaseFile } from "../support/runtime";
import { HERMES_NEXT, HERMES_TREES, namedButMissing, runHermesDriver } from "../support/hermes-trees";

namedButMissing();

const replace = (text: string) => ({ content: [{ type: "paragraph", text }], mode: "replace" });

function kernel(db: string) {
  const d = new Database(db, { readonly: true });
  try {
    return {
      writes: (d.prepare("SELECT COUNT(*) AS n FROM command_log").get() as { n: number }).n,
      blocks: d.prepare("SELECT text FROM blocks WHERE page_id = 'doc_1'").all(),
      title: (d.prepare("SELECT title FROM pages WHERE id = 'doc_1'").get() as { title: string }).title,
    };
  } finally {
    d.close();
  }
}

/** A runtime and a project at the contract's own levels (or the suites' allow-all policy). */
async function runtime(allowAll = false) {
  const p = seededProject([{ session: "s_gate", actor: "user_1" }]);
  const server = await start(
    ["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"],
    allowAll ? {} : { env: { MNOTE_APPROVAL_POLICY: undefined } },
  );
  return { p, server, base: { url: server.url, token: "tok", session_id: "s_gate" } };
}

const next = HERMES_NEXT.present ? describe : describe.skip;

next(`Hermes' own gate on ${HERMES_NEXT.name} (${HERMES_NEXT.present ? HERMES_NEXT.src : HERMES_NEXT.skip})`, () => {
  const run = (config: Record<string, unknown>, env: Record<string, string> = {}) =>
    runHermesDriver(HERMES_NEXT, config, undefined, env);

  it('asks once and writes once; "always" saves a key only that preview has, so the next, different change is asked again', async () => {
    const { p, server, base } = await runtime();
    try {
      const r = await run({
        ...base,
        interactive: true,
        cli_callback: ["always", "deny"],
        calls: [
          ["mnote_page_save", replace("First change."), "call_1"],
          ["mnote_page_save", replace("Second change."), "call_2"],
        ],
      });
      const [first, second] = r.calls;
      expect(first.panel).toHaveLength(1); // asked once for one write
      expect(first.panel[0].description).toContain("新增：“First change.”");
      expect(first.panel[0].kwargs.allow_permanent).toBe(true); // Hermes offers "always"
      expect(JSON.parse(first.output)).toMatchObject({ ok: true, audit: { approval: { decision: "approved" } } });
      // the preview without a token, then the write with it: nothing asked or sent twice
      expect(first.requests.map((q: any) => q.approval?.token === undefined)).toEqual([true, false]);
      // "always" persisted plugin_rule:<key of that preview> ...
      expect(r.allowlist).toEqual([expect.stringContaining(first.gate[0].pattern_key)]);
      // ... which the next change does not match: the person is asked again, says no, nothing written
      expect(second.panel).toHaveLength(1);
      expect(second.gate[0].pattern_key).not.toBe(first.gate[0].pattern_key);
      expect(second.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "declined"]);
      expect(kernel(p.db)).toMatchObject({ writes: 1, blocks: [{ text: "First change." }] });
    } finally {
      await server.stop();
    }
  });

  it.each([
    ["--yolo", { yolo: true }],
    ["approvals.mode: off", { approvals_mode: "off" }],
  ])(
    "under %s nobody is asked, so the write is refused as no_one_to_ask and nothing is written",
    async (_name, mode) => {
      const { p, server, base } = await runtime();
      try {
        const before = hashDatabaseFile(p.db);
        const r = await run({
          ...base,
          ...mode,
          interactive: true,
          cli_callback: ["once"],
          calls: [["mnote_page_update_title", { title: "Nobody asked" }, "call_yolo"]],
        });
        const call = r.calls[0];
        expect(call.panel).toEqual([]);
        expect(JSON.parse(call.output)).toMatchObject({
          ok: false,
          error: { code: "mnote_tool_approval_denied", reason: "no_one_to_ask" },
        });
        // told to the runtime (logged, the token used up)
        expect(call.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "no_one_to_ask"]);
        expect(hashDatabaseFile(p.db)).toBe(before);
      } finally {
        await server.stop();
      }
    },
  );

  it("under --yolo with an approval page, the answer names it; approved there, the same call writes once; declined there, nothing", async () => {
    const { p, server, base } = await runtime();
    try {
      const before = hashDatabaseFile(p.db);
      // the person's browser, signed in by the host (serve's token is the host's here)
      const minted = await fetch(`${server.url}/v1/approvals/tickets`, {
        method: "POST",
        headers: { authorization: "Bearer tok", "content-type": "application/json" },
        body: JSON.stringify({ sessionId: "s_gate" }),
      });
      const { ticket } = (await minted.json()) as { ticket: string };
      const signIn = await fetch(`${server.url}/approvals/${"0".repeat(32)}?ticket=${ticket}`, { redirect: "manual" });
      const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
      const rename = (title: string, id: string, options?: object) => [
        "mnote_page_update_title",
        { title },
        id,
        ...(options ? [options] : []),
      ];
      const r = await run(
        {
          ...base,
          yolo: true,
          interactive: true,
          cli_callback: ["once"],
          calls: [
            rename("Approved on the page", "call_page_1"),
            rename("Approved on the page", "call_page_2"),
            rename("Approved on the page", "call_page_3", { page_answer: { cookie, answer: "approve" } }),
            rename("Declined on the page", "call_page_4"),
            rename("Declined on the page", "call_page_5", { page_answer: { cookie, answer: "decline" } }),
          ],
        },
        { MNOTE_APPROVAL_PAGE_URL: server.url },
      );
      const [asked, waiting, approved, askedAgain, declined] = r.calls;
      const named = JSON.parse(asked.output);
      expect(named).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
      const url = /(http:\/\/\S+\/approvals\/[0-9a-f]{32})$/.exec(named.error.message)![1]!;
      expect(url.startsWith(`${server.url}/approvals/`)).toBe(true);
      expect(named.error.approval).toBeUndefined(); // the token never reaches the model
      // the question waits on the page: nothing told to the runtime, the token unused
      expect(asked.requests.map((q: any) => q.approval ?? null)).toEqual([null]);
      expect(asked.panel).toEqual([]);
      // asked again before the person answered: the same page, nothing sent
      expect(JSON.parse(waiting.output).error.message).toContain(url);
      expect(waiting.requests).toEqual([]);
      // approved on the page: the same call sends the token (no answer) once, and writes
      expect(JSON.parse(approved.output)).toMatchObject({ ok: true, audit: { approval: { decision: "approved" } } });
      expect(approved.requests.map((q: any) => [typeof q.approval?.token, q.approval?.answer ?? null])).toEqual([
        ["string", null],
      ]);
      const token = approved.requests[0].approval.token;
      for (const shown of [asked, waiting, approved]) expect(shown.output).not.toContain(token.split(".")[1]);
      // another change, declined on the page: told to the runtime as declined, nothing written
      expect(JSON.parse(askedAgain.output).error.message).not.toContain(url);
      expect(JSON.parse(declined.output)).toMatchObject({
        error: { code: "mnote_tool_approval_denied", reason: "declined" },
      });
      expect(declined.requests.map((q: any) => q.approval?.answer ?? null)).toEqual(["declined"]);
      expect(kernel(p.db)).toMatchObject({ writes: 1, title: "Approved on the page" });
      expect(hashDatabaseFile(p.db)).not.toBe(before);
    } finally {
      await server.stop();
    }
  });

  it("MNOTE_APPROVAL_PAGE_URL with a path is no page (an origin only, as --approval-page-url): no_one_to_ask, nothing written", async () => {
    const { p, server, base } = await runtime();
    try {
      const before = hashDatabaseFile(p.db);
      const r = await run(
        {
          ...base,
          yolo: true,
          interactive: true,
          calls: [["mnote_page_update_title", { title: "Behind a prefix" }, "call_prefixed"]],
        },
        { MNOTE_APPROVAL_PAGE_URL: `${server.url}/mnote` },
      );
      const call = r.calls[0];
      expect(JSON.parse(call.output)).toMatchObject({
        error: { code: "mnote_tool_approval_denied", reason: "no_one_to_ask" },
      });
      expect(call.output).not.toContain("/approvals/");
      expect(call.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "no_one_to_ask"]);
      expect(kernel(p.db)).toMatchObject({ writes: 0 });
      expect(hashDatabaseFile(p.db)).toBe(before);
    } finally {
      await server.stop();
    }
  });

  it("a Hermes that ran the tool around its gate (no yes seen from a person): nothing written, no_one_to_ask", async () => {
    const { p, server, base } = await runtime();
    try {
      const before = hashDatabaseFile(p.db);
      const r = await run({
        ...base,
        interactive: true,
        gate_bypassed: true,
        calls: [["mnote_page_update_title", { title: "Nobody approved" }, "call_bypass"]],
      });
      const call = r.calls[0];
      expect(call.gate).toEqual([]);
      expect(JSON.parse(call.output)).toMatchObject({
        error: { code: "mnote_tool_approval_denied", reason: "no_one_to_ask" },
      });
      expect(call.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "no_one_to_ask"]);
      expect(hashDatabaseFile(p.db)).toBe(before);
    } finally {
      await server.stop();
    }
  });

  it("under --yolo a write the mnote policy allows is written, once", async () => {
    const { p, server, base } = await runtime(true);
    try {
      const r = await run({
        ...base,
        yolo: true,
        calls: [["mnote_page_update_title", { title: "Allowed by policy" }, "call_allow"]],
      });
      expect(JSON.parse(r.calls[0].output)).toMatchObject({ ok: true, toolCallId: "call_allow" });
      expect(r.calls[0].requests).toHaveLength(1); // sent from pre_tool_call, answered to the handler
      expect(kernel(p.db)).toMatchObject({ writes: 1, title: "Allowed by policy" });
    } finally {
      await server.stop();
    }
  });

  it("another plugin's modify after the preview: refused as other_args, nothing written", async () => {
    const { p, server, base } = await runtime();
    try {
      const before = hashDatabaseFile(p.db);
      const r = await run({
        ...base,
        interactive: true,
        cli_callback: ["once"],
        modify: { tool: "mnote_page_update_title", args: { title: "Rewritten" } },
        calls: [["mnote_page_update_title", { title: "Previewed" }, "call_mod"]],
      });
      const call = r.calls[0];
      // the person saw (and approved) the previewed title, not the rewritten one
      expect(call.panel[0].description).toContain("Previewed");
      expect(call.panel[0].description).not.toContain("Rewritten");
      expect(JSON.parse(call.output)).toMatchObject({
        ok: false,
        error: { code: "mnote_tool_approval_invalid", reason: "other_args" },
      });
      expect(call.requests).toHaveLength(1); // the preview only: the token never went out
      expect(hashDatabaseFile(p.db)).toBe(before);
    } finally {
      await server.stop();
    }
  });

  it("a slow runtime: pre_tool_call gives up well inside Hermes' hook timeout, and the handler still asks once and writes once", async () => {
    const { p, server, base } = await runtime();
    // every tool call reaches the runtime 5 s late (the session's grant is answered at once)
    const proxy: Server = createServer((req, res) => {
      const body: Buffer[] = [];
      req.on("data", (d: Buffer) => body.push(d));
      req.on("end", () => {
        const forward = () => {
          const up = httpRequest(server.url + (req.url ?? "/"), { method: req.method, headers: req.headers }, (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          });
          up.on("error", () => res.destroy());
          up.end(Buffer.concat(body));
        };
        if (req.method === "POST") setTimeout(forward, 5_000);
        else forward();
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (proxy.address() as { port: number }).port;
      const r = await run(
        {
          ...base,
          url: `http://127.0.0.1:${port}`,
          interactive: true,
          hook_timeout: 6, // Hermes blocks a pre_tool_call still running after 6 s; the plugin keeps to half
          cli_callback: ["once"],
          calls: [["mnote_page_update_title", { title: "Slowly approved" }, "call_slow"]],
        },
        { MNOTE_TOOLS_TIMEOUT: "20", MNOTE_TOOLS_RETRIES: "0" },
      );
      const call = r.calls[0];
      expect(call.output).not.toContain("timed out or is still running"); // Hermes never blocked the hook
      expect(call.panel).toHaveLength(1); // asked once (by the handler: the hook had no preview in time)
      expect(JSON.parse(call.output)).toMatchObject({ ok: true, toolCallId: "call_slow" });
      // the hook gave up after 3 s (a 5 s answer would still have fit Hermes' 6 s): its request, the
      // handler's, the approved one, all with one key; Hermes' gate never asked (the handler did)
      expect(call.requests.map((q: any) => q.approval?.token === undefined)).toEqual([true, true, false]);
      expect(new Set(call.requests.map((q: any) => q.idempotencyKey)).size).toBe(1);
      expect(call.gate).toEqual([]);
      expect(kernel(p.db)).toMatchObject({ writes: 1, title: "Slowly approved" });
    } finally {
      proxy.close();
      await server.stop();
    }
  });

  it("an operator's approval transport is used where there is one: it sees the preview, no built-in prompt; deny, once, and a failed transport (nobody saw it)", async () => {
    const { p, server, base } = await runtime();
    try {
      const r = await run({
        ...base,
        interactive: true,
        cli_callback: ["once", "once", "once"], // the CLI's panel would say yes: it must not be asked
        transport: ["deny", "once", "not an answer"],
        calls: [
          ["mnote_page_update_title", { title: "Refused" }, "call_t1"],
          ["mnote_page_update_title", { title: "Approved" }, "call_t2"],
          ["mnote_page_update_title", { title: "Unseen" }, "call_t3"],
        ],
      });
      const [no, yes, failed] = r.calls;
      expect(r.calls.map((c: any) => c.panel.length)).toEqual([0, 0, 0]);
      expect(r.transport.map((t: any) => t.description)).toEqual([
        "重命名页面：「项目计划」 → 「Refused」。",
        "重命名页面：「项目计划」 → 「Approved」。",
        "重命名页面：「Approved」 → 「Unseen」。",
      ]);
      expect(r.transport[0]).toMatchObject({ allow_session: false, allow_permanent: false });
      expect(no.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "declined"]);
      expect(JSON.parse(yes.output)).toMatchObject({ ok: true, toolCallId: "call_t2" });
      // a transport that failed is not a person's "no": told as no_one_to_ask
      expect(failed.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "no_one_to_ask"]);
      expect(kernel(p.db)).toMatchObject({ writes: 1, title: "Approved" });
    } finally {
      await server.stop();
    }
  });

  it("pre_tool_call never raises: a runtime that cannot be reached is the handler's unavailable, not Hermes' hook failure", async () => {
    const { p, server } = await runtime();
    try {
      const before = hashDatabaseFile(p.db);
      const r = await run(
        {
          url: "http://127.0.0.1:1", // nothing listens there
          token: "tok",
          session_id: "s_gate",
          interactive: true,
          calls: [["mnote_page_update_title", { title: "Unreachable" }, "call_down"]],
        },
        { MNOTE_TOOLS_RETRIES: "0" },
      );
      const out = JSON.parse(r.calls[0].output);
      expect(out).toMatchObject({ ok: false, error: { code: "mnote_tool_unavailable" } });
      expect(r.warnings.filter((w: any) => /raised|timed out/.test(w.message))).toEqual([]);
      expect(hashDatabaseFile(p.db)).toBe(before);
    } finally {
      await server.stop();
    }
  });

  it("the running call id is read from tools.approval_context: a call whose pre_tool_call was skipped keeps its own id", async () => {
    const { p, server, base } = await runtime(true);
    try {
      const r = await run({
        ...base,
        calls: [["mnote_artifact_create_ai_note", { content: "Own id" }, "call_own", { skip_hook: true }]],
      });
      expect(r.calls[0].request.toolCallId).toBe("call_own");
      expect(JSON.parse(r.calls[0].output)).toMatchObject({ ok: true, toolCallId: "call_own" });
      expect(kernel(p.db).writes).toBe(1);
    } finally {
      await server.stop();
    }
  });
});

for (const tree of HERMES_TREES) {
  const suite = tree.present ? describe : describe.skip;
  suite(`/stop while the plugin asks a person (${tree.name}: ${tree.present ? tree.src : tree.skip})`, () => {
    it("cancels the pending ask within a second or so, tells the runtime, writes nothing", async () => {
      const { p, server, base } = await runtime();
      try {
        const before = hashDatabaseFile(p.db);
        const r = await runHermesDriver(tree, {
          ...base,
          cli_callback: ["hang"],
          // v0.21: the handler's own ask (pre_tool_call skipped, as when it could not reach the runtime)
          calls: [["mnote_page_save", replace("Stopped."), "call_stop", { skip_hook: true, interrupt_after: 1 }]],
        });
        const call = r.calls[0];
        expect(call.panel).toHaveLength(1); // the person was being asked
        expect(JSON.parse(call.output)).toMatchObject({
          ok: false,
          error: { code: "mnote_tool_approval_denied", reason: "declined" },
        });
        expect(call.requests.map((q: any) => q.approval?.answer ?? null)).toEqual([null, "declined"]);
        // the person never answers (the callback hangs 120 s): only the interrupt ended the wait
        expect(call.seconds).toBeLessThan(60);
        expect(hashDatabaseFile(p.db)).toBe(before);
      } finally {
        await server.stop();
      }
    });
  });
}
