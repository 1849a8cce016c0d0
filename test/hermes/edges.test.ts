/**
 * The Hermes plugin's edges (issue 18), through the project's Hermes-like loader
 * (scripts/hermes/hermes_loader.py) against a live runtime, asserting the kernel's state:
 *   - the raise step's refusals: non-object arguments, undeclared __proto__ / constructor /
 *     prototype members at any depth, a dryRun that is not a boolean or null; nothing is sent;
 *   - keys from the exact Hermes tool call id: ids that a cleanup would make equal are two calls;
 *   - uncertain writes remembered by the runtime: a model's retry after Hermes restarted (a new
 *     python process) replays, over HTTP and through the CLI transport;
 *   - what the model reads names the tool as the model calls it.
 */
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { cliPath, generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { start } from "../support/processes";
import { tempDir } from "../support/tmp";
import { faultyKernelProxy } from "../support/kernel-proxy";
import { hashDatabaseFile } from "../support/runtime";
import { toolByProviderName, toolList, validateModelResponse } from "../../generated/registry";
import { validateIdentifier } from "../../generated/validators";
import { toolCallKey } from "../../runtime/transports/host-ids";
import { raiseRefusal } from "../../generated/raise";
import { COLLIDING_PAIRS } from "../support/model-calls";

const pluginDir = join(generatedDir, "hermes-plugin", "mnote");
const harness = join(repoRoot, "test", "hermes", "harness.py");
const S = { session_id: "s_owner", task_id: "task_1" };

interface Step {
  name: string;
  tool: string;
  args?: unknown;
  session_id?: string;
  task_id?: string;
  tool_call_id?: string;
  env?: Record<string, string | null>;
}
interface Result {
  name: string;
  response: any;
  request: any;
  sent: number;
}

/** Runs the harness in its own process (a fault proxy in this one must keep answering). */
async function runHarness(steps: Step[], env: NodeJS.ProcessEnv): Promise<Result[]> {
  const file = join(tempDir("mnote-hermes-"), "steps.json");
  // JSON text, so members named __proto__ reach python as written
  writeFileSync(file, JSON.stringify(steps));
  const child = spawn("python3", [harness, pluginDir, file], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => err.push(d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const status = await new Promise<number | null>((r) => child.on("close", r));
  clearTimeout(timer);
  if (status !== 0) throw new Error(`harness failed: ${Buffer.concat(err).toString("utf8")}`);
  const results = (JSON.parse(Buffer.concat(out).toString("utf8")) as { results: Result[] }).results;
  for (const r of results) {
    const tool = toolByProviderName(steps.find((s) => s.name === r.name)!.tool)!;
    // what the model reads: the model view (toolName is the provider name), and nothing dotted
    expect([r.name, validateModelResponse(tool, r.response)]).toEqual([r.name, true]);
    expect([r.name, JSON.stringify(r.response).includes(tool.name)]).toEqual([r.name, false]);
  }
  return results;
}

const byName = (results: Result[], name: string) => results.find((r) => r.name === name)!;
const aiNotes = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare("SELECT COUNT(*) AS n FROM artifacts WHERE type = 'ai_note'").get() as { n: number }).n;
  } finally {
    d.close();
  }
};

/** Valid arguments per tool (by provider name), as a model sends them. */
const valid: Record<string, Record<string, unknown>> = {
  mnote_page_get: { includeBlocks: true },
  mnote_page_save: { content: [{ type: "paragraph", text: "x" }], mode: "replace" },
  mnote_page_update_title: { title: "T" },
  mnote_page_update_options: { options: { smallText: true } },
  mnote_artifact_create_summary: { summary: "S" },
  mnote_artifact_create_ai_note: { content: "N" },
};

describe("the plugin refuses what it cannot raise safely, before anything is sent", () => {
  it("__proto__ / constructor / prototype at any depth, non-boolean dryRuns, non-object arguments: invalid_input naming the place; the kernel unchanged", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const before = hashDatabaseFile(p.db);
      const cases: Array<{ tool: string; args: unknown; pointer: string; keyword: string }> = [
        {
          tool: "mnote_page_save",
          args: JSON.parse(
            '{"__proto__": {"dryRun": true}, "content": [{"type": "paragraph", "text": "x"}], "mode": "replace"}',
          ),
          pointer: "/args/__proto__",
          keyword: "additionalProperties",
        },
        {
          tool: "mnote_page_save",
          args: JSON.parse('{"content": [{"type": "paragraph", "text": "x", "__proto__": {"level": 99}}]}'),
          pointer: "/args/content/0/__proto__",
          keyword: "additionalProperties",
        },
        {
          tool: "mnote_page_update_options",
          args: { options: { smallText: true, constructor: { prototype: true } } },
          pointer: "/args/options/constructor",
          keyword: "additionalProperties",
        },
        {
          tool: "mnote_artifact_create_ai_note",
          args: { content: "N", extra: [{ deep: { prototype: 1 } }] },
          pointer: "/args/extra/0/deep/prototype",
          keyword: "additionalProperties",
        },
        ...["true", 1, "yes", {}, []].map((dryRun) => ({
          tool: "mnote_page_save",
          args: { content: [], mode: "replace", dryRun },
          pointer: "/dryRun",
          keyword: "type",
        })),
        { tool: "mnote_page_get", args: ["includeBlocks"], pointer: "/args", keyword: "type" },
        { tool: "mnote_page_update_title", args: "rename it", pointer: "/args", keyword: "type" },
      ];
      const results = await runHarness(
        cases.map((c, i) => ({ name: `case-${i}`, tool: c.tool, args: c.args, ...S, tool_call_id: `call_${i}` })),
        { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok", MNOTE_TOOLS_LOCALE: "en" },
      );
      cases.forEach((c, i) => {
        const r = byName(results, `case-${i}`);
        expect([i, r.response.error]).toMatchObject([
          i,
          { code: "mnote_tool_invalid_input", retryable: false, pointer: c.pointer, rule: { keyword: c.keyword } },
        ]);
        expect([i, r.request]).toEqual([i, null]); // nothing was sent
      });
      expect(byName(results, "case-4").response.error).toMatchObject({
        rule: { keyword: "type", limit: "boolean", pointer: "/dryRun" },
        message: "dryRun: must be of type boolean",
      });
      expect(hashDatabaseFile(p.db)).toBe(before);
    } finally {
      await server.stop();
    }
  });
});

describe("one raise step, two languages", () => {
  it("the plugin's raise_refusal and the TypeScript raiseRefusal refuse the same calls at the same places", () => {
    const samples: Array<[string, string]> = [
      ["mnote.page.save", '{"__proto__": {"dryRun": true}, "content": []}'],
      ["mnote.page.save", '{"content": [{"type": "paragraph", "text": "x", "__proto__": {"level": 99}}]}'],
      ["mnote.page.save", '{"content": [{"type": "paragraph", "text": "x"}], "x": {"y": [1, {"prototype": 2}]}}'],
      ["mnote.page.update_options", '{"options": {"constructor": {}}}'],
      ["mnote.page.save", '{"content": [], "dryRun": "true"}'],
      ["mnote.page.save", '{"content": [], "dryRun": 1}'],
      ["mnote.page.save", '{"content": [], "dryRun": null}'],
      ["mnote.page.save", '{"content": [], "dryRun": false}'],
      ["mnote.page.get", '{"dryRun": "yes"}'],
      ["mnote.page.get", '["not", "an", "object"]'],
      ["mnote.page.get", '"text"'],
      ["mnote.artifact.create_ai_note", '{"content": "a~/b", "a~/b": {"__proto__": 1}}'],
    ];
    const script = [
      "import json, sys",
      "sys.dont_write_bytecode = True",
      "sys.path.insert(0, sys.argv[1])",
      "import raise_args",
      "print(json.dumps([raise_args.raise_refusal(n, json.loads(v)) for n, v in json.loads(sys.stdin.read())]))",
    ].join("\n");
    const run = spawnSync("python3", ["-c", script, pluginDir], { input: JSON.stringify(samples), encoding: "utf8" });
    expect(run.stderr).toBe("");
    const fromTs = samples.map(([n, v]) => raiseRefusal(n, JSON.parse(v)) ?? null);
    expect(JSON.parse(run.stdout)).toEqual(fromTs);
    // page.get takes no dryRun: that member is an unknown argument, for the validators (not the raise step)
    expect(fromTs.map((r) => r !== null)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(fromTs[11]).toEqual({ pointer: "/a~0~1b/__proto__", keyword: "additionalProperties" });
  });
});

describe("keys come from the exact tool call id", () => {
  it("8 pairs of ids a cleanup would make equal are 16 calls: 16 notes, 16 keys, 16 distinct display ids", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const steps = COLLIDING_PAIRS.flatMap(([a, b], i) =>
        [a, b].map((id, j) => ({
          name: `pair-${i}-${j}`,
          tool: "mnote_artifact_create_ai_note",
          args: { content: `Finding ${i}` }, // the same note on purpose, twice per pair
          ...S,
          tool_call_id: id,
        })),
      );
      const results = await runHarness(steps, { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" });
      for (const r of results)
        expect([r.name, r.response.ok, r.response.audit.replayed]).toEqual([r.name, true, false]);
      expect(new Set(results.map((r) => r.request.idempotencyKey)).size).toBe(16);
      expect(new Set(results.map((r) => r.request.toolCallId)).size).toBe(16);
      for (const r of results)
        expect([r.request.toolCallId, validateIdentifier(r.request.toolCallId)]).toEqual([r.request.toolCallId, true]);
      // the key is the shared derivation of the exact ids (runtime/transports/host-ids.ts)
      steps.forEach((s, i) => expect(results[i]!.request.idempotencyKey).toBe(toolCallKey("s_owner", s.tool_call_id)));
      expect(results.every((r) => r.request.keyOrigin === "tool_call")).toBe(true);
      expect(aiNotes(p.db)).toBe(16);
    } finally {
      await server.stop();
    }
  });

  it("the plugin derives the same keys as the runtime's helper, for any string (astral, lone surrogates, separators)", () => {
    const ids = ["call_1", "a\nb", "1:", "", "😀", "\ud800", "\udc00x", "x".repeat(300), "é", "e\u0301"];
    const pairs = ids.flatMap((s) => ids.map((c) => [s, c] as const));
    const script = [
      "import json, sys",
      "sys.dont_write_bytecode = True",
      "sys.path.insert(0, sys.argv[1])",
      "from mnote import tool_call_key",
      "print(json.dumps([tool_call_key(s, c) for s, c in json.loads(sys.stdin.read())]))",
    ].join("\n");
    const run = spawnSync("python3", ["-c", script, join(generatedDir, "hermes-plugin")], {
      input: JSON.stringify(pairs),
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    const fromPython = JSON.parse(run.stdout) as string[];
    expect(fromPython).toEqual(pairs.map(([s, c]) => toolCallKey(s, c)));
    expect(new Set(fromPython).size).toBe(pairs.length); // ("1:", "") and ("", "1:") etc. do not run into each other
  });
});

describe("a model's retry after Hermes restarted replays (the runtime remembers uncertain writes)", () => {
  /** A kernel whose answer to the first AI-note write is lost after it committed, and that answers no command.status. */
  async function lossyKernel(p: { db: string }) {
    const kernel = await start(["kernel", "serve", "--db", p.db, "--port", "0", "--token", "ktok"]);
    let writes = 0;
    const proxy = await faultyKernelProxy(kernel.url, (command) => {
      if (command === "command.status") return "fail";
      if (command === "artifact.aiNote.create") return writes++ === 0 ? "lose" : "pass";
      return "pass";
    });
    return {
      url: proxy.url,
      async stop() {
        await proxy.close();
        await kernel.stop();
      },
    };
  }

  const note = { content: "Finding: step two depends on step one." };

  async function restartAndRetry(env: NodeJS.ProcessEnv, db: string) {
    // Hermes before the restart: the answer is uncertain (the plugin does not retry: MNOTE_TOOLS_RETRIES=0)
    const [first] = await runHarness(
      [{ name: "first", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_before" }],
      env,
    );
    expect(first!.response.error).toMatchObject({ code: "mnote_tool_outcome_unknown", retryable: true });
    expect(["after the first call", aiNotes(db)]).toEqual(["after the first call", 1]); // committed; its answer was lost
    // Hermes after the restart (a new python process): the model retries, a new tool call
    const after = await runHarness(
      [
        { name: "retry", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_after" },
        { name: "on-purpose", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_again" },
      ],
      env,
    );
    const [retry, again] = [byName(after, "retry"), byName(after, "on-purpose")];
    expect(retry.request.idempotencyKey).not.toBe(first!.request.idempotencyKey); // a new call, a new key ...
    expect(retry.response).toMatchObject({ ok: true, audit: { effect: "write", replayed: true } }); // ... reconciled
    expect(again.response).toMatchObject({ ok: true, audit: { replayed: false } }); // after a success: a new note
    expect(again.response.result.artifactId).not.toBe(retry.response.result.artifactId);
    expect(aiNotes(db)).toBe(2); // the first (replayed by the retry) and the one made on purpose
  }

  it("over HTTP", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const kernel = await lossyKernel(p);
    const server = await start([
      "serve",
      "--kernel-url",
      kernel.url,
      "--kernel-token",
      "ktok",
      "--state",
      p.state,
      "--port",
      "0",
      "--token",
      "tok",
    ]);
    try {
      await restartAndRetry({ MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok", MNOTE_TOOLS_RETRIES: "0" }, p.db);
    } finally {
      await server.stop();
      await kernel.stop();
    }
  });

  it("through the CLI transport (one `mnote-tools call` per tool call)", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const kernel = await lossyKernel(p);
    try {
      await restartAndRetry(
        {
          MNOTE_TOOLS_CLI: `${process.execPath} ${cliPath}`,
          MNOTE_TOOLS_STATE: p.state,
          MNOTE_KERNEL_URL: kernel.url,
          MNOTE_KERNEL_TOKEN: "ktok",
          MNOTE_TOOLS_RETRIES: "0",
        },
        p.db,
      );
    } finally {
      await kernel.stop();
    }
  });
});

describe("what only the host can know: no answer at all", () => {
  it("a write that got no answer (the runtime unreachable) lends its key to the model's retry in the same process; an answer ends that", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const note = { content: "Sent into the void." };
      const results = await runHarness(
        [
          // the binding is fetched (and cached) while the runtime answers; then it stops answering
          {
            name: "read",
            tool: "mnote_page_get",
            args: {},
            ...S,
            tool_call_id: "call_read",
            env: { MNOTE_TOOLS_URL: server.url },
          },
          {
            name: "unanswered",
            tool: "mnote_artifact_create_ai_note",
            args: note,
            ...S,
            tool_call_id: "call_void",
            env: { MNOTE_TOOLS_URL: "http://127.0.0.1:9" },
          },
          {
            name: "retry",
            tool: "mnote_artifact_create_ai_note",
            args: note,
            ...S,
            tool_call_id: "call_retry",
            env: { MNOTE_TOOLS_URL: server.url },
          },
          { name: "again", tool: "mnote_artifact_create_ai_note", args: note, ...S, tool_call_id: "call_again" },
        ] as Step[],
        { MNOTE_TOOLS_TOKEN: "tok", MNOTE_TOOLS_RETRIES: "0" },
      );
      const [unanswered, retry, again] = ["unanswered", "retry", "again"].map((n) => byName(results, n));
      expect(unanswered!.response.error).toMatchObject({ code: "mnote_tool_unavailable", retryable: true });
      expect(unanswered!.sent).toBe(1); // it was sent: the runtime may have written it
      expect(retry!.request.idempotencyKey).toBe(toolCallKey("s_owner", "call_void"));
      expect(retry!.response).toMatchObject({ ok: true, audit: { replayed: false } });
      expect(again!.request.idempotencyKey).toBe(toolCallKey("s_owner", "call_again"));
      expect(aiNotes(p.db)).toBe(2);
    } finally {
      await server.stop();
    }
  });
});

describe("what the model reads", () => {
  it("names every tool as the model calls it, on success and on failure", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const server = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    try {
      const steps = toolList.flatMap((t) => [
        {
          name: `${t.providerName}-ok`,
          tool: t.providerName,
          args: valid[t.providerName],
          ...S,
          tool_call_id: `ok_${t.providerName}`,
        },
        {
          name: `${t.providerName}-bad`,
          tool: t.providerName,
          args: { nope: 1 },
          ...S,
          tool_call_id: `bad_${t.providerName}`,
        },
      ]);
      const results = await runHarness(steps, { MNOTE_TOOLS_URL: server.url, MNOTE_TOOLS_TOKEN: "tok" });
      for (const t of toolList) {
        expect(byName(results, `${t.providerName}-ok`).response).toMatchObject({ ok: true, toolName: t.providerName });
        expect(byName(results, `${t.providerName}-bad`).response).toMatchObject({
          ok: false,
          toolName: t.providerName,
        });
        // the runtime (a program's API) still hears the canonical name
        expect(byName(results, `${t.providerName}-ok`).request.toolName).toBe(t.name);
      }
    } finally {
      await server.stop();
    }
  });
});
